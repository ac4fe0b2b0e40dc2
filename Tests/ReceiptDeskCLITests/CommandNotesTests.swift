import Foundation
import Testing

/// Issue 29, 2: the long notes the old overview carried (delivery rules, what --verify catches,
/// serve's routes, …) live on in each command's own `--help` and in the man page, wrapped to
/// the terminal's 100 columns; nothing moved only to the README.
@Suite("Command notes")
struct CommandNotesTests {
    /// For each command, words its notes must hold (from the overview `help` printed before the table).
    static let kept: [(command: [String], says: [String])] = [
        (["transaction", "finish"], ["Delivered, as the ledger sees it", "not refunded or revoked (an upgrade counts as delivered)",
                                    "a sandbox purchase only for a tester or with allowSandbox", "paid and not ambiguous",
                                    "A repeat says \"already finished at … by …\"", "Exit 65: not delivered"]),
        (["audit"], ["names the first altered entry", "--skip-entitlements leaves it out", "catches a cut or rewritten tail",
                     "not an entry appended after the last anchor"]),
        (["import"], ["appStore.finishOnDelivery", "batches of 100", "nothing newly granted"]),
        (["search"], ["qualifiers env:, status:, verdict: and since:", "Exit 1 when nothing matches"]),
        (["serve"], ["POST /v1/purchases", "POST /v1/apple/notifications", "/healthz, /readyz and /metrics", "SIGTERM"]),
        (["customer", "export"], ["grants, moves and the audit entries"]),
        (["notifications", "fetch"], ["resume an interrupted fetch"]),
        (["bench"], ["from 1 and 4 processes"]),
    ]

    /// `text` with every run of spaces and line breaks made one space: a note wrapped anywhere reads the same.
    static func flat(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    @Test func eachCommandsHelpCarriesItsNotesWrapped() throws {
        for (command, says) in Self.kept {
            let help = try CLIRunner.run(command + ["--help"])
            #expect(help.status == 0, "\(command) --help: \(help.stderr)")
            let text = Self.flat(help.stdout)
            for words in says { #expect(text.contains(words), "\(command.joined(separator: " ")) --help lacks \"\(words)\":\n\(help.stdout)") }
            // The notes sit between the summary and the options, no line wider than 100 columns.
            let end = ["\noptions:", "\ndatabase options", "\nexamples:"].compactMap { help.stdout.range(of: $0)?.lowerBound }.min()
            let notes = help.stdout[..<(end ?? help.stdout.endIndex)].split(separator: "\n").dropFirst(3)  // usage, synopsis, summary
            #expect(!notes.isEmpty, "\(command): no notes after the summary")
            for line in notes where line.count > 100 { Issue.record("\(command): a note line of \(line.count) columns: \(line)") }
        }
        // A command without notes prints none: its options follow the summary.
        let plain = try CLIRunner.run(["order", "fail", "--help"]).stdout
        #expect(plain.hasPrefix("usage:\n  receiptdesk order fail ORDER [options]\n      record a failed payment for an order\n\noptions:\n"), "\(plain)")
    }

    @Test func theManPageCarriesTheNotesToo() throws {
        let page = try CLIRunner.run(["man"])
        #expect(page.status == 0)
        #expect(page.stdout.contains(".PP\nDelivered, as the ledger sees it: the transaction is in the ledger"), "\(page.stdout.prefix(400))")
        #expect(page.stdout.contains("POST /v1/apple/notifications (Apple's signature)"))
    }
}
