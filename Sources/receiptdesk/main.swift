import Foundation

// receiptdesk: parse the command line, run the command, map its outcome to an exit code.
setlocale(LC_ALL, "")
let status = CommandRunner.run(Array(CommandLine.arguments.dropFirst()))
exit(status.rawValue)
