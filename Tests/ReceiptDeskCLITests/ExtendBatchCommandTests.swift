import Foundation
import Testing

/// `receiptdesk subscription extend --customers FILE | --search QUERY …`: goodwill at Apple for
/// many, end to end over a demo whose Apple is the simulator (real HTTP on loopback): a preview
/// that asks nothing, then `--yes` with who got what (extended, skipped and why: a grace period
/// Apple would refuse), another goodwill Apple refuses (65), a second run that asks nothing, and
/// two processes running it at the same moment.
@Suite("subscription extend for many: goodwill at Apple", .serialized)
struct ExtendBatchCommandTests {
    typealias Demo = AppleCommandsTests.Demo

    /// The simulator's extensions of each original transaction id.
    static func extensionsAtApple(_ demo: Demo) throws -> [String: Int] {
        let data = try Data(contentsOf: demo.folder.appendingPathComponent("simulator/state.json"))
        let state = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var counts: [String: Int] = [:]
        for item in (state["extensions"] as? [[String: Any]]) ?? [] {
            if let original = item["originalTransactionId"] as? String { counts[original, default: 0] += 1 }
        }
        return counts
    }

    static func lines(_ output: CLIRunner.Output) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], "\(output.stdout)\(output.stderr)")
        return try #require(object["subscriptions"] as? [[String: Any]])
    }

    static func outcome(_ lines: [[String: Any]], _ customer: String) -> String? {
        lines.first { $0["customerId"] as? String == customer }?["outcome"] as? String
    }

    @Test func aListIsPreviewedThenExtendedWithWhoGotWhat() throws {
        let demo = try Demo()
        let list = demo.folder.appendingPathComponent("outage.txt")
        try Data("# outage of 3 June\ncust-state-active\ncust-state-grace-period\ncust-state-renewal-extended\ncust-state-expired-voluntary\ncust-state-family-member\nnobody\n".utf8).write(to: list)
        let arguments = ["subscription", "extend", "--customers", list.path, "--days", "3", "--reason-code", "outage", "--reason", "outage 3 June"] + demo.common
        let before = try Self.extensionsAtApple(demo)
        let preview = try CLIRunner.run(arguments)
        #expect(preview.status == 0, "\(preview.stderr)")
        #expect(preview.stdout.hasPrefix("preview: would extend 2 of 4 subscriptions of 6 customers from \(list.path) by 3 days at Apple (goodwill-"), "\(preview.stdout)")
        #expect(preview.stdout.contains("  + cust-state-active  2000") && preview.stdout.contains("expires ") && preview.stdout.contains(" → about "), "\(preview.stdout)")
        #expect(preview.stdout.contains("  - cust-state-expired-voluntary  2000") && preview.stdout.contains("Apple extends only active subscriptions"), "\(preview.stdout)")
        // Apple refuses an extension in a grace period whose expiry has passed: skipped, with the signed state it was decided from.
        let grace = preview.stdout.split(separator: "\n").first { $0.hasPrefix("  - cust-state-grace-period  2000") }.map(String.init) ?? ""
        #expect(grace.contains("(com.example.game.pro.monthly)  skipped: in billing grace period since ")
                && grace.contains(" (Apple refuses extensions after expiry): Apple's status 4 and expiry in notification "), "\(preview.stdout)")
        #expect(preview.stdout.contains("  - cust-state-family-member  skipped: no auto-renewable subscription in the ledger")
                && preview.stdout.contains("  - nobody  skipped: not in the ledger")
                && preview.stdout.hasSuffix("run it again with --yes to extend (Apple emails each customer their new renewal date; an extension cannot be undone)\n"),
                "\(preview.stdout)")
        #expect(try Self.extensionsAtApple(demo) == before, "the preview asked Apple nothing")

        let done = try CLIRunner.run(arguments + ["--yes", "--json"])
        #expect(done.status == 0, "\(done.stdout)\(done.stderr)")
        let lines = try Self.lines(done)
        #expect(Self.outcome(lines, "cust-state-active") == "extended" && Self.outcome(lines, "cust-state-renewal-extended") == "extended"
                && Self.outcome(lines, "cust-state-grace-period") == "skipped"
                && Self.outcome(lines, "cust-state-expired-voluntary") == "skipped" && Self.outcome(lines, "nobody") == "skipped", "\(lines)")
        let active = try #require(lines.first { $0["customerId"] as? String == "cust-state-active" }?["originalTransactionId"] as? String)
        let twice = try #require(lines.first { $0["customerId"] as? String == "cust-state-renewal-extended" }?["originalTransactionId"] as? String)
        let after = try Self.extensionsAtApple(demo)
        #expect(after[active] == (before[active] ?? 0) + 1 && after[twice] == 2, "\(after)")
        #expect(try AppleActionCommandsTests.audit(demo, "apple-extend-batch").contains("goodwill-"))

        // Another goodwill: the ledger knows one extension of cust-state-renewal-extended, Apple two
        // (the demo's own and this one): Apple refuses, 65, with its error.
        let other = try CLIRunner.run(["subscription", "extend", "--search", "cust-state-renewal-extended", "--days", "2", "--reason-code", "other",
                                       "--reason", "sorry again", "--yes", "--json"] + demo.common)
        #expect(other.status == 65, "\(other.stdout)\(other.stderr)")
        let refused = try Self.lines(other)
        #expect(Self.outcome(refused, "cust-state-renewal-extended") == "refused"
                && (refused.first?["why"] as? String)?.contains("4030005 subscriptionMaxExtension") == true, "\(refused)")
        let afterOther = try Self.extensionsAtApple(demo)

        // The first goodwill again, as text: already extended, nothing asked of Apple.
        let again = try CLIRunner.run(arguments + ["--yes"])
        #expect(again.status == 0 && again.stdout.contains(": extended 0 of 4 subscriptions")
                && again.stdout.contains("  = cust-state-active  \(active) (com.example.game.pro.monthly)  already extended by this goodwill to "), "\(again.stdout)")
        #expect(try Self.extensionsAtApple(demo) == afterOther, "a second run asked Apple nothing")
        #expect(try CLIRunner.run(["audit", "--verify"] + demo.common).status == 0)
    }

    @Test func twoProcessesRunningOneGoodwillAtOnceExtendEachSubscriptionOnce() throws {
        let demo = try Demo()
        for reason in ["outage A", "outage B"] {
            let before = try Self.extensionsAtApple(demo)
            let arguments = ["subscription", "extend", "--search", "cust-state", "--days", "2", "--reason-code", "outage", "--reason", reason,
                             "--yes", "--json"] + demo.common
            let runs = try (0..<2).map { worker in
                try CLIRunner.start(arguments + ["--operator", "op\(worker)"], outputDirectory: demo.folder, gated: true)
            }
            runs.forEach { $0.open() }
            let outputs = runs.map { $0.wait() }
            let reports = try outputs.map(Self.lines)
            let after = try Self.extensionsAtApple(demo)
            var extendedHere = 0
            for original in Set(reports[0].compactMap { $0["originalTransactionId"] as? String }) {
                let said = reports.map { $0.first { $0["originalTransactionId"] as? String == original }?["outcome"] as? String ?? "?" }
                let grown = (after[original] ?? 0) - (before[original] ?? 0)
                if said.contains("extended") {
                    extendedHere += 1
                    #expect(grown == 1 && said.filter { $0 == "extended" }.count == 1, "\(reason) \(original): \(said), \(grown) at Apple")
                    #expect(said.contains("already-extended") || said.contains("skipped"), "\(reason) \(original): \(said)")
                } else {
                    #expect(grown == 0, "\(reason) \(original): \(said), \(grown) at Apple")
                }
            }
            #expect(extendedHere >= 5, "\(reason): \(reports)")
        }
        let audit = try AppleActionCommandsTests.audit(demo, "apple-extend-batch")
        #expect(audit.split(separator: "\n").count == 4, "\(audit)")
        #expect(try CLIRunner.run(["audit", "--verify"] + demo.common).status == 0)
    }
}
