import Foundation
@testable import PurchaseStore
import ReceiptCore
import Testing

/// SQLite: a batch import adds its new customers' search entries in one statement at its end
/// (migration 0023, `SearchEntryDeferral`), and every customer is found as before; two batches
/// at once, on both backends, create and enter each customer once.
@Suite("Customer search entries added per batch")
struct SearchEntryDeferralTests {
    struct Failed: Error {}

    /// The customers whose search entry matches `fragment`, by id.
    static func found(_ f: LedgerFixture, _ fragment: String) throws -> [String] {
        try f.database.query("""
            SELECT customer_id FROM customers WHERE rowid IN (SELECT rowid FROM customer_search WHERE customer_search MATCH ?) ORDER BY customer_id
            """, [.text("\"\(fragment)\"")]).compactMap { $0.string("customer_id") }
    }

    @Test func aStreamedImportFindsEveryNewCustomerAndLeavesNoFlag() throws {
        let f = try LedgerFixture()
        try f.ledger.addCustomer("early-bird", isTester: false, contact: CustomerContact(displayName: "Ada Müller"), operatorName: "mei")
        let items: [PurchaseLedger.ImportItem] = try (0..<23).map { index in
            let purchases = [LedgerFixture.purchase(String(40_000 + index), "com.example.coins.100", expires: nil, type: 1)]
            return .init(bytes: try f.receipt(purchases), customer: "shopper-\(index % 11)", source: "stream")
        }
        var failures = 0
        try f.ledger.importStream(count: items.count, batchSize: 5, operatorName: "mei", item: { items[$0] },
                                  report: { _, outcome in if (try? outcome.get()) == nil { failures += 1 } })
        #expect(failures == 0)
        #expect(try f.count("SELECT count(*) AS n FROM customers") == 12)
        #expect(try f.count("SELECT count(*) AS n FROM customer_search") == 12, "one entry per customer, none twice")
        #expect(try f.count("SELECT count(*) AS n FROM search_entries_deferred") == 0)
        #expect(try Self.found(f, "shopper") == (0..<11).map { "shopper-\($0)" }.sorted())
        #expect(try Self.found(f, "müller") == ["early-bird"])
        try f.database.execute("INSERT INTO customer_search (customer_search) VALUES ('integrity-check')", [])
        // After the batches, a customer added alone is entered by the trigger, at once.
        try f.ledger.addCustomer("late-comer", isTester: false, operatorName: "mei")
        #expect(try Self.found(f, "late-com") == ["late-comer"])
    }

    /// Two operators importing batches at the same moment, each creating customers (one of them
    /// the same customer for both) and so each reading the customers' largest rowid before it
    /// writes: every customer is created once and has one search entry, every round, on both
    /// backends (on PostgreSQL the search is an index and nothing is deferred).
    @Test(arguments: TestBackend.available)
    func twoBatchesCreatingCustomersAtOnceEnterEachOnce(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let race = try TwoWritersRace(f)
        for round in 0..<50 {
            let items = try (0..<2).map { worker in
                try (0..<2).map { position in
                    let purchases = [LedgerFixture.purchase("race-\(round)-\(worker)-\(position)", "com.example.coins.100", expires: nil, type: 1)]
                    let customer = position == 0 ? "shared-\(round)" : "own-\(round)-\(worker)"
                    return PurchaseLedger.ImportItem(bytes: try f.receipt(purchases), customer: customer, source: "race")
                }
            }
            let outcomes = race.atOnce { ledger, worker in
                for outcome in try ledger.importBatch(items[worker], operatorName: "op\(worker)") { _ = try outcome.get() }
            }
            #expect(outcomes == ["done", "done"], "round \(round): \(outcomes)")
        }
        #expect(try f.count("SELECT count(*) AS n FROM customers") == 150)
        if backend == .sqlite {
            #expect(try f.count("SELECT count(*) AS n FROM customer_search") == 150, "one entry per customer, none twice")
            #expect(try f.count("SELECT count(*) AS n FROM customers WHERE rowid NOT IN (SELECT rowid FROM customer_search)") == 0)
            #expect(try f.count("SELECT count(*) AS n FROM search_entries_deferred") == 0)
            try f.database.execute("INSERT INTO customer_search (customer_search) VALUES ('integrity-check')", [])
        }
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    @Test func whileDeferringTheTriggerStandsAsideAndTheEndAddsEachNewCustomerOnce() throws {
        let f = try LedgerFixture()
        try f.ledger.addCustomer("before", isTester: false, operatorName: "mei")
        try f.database.writeTransaction {
            let deferral = try #require(try SearchEntryDeferral.begin(f.database))
            let insert = "INSERT INTO customers (customer_id, is_tester, created_at, updated_at) VALUES (?, 0, '2025-06-01T00:00:00Z', '2025-06-01T00:00:00Z')"
            try f.database.execute(insert, [.text("quiet-one")])
            try f.database.execute(insert, [.text("renamed-one")])
            #expect(try Self.found(f, "quiet") == [], "no entry while the batch runs")
            // A change of name re-enters a customer through the update trigger; the end must not
            // enter it twice.
            try f.database.execute("UPDATE customers SET display_name = 'Zoë Quayle' WHERE customer_id = 'renamed-one'", [])
            try deferral.end()
        }
        #expect(try Self.found(f, "quiet") == ["quiet-one"])
        #expect(try Self.found(f, "quayle") == ["renamed-one"])
        #expect(try f.count("SELECT count(*) AS n FROM customer_search") == 3)
        #expect(try f.count("SELECT count(*) AS n FROM search_entries_deferred") == 0)
        try f.database.execute("INSERT INTO customer_search (customer_search) VALUES ('integrity-check')", [])
    }

    @Test func aBatchThatFailsTakesTheFlagAlongAndTheTriggerWorksAgain() throws {
        let f = try LedgerFixture()
        #expect(throws: Failed.self) {
            try f.database.writeTransaction {
                _ = try SearchEntryDeferral.begin(f.database)
                try f.database.execute("INSERT INTO customers (customer_id, is_tester, created_at, updated_at) VALUES ('gone', 0, 'x', 'x')", [])
                throw Failed()
            }
        }
        #expect(try f.count("SELECT count(*) AS n FROM search_entries_deferred") == 0)
        #expect(try f.count("SELECT count(*) AS n FROM customers") == 0)
        try f.ledger.addCustomer("after-failure", isTester: false, operatorName: "mei")
        #expect(try Self.found(f, "after-fail") == ["after-failure"])
    }
}
