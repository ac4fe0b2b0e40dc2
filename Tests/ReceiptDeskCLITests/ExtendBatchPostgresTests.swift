import Foundation
import PurchaseStore
import Testing

/// `subscription extend --customers FILE` on PostgreSQL: the demo copied into a schema of the
/// test server (`db copy`), its Apple the simulator on loopback; the preview asks nothing, --yes
/// extends each once and skips what Apple refuses, a second run asks nothing, the audit verifies.
/// Skipped when RECEIPTDESK_TEST_POSTGRES_URL is unset.
@Suite("subscription extend for many on PostgreSQL", .serialized)
struct ExtendBatchPostgresTests {
    typealias Batch = ExtendBatchCommandTests
    static let postgresURL = ProcessInfo.processInfo.environment["RECEIPTDESK_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// A schema of its own on the test server, dropped afterwards.
    final class Schema {
        let name = "rdgoodwill_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let server: String
        var url: String { server + (server.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(name)" }

        init(_ server: String) throws {
            self.server = server
            try PostgresDatabase(url: server).execute("CREATE SCHEMA \(name)", [])
        }

        deinit { _ = try? PostgresDatabase(url: server).execute("DROP SCHEMA \(name) CASCADE", []) }  // best effort: the server is thrown away
    }

    @Test(.enabled(if: postgresURL != nil, "RECEIPTDESK_TEST_POSTGRES_URL is unset: the PostgreSQL goodwill is skipped (make test sets it)"))
    func aListIsPreviewedThenExtendedOnceOnPostgreSQL() throws {
        let demo = try Batch.Demo()
        let schema = try Schema(try #require(Self.postgresURL))
        let copied = try CLIRunner.run(["db", "copy", "--from", demo.db, "--to", schema.url])
        try #require(copied.status == 0, "\(copied.stdout)\(copied.stderr)")
        let common = ["--db", schema.url, "--config", demo.config]
        let list = demo.folder.appendingPathComponent("outage.txt")
        try Data("cust-state-active\ncust-state-grace-period\ncust-state-billing-retry\nnobody\n".utf8).write(to: list)
        let arguments = ["subscription", "extend", "--customers", list.path, "--days", "4", "--reason-code", "outage", "--reason", "outage on PG"] + common
        let before = try Batch.extensionsAtApple(demo)

        let preview = try CLIRunner.run(arguments + ["--json"])
        #expect(preview.status == 0, "\(preview.stderr)")
        let planned = try Batch.lines(preview)
        #expect(Batch.outcome(planned, "cust-state-active") == "would-extend" && Batch.outcome(planned, "cust-state-grace-period") == "skipped"
                && Batch.outcome(planned, "cust-state-billing-retry") == "skipped" && Batch.outcome(planned, "nobody") == "skipped", "\(planned)")
        let why = { (lines: [[String: Any]], customer: String) in lines.first { $0["customerId"] as? String == customer }?["why"] as? String ?? "" }
        #expect(why(planned, "cust-state-grace-period").hasPrefix("in billing grace period since ")
                && why(planned, "cust-state-grace-period").contains("(Apple refuses extensions after expiry)"), "\(planned)")
        #expect(why(planned, "cust-state-billing-retry").hasPrefix("in billing retry since "), "\(planned)")
        #expect(try Batch.extensionsAtApple(demo) == before, "the preview asked Apple nothing")

        let done = try CLIRunner.run(arguments + ["--yes", "--json"])
        #expect(done.status == 0, "\(done.stdout)\(done.stderr)")
        let lines = try Batch.lines(done)
        let active = try #require(lines.first { $0["customerId"] as? String == "cust-state-active" }?["originalTransactionId"] as? String)
        #expect(Batch.outcome(lines, "cust-state-active") == "extended", "\(lines)")
        let after = try Batch.extensionsAtApple(demo)
        #expect(after[active] == (before[active] ?? 0) + 1 && after.values.reduce(0, +) == before.values.reduce(0, +) + 1, "\(after)")
        let stored = try PostgresDatabase(url: schema.url).query("SELECT outcome FROM renewal_extensions WHERE original_transaction_id = ?", [.text(active)])
        #expect(stored.map { $0.string("outcome") } == ["extended"], "recorded in PostgreSQL: \(stored)")

        let again = try CLIRunner.run(arguments + ["--yes", "--json"])
        let rerun = try Batch.lines(again)
        #expect(again.status == 0 && Batch.outcome(rerun, "cust-state-active") == "already-extended", "\(again.stdout)")
        #expect(try Batch.extensionsAtApple(demo) == after, "a second run asked Apple nothing")
        let audit = try CLIRunner.run(["audit", "--verify"] + common)
        #expect(audit.status == 0, "\(audit.stdout)\(audit.stderr)")
    }
}
