import Foundation
import ReceiptCore

// receiptdesk: parse the command line, run the command, map its outcome to an exit code.
OpenSSLProcess.keepUntilExit()  // before any other OpenSSL use: see its note
setlocale(LC_ALL, "")
let status = CommandRunner.run(Array(CommandLine.arguments.dropFirst()))
exit(status.rawValue)
