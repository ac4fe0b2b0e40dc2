import Foundation
import PurchaseStore
import ReceiptCore
import Testing

// Run on every backend (TestBackend.available): SQLite always, PostgreSQL when
// RECEIPTDESK_TEST_POSTGRES_URL names a test server (make test starts one).

/// The team lead's overview: each figure counted on the right day of this week (from Monday) and
/// this month, UTC, on both backends.
@Suite("Team report on both backends")
struct TeamReportTests {
    static func at(_ f: BackendLedgerFixture, _ time: String) { f.now = LedgerFixture.date(time) }

    /// A week of support: arrivals, a refund, a conflict opened then resolved, a sandbox receipt
    /// of a customer who is not a tester, grants and a revoke by two operators. Ends Wednesday
    /// 2025-06-04 12:00 UTC (the week began Monday 2025-06-02, the month Sunday 2025-06-01).
    static func week(_ f: BackendLedgerFixture) throws {
        at(f, "2025-06-01T10:00:00Z")
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("t1", bought: "2025-05-31T00:00:00Z", expires: "2025-07-01T00:00:00Z")]),
                                        customer: "alice", source: "app", operatorName: "mei")
        at(f, "2025-06-02T10:00:00Z")
        let bob = try f.receipt([LedgerFixture.purchase("t2", "com.example.pro.lifetime", bought: "2025-06-02T00:00:00Z", expires: nil, type: 0),
                                 LedgerFixture.purchase("t3", bought: "2025-06-02T00:00:00Z", expires: "2025-07-02T00:00:00Z",
                                                        cancelled: "2025-06-03T08:00:00Z")])
        _ = try f.ledger.importArtefact(bob, customer: "bob", source: "app", operatorName: "mei")
        try f.ledger.grant(customer: "alice", entitlement: "pro", until: nil, reason: "outage", operatorName: "mei")
        at(f, "2025-06-03T10:00:00Z")
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("t2", "com.example.pro.lifetime", bought: "2025-06-02T00:00:00Z", expires: nil, type: 0)],
                                                      created: "2025-06-03T00:00:00Z"),
                                        customer: "carol", source: "app", operatorName: "li")
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("t4", bought: "2025-06-03T00:00:00Z", expires: "2025-07-03T00:00:00Z")],
                                                      type: "ProductionSandbox"),
                                        customer: "dave", source: "app", operatorName: "li")
        at(f, "2025-06-04T10:00:00Z")
        let conflict = try #require(try f.ledger.conflicts().first)
        try f.ledger.resolveConflict(conflict.conflictId, owner: "bob", reason: "bob bought it", operatorName: "li")
        try f.ledger.grant(customer: "dave", entitlement: "coins", until: nil, reason: "sorry", operatorName: "li")
        try f.ledger.revoke(customer: "alice", entitlement: "pro", reason: "outage over", operatorName: "mei")
        at(f, "2025-06-04T12:00:00Z")
    }

    @Test(arguments: TestBackend.available) func eachFigureIsCountedOnItsDay(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        try Self.week(f)
        let week = try f.ledger.teamReport(.week, now: f.now)
        #expect(week.days == ["2025-06-02", "2025-06-03", "2025-06-04"])
        #expect(week.arrivals == TeamReport.Series(total: 3, perDay: [2, 1, 0]))
        #expect(week.refunds == TeamReport.Series(total: 1, perDay: [0, 1, 0]))
        #expect(week.refundReasons.map(\.reason) == ["refund (Apple gave no type)"] && week.refundReasons.map(\.count) == [1])
        #expect(week.revocations.total == 0)
        #expect(week.conflictsOpened == TeamReport.Series(total: 1, perDay: [0, 1, 0]))
        #expect(week.conflictsResolved == TeamReport.Series(total: 1, perDay: [0, 0, 1]))
        #expect(week.conflictsOpenNow == 0)
        #expect(week.sandboxOnProduction == TeamReport.Series(total: 1, perDay: [0, 1, 0]))
        #expect(week.grants == TeamReport.Series(total: 2, perDay: [1, 0, 1]))
        #expect(week.byOperator.map(\.operatorName) == ["mei", "li"])
        #expect(week.byOperator.map(\.grants) == [1, 1] && week.byOperator.map(\.revokes) == [1, 0])
        #expect(week.activeSubscriptions.map(\.productId) == ["com.example.pro.monthly"] && week.activeSubscriptions.map(\.count) == [1],
                "t1 runs; t3 was refunded; t4 is sandbox")
        let month = try f.ledger.teamReport(.month, now: f.now)
        #expect(month.days.first == "2025-06-01" && month.days.count == 4)
        #expect(month.arrivals == TeamReport.Series(total: 4, perDay: [1, 2, 1, 0]))
        // The text: a sparkline per figure, its total after it.
        let text = week.lines.joined(separator: "\n")
        #expect(text.contains("  arrivals             █▄·  3"), "\(text)")
        #expect(text.contains("      mei  1 grant, 1 revoke"), "\(text)")
        #expect(week.json.serialized().contains("\"arrivals\":{\"total\":3,\"perDay\":[2,1,0]}"))
    }

    @Test func sparklinesScaleToTheBusiestDayAndShowQuietOnes() {
        #expect(Sparkline.render([0, 1, 2, 4, 8]) == "·▁▂▄█")
        #expect(Sparkline.render([0, 0]) == "··")
        #expect(Sparkline.render([1, 1000]) == "▁█", "one event still shows beside a busy day")
        #expect(Sparkline.render([]) == "")
    }

    @Test func periodsStartOnMondayAndOnTheFirst() {
        let sunday = LedgerFixture.date("2025-06-01T23:59:00Z")
        #expect(RFC3339.format(TeamReport.Period.week.start(sunday)) == "2025-05-26T00:00:00Z")
        #expect(RFC3339.format(TeamReport.Period.month.start(sunday)) == "2025-06-01T00:00:00Z")
        let monday = LedgerFixture.date("2025-06-02T00:00:00Z")
        #expect(RFC3339.format(TeamReport.Period.week.start(monday)) == "2025-06-02T00:00:00Z")
    }
}
