import Foundation
@testable import PurchaseStore
import ReceiptCore
import Testing

/// A streamed import on SQLite keeps what each batch refreshed for the next one (`EntitlementCache`):
/// what it leaves must be exactly what importing the same artefacts one at a time leaves.
@Suite("Streamed import: entitlements kept between batches")
struct EntitlementCacheTests {
    /// 28 receipts for 4 customers, each customer in most batches of 3: renewals, expired and
    /// refunded periods, coins, a lifetime unlock, sandbox receipts, and original versions on
    /// both sides of the paid-to-free rule (build 42), in an order that is not purchase order.
    static func receipts(_ f: LedgerFixture) throws -> [(bytes: [UInt8], customer: String)] {
        try (0..<28).map { index in
            let day = 1 + (index * 7) % 28
            let bought = "2025-0\(4 + index % 2)-\(day < 10 ? "0" : "")\(day)T08:00:00Z"
            var purchases = [LedgerFixture.purchase(String(20_000 + index * 3), bought: bought,
                                                    expires: index % 3 == 0 ? "2025-05-20T00:00:00Z" : "2025-07-01T00:00:00Z",
                                                    cancelled: index % 5 == 4 ? "2025-05-25T00:00:00Z" : nil),
                             LedgerFixture.purchase(String(20_001 + index * 3), "com.example.coins.100", bought: bought, expires: nil, type: 1)]
            if index % 6 == 1 {
                purchases.append(LedgerFixture.purchase(String(20_002 + index * 3), "com.example.pro.lifetime", bought: bought,
                                                        expires: nil, type: 0))
            }
            let receipt = try f.receipt(purchases, type: index % 7 == 3 ? "ProductionSandbox" : "Production",
                                        originalAppVersion: index % 5 == 2 ? "41" : "50", created: "2025-05-\(10 + index % 18)T00:00:00Z")
            return (receipt, "customer-\(index % 4)")
        }
    }

    static func entitlementRows(_ database: SQLDatabase) throws -> [[SQLValue]] {
        try database.query("""
            SELECT customer_id, entitlement, source, transaction_id, grant_id, starts_at, ends_at, units, active, revoked,
                   revoked_by, reason, flags FROM entitlements ORDER BY customer_id, entitlement, source, transaction_id, grant_id
            """, []).map(\.values)
    }

