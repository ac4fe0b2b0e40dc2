import Foundation
import ReceiptCore

/// Dispatches to the subcommands and turns every outcome into an exit status.
enum CommandRunner {
    static let usage = """
    usage: receiptdesk <command> [options]

    commands:
      decode [FILE|-] [--json] [--trust-anchor CERT]... [--device-id UUID] [--bundle-id ID]...
                      decode and verify a receipt, JWS, notification or verifyReceipt answer
      samples [DIR]   decode and verify every sample artefact in DIR (default Assets/Samples)
      bench [--json]  measure decode and verify speed (make bench builds it for release)
      help            this text

    exit codes: 0 valid, 1 decoded but not valid, 64 usage, 65 not decodable
    """

    static func run(_ arguments: [String]) -> ExitStatus {
        guard let command = arguments.first else {
            print(usage)
            return .usage
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "decode": return try DecodeCommand.run(rest)
            case "samples": return try SamplesCommand.run(rest)
            case "bench": return try BenchCommand.run(rest)
            case "help", "--help", "-h":
                print(usage)
                return .ok
            default:
                throw CommandFailure.usage("unknown command '\(command)'; try 'receiptdesk help'")
            }
        } catch {
            let failure = CommandFailure.from(error)
            printError("receiptdesk \(command): \(failure.message)")
            if failure.status == .usage { printError("try 'receiptdesk help'") }
            return failure.status
        }
    }
}