    /// With room for everything, and with room for about one customer (evicted again and again).
    @Test(arguments: [100_000, 40]) func aStreamLeavesWhatImportsOneAtATimeLeave(budget: Int) throws {
        let streamed = try LedgerFixture()
        let single = try LedgerFixture()
        streamed.ledger.entitlementCacheBudget = budget
        let receipts = try Self.receipts(streamed)
        try streamed.ledger.importStream(count: receipts.count, batchSize: 3, operatorName: "mei", item: { index in
            PurchaseLedger.ImportItem(bytes: receipts[index].bytes, customer: receipts[index].customer, source: "test")
        }, report: { index, outcome in #expect((try? outcome.get()) != nil, "receipt \(index)") })
        #expect(streamed.ledger.entitlementCacheHits >= (budget > 1_000 ? 20 : 1), "customers refreshed again in later batches were read back")
        for receipt in receipts {
            _ = try single.ledger.importArtefact(receipt.bytes, customer: receipt.customer, source: "test", operatorName: "mei")
        }
        let rows = try Self.entitlementRows(streamed.database)
        #expect(rows.count > 60)
        #expect(rows == (try Self.entitlementRows(single.database)))
        // Only customer-3's newest receipt (27) says build 41, though receipts of 41 came earlier
        // for the others: the facts follow the newest receipt from batch to batch.
        let legacy = try streamed.database.query("SELECT customer_id FROM entitlements WHERE source = 'legacy-paid'", [])
        #expect(legacy.map { $0.string("customer_id") } == ["customer-3"])
    }

    /// A batch's calculations run side by side on the machine's cores (`entitlementRows`): each
    /// customer gets, in order, exactly the rows one thread working through them would give.
    @Test func calculationsSpreadOverThreadsGiveWhatOneThreadGives() throws {
        let f = try LedgerFixture()
        for receipt in try Self.receipts(f) {
            _ = try f.ledger.importArtefact(receipt.bytes, customer: receipt.customer, source: "test", operatorName: "mei")
        }
        let inputs = try (0..<4).map { try f.ledger.entitlementInput("customer-\($0)") }
        let start = try #require(RFC3339.parse("2025-05-01T00:00:00Z"))
        // 200 calculations: each customer at dates across the purchases' lives (some granting, some expired).
        let work = (0..<200).map { index in (inputs[index % 4], start.addingTimeInterval(Double(index) * 43_200)) }
        let spread = PurchaseLedger.entitlementRows(work, configuration: f.ledger.configuration)
        let alone = work.map { PurchaseLedger.rows(of: EntitlementCalculator.compute($0.0, configuration: f.ledger.configuration, now: $0.1)) }
        #expect(spread == alone)
        #expect(Set(spread.map(\.count)).count > 1, "the calculations differ from one another")
    }

    /// Two production receipts for customer-3, then two from the sandbox.
    static func productionThenSandbox(_ f: LedgerFixture) throws -> [PurchaseLedger.ImportItem] {
        try (0..<4).map { index in
            PurchaseLedger.ImportItem(bytes: try f.receipt([LedgerFixture.purchase(String(21_000 + index), bought: "2025-05-0\(index + 1)T00:00:00Z")],
                                                           type: index < 2 ? "Production" : "ProductionSandbox",
                                                           created: "2025-05-1\(index)T00:00:00Z"),
                                      customer: "customer-3", source: "test")
        }
    }

    /// customer-3's stored entitlement rows are the ones computed from the database afresh, and
    /// the two sandbox purchases grant (the customer became a tester after the first two).
    static func expectTesterRows(_ f: LedgerFixture) throws {
        let recomputed = try f.ledger.entitlements("customer-3", now: f.now)
            .flatMap { state in state.sources.map { EntitlementRow(state, $0) } }
        let stored = try EntitlementRowWriter(database: f.database, customerId: "customer-3", now: f.now).storedRows()
        #expect(Set(stored.map(\.key)) == Set(recomputed.map(\.key)))
        for row in recomputed { #expect(stored.first { $0.key == row.key } == row, "\(row.key)") }
        #expect(stored.filter { $0.flags.contains("sandbox") && $0.active }.count == 2, "sandbox purchases grant for a tester")
    }

    @Test func aChangeThroughAnotherConnectionBetweenBatchesIsSeen() throws {
        let f = try LedgerFixture()
        let receipts = try Self.productionThenSandbox(f)
        let other = try SQLiteDatabase(path: f.path)
        let otherLedger = PurchaseLedger(database: other, configuration: LedgerFixture.configuration, verifier: f.ledger.verifier,
                                         clock: { f.now })
        try f.ledger.importStream(count: receipts.count, batchSize: 2, operatorName: "mei", item: { receipts[$0] }, report: { index, _ in
            // After the first batch another operator marks the customer a tester: the sandbox
            // purchases of the second batch grant, which its refresh must know.
            if index == 1 { _ = try otherLedger.addCustomer("customer-3", isTester: true, operatorName: "ana") }
        })
        try Self.expectTesterRows(f)
    }

    @Test func aChangeThroughTheSameLedgerBetweenBatchesIsSeen() throws {
        let f = try LedgerFixture()
        let receipts = try Self.productionThenSandbox(f)
        // The same connection: SQLite's data_version does not move; its change count does.
        try f.ledger.importStream(count: receipts.count, batchSize: 2, operatorName: "mei", item: { receipts[$0] }, report: { index, _ in
            if index == 1 { _ = try f.ledger.addCustomer("customer-3", isTester: true, operatorName: "ana") }
        })
        try Self.expectTesterRows(f)
    }

    @Test func aChangeThroughTheSameLedgerBetweenStreamsIsSeen() throws {
        let f = try LedgerFixture()
        let receipts = try Self.productionThenSandbox(f)
        try f.ledger.importStream(count: 2, batchSize: 2, operatorName: "mei", item: { receipts[$0] }, report: { _, _ in })
        _ = try f.ledger.addCustomer("customer-3", isTester: true, operatorName: "ana")
        try f.ledger.importStream(count: 2, batchSize: 2, operatorName: "mei", item: { receipts[2 + $0] }, report: { _, _ in })
        try Self.expectTesterRows(f)
    }

    @Test func aBatchThatFailsHalfwayIsNotRemembered() throws {
        let streamed = try LedgerFixture()
        let single = try LedgerFixture()
        let receipts = try Self.receipts(streamed)
        // A trigger stands in for any failure after an item's first write: the batch runs again
        // with a savepoint per item, the refused item fails alone.
        for database in [streamed.database, single.database] {
            try database.execute("""
                CREATE TRIGGER refuse_one BEFORE INSERT ON transactions WHEN NEW.transaction_id = '20031'
                BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                """, [])
        }
        var failed: [Int] = []
        try streamed.ledger.importStream(count: receipts.count, batchSize: 3, operatorName: "mei", item: { index in
            PurchaseLedger.ImportItem(bytes: receipts[index].bytes, customer: receipts[index].customer, source: "test")
        }, report: { index, outcome in if (try? outcome.get()) == nil { failed.append(index) } })
        #expect(failed == [10])
        for receipt in receipts {
            _ = try? single.ledger.importArtefact(receipt.bytes, customer: receipt.customer, source: "test", operatorName: "mei")
        }
        #expect(try Self.entitlementRows(streamed.database) == (try Self.entitlementRows(single.database)))
    }
}
