import Foundation
@testable import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// The pipelined batch import on PostgreSQL (`applyPipelinedBatch`): the same database as the
/// same imports one by one, a failing item failing alone, racing importers, and a batch's cost
/// in round trips.
@Suite("PostgreSQL batch import, read ahead and pipelined", .enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
struct PostgresBatchImportTests {
    /// A mix the ledger treats in every way: new customers and known ones, an order bound
    /// explicitly and one by being the single pending order, a receipt seen twice in the batch,
    /// someone else's transactions (conflicts), a sandbox receipt, a repeat of earlier transactions.
    static func items(_ f: BackendLedgerFixture) throws -> [PurchaseLedger.ImportItem] {
        var items: [PurchaseLedger.ImportItem] = []
        for index in 0..<12 {
            let id = String(24_000 + index * 2)
            let purchases = [LedgerFixture.purchase(id, bought: "2025-05-0\(1 + index % 9)T00:00:00Z", expires: "2025-07-01T00:00:00Z"),
                             LedgerFixture.purchase(String(24_001 + index * 2), "com.example.coins.100", expires: nil, type: 1)]
            items.append(.init(bytes: try f.receipt(purchases, created: "2025-05-\(10 + index)T00:00:00Z"), customer: "customer-\(index % 4)",
                               source: "r\(index)"))
        }
        items.append(items[3])  // the same receipt again inside the batch
        items.append(.init(bytes: items[5].bytes, customer: "customer-9", source: "claim"))  // someone else's: conflicts
        items.append(.init(bytes: try f.receipt([LedgerFixture.purchase("24100", "com.example.pro.lifetime", expires: nil, type: 0)],
                                                created: "2025-05-20T00:00:00Z"),
                           customer: "customer-1", orderId: "order-explicit", source: "explicit"))
        items.append(.init(bytes: try f.receipt([LedgerFixture.purchase("24101", "com.example.pro.lifetime", bought: "2025-06-01T12:00:00Z",
                                                                        expires: nil, type: 0)], created: "2025-05-26T00:00:00Z"),
                           customer: "customer-2", source: "pending"))
        items.append(.init(bytes: try f.receipt([LedgerFixture.purchase("24102", "com.example.coins.100", expires: nil, type: 1)],
                                                type: "ProductionSandbox", created: "2025-05-27T00:00:00Z"),
                           customer: "customer-3", source: "sandbox"))
        items.append(.init(bytes: try f.receipt([LedgerFixture.purchase("23000", "com.example.coins.100", expires: nil, type: 1)],
                                                created: "2025-05-28T00:00:00Z"),
                           customer: "customer-0", source: "repeat"))
        return items
    }

    /// What both databases hold before the batch: a known customer with a transaction, and orders.
    static func seed(_ f: BackendLedgerFixture) throws {
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("23000", "com.example.coins.100", expires: nil, type: 1)],
                                                      created: "2025-04-01T00:00:00Z"),
                                        customer: "customer-0", source: "seed", operatorName: "mei")
        try f.ledger.addCustomer("customer-1", isTester: false, operatorName: "mei")
        try f.ledger.addCustomer("customer-2", isTester: false, operatorName: "mei")
        _ = try f.ledger.createOrder("order-explicit", customer: "customer-1", product: "com.example.pro.lifetime", operatorName: "mei")
        _ = try f.ledger.createOrder("order-pending", customer: "customer-2", product: "com.example.pro.lifetime", operatorName: "mei")
    }

    @Test func aBatchGivesTheSameDatabaseAsTheSameImportsOneByOne() throws {
        let batched = try BackendLedgerFixture(.postgres)
        let single = try BackendLedgerFixture(.postgres)
        try Self.seed(batched)
        try Self.seed(single)
        let items = try Self.items(batched)
        let postgres = try #require(batched.database as? PostgresDatabase)
        let before = postgres.roundTrips
        let results = try batched.ledger.importBatch(items, operatorName: "mei")
        // (Each conflict still costs its reads and insert: a handful here, among 16 items.)
        #expect(postgres.roundTrips - before < 20, "read ahead and pipelined, not one round trip per statement")
        var expected: [String] = []
        for item in items {
            let result = Result { try single.ledger.importArtefact(item.bytes, customer: item.customer, orderId: item.orderId, source: item.source,
                                                                   operatorName: "mei") }
            expected.append(Self.describe(result))
        }
        #expect(results.map(Self.describe) == expected)
        // Every table but the migrations' own record (when each database was set up).
        #expect(try BackendDump.text(batched.database, excluding: ["schema_migrations"])
                == BackendDump.text(single.database, excluding: ["schema_migrations"]))
        #expect(try AuditLog.verify(batched.database).isIntact)
        #expect(try batched.count("SELECT count(*) AS n FROM orders WHERE transaction_id IS NOT NULL") == 2, "both orders bound")
    }

    /// A result as text, for comparing the batch's with the one-by-one imports'.
    static func describe(_ result: Result<ImportResult, Error>) -> String {
        switch result {
        case .success(let r): return "\(r.receiptId ?? -1) \(r.changedDatabase) \(r.transactions) \(r.notes)"
        case .failure(let error): return "failed: \(error)"
        }
    }

    @Test func aFailingItemFailsAloneWithItsErrorAndTheOthersCommit() throws {
        let f = try BackendLedgerFixture(.postgres)
        // A trigger stands in for any failure after the item's first write: the batch's writes are
        // sent together, so it fails the whole pipelined batch, which runs again item by item.
        try f.database.execute("""
            CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $body$
            BEGIN IF NEW.transaction_id = '25002' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $body$
            """, [])
        try f.database.execute("CREATE TRIGGER refuse_boom BEFORE INSERT ON transactions FOR EACH ROW EXECUTE FUNCTION refuse_boom()", [])
        let coins = { (id: String) in LedgerFixture.purchase(id, "com.example.coins.100", expires: nil, type: 1) }
        let items: [PurchaseLedger.ImportItem] = [
            .init(bytes: try f.receipt([coins("25001")]), customer: "alice", source: "a"),
            .init(bytes: try f.receipt([coins("25003"), coins("25002")], created: "2025-05-02T00:00:00Z"), customer: "bob", source: "b"),
            .init(bytes: try f.receipt([coins("25004")], created: "2025-05-03T00:00:00Z"), customer: "carol", orderId: "no-such-order", source: "c"),
            .init(bytes: try f.receipt([coins("25005")], created: "2025-05-04T00:00:00Z"), customer: "dave", source: "d"),
        ]
        let results = try f.ledger.importBatch(items, operatorName: "mei")
        #expect((try? results[0].get())?.changedDatabase == true)
        #expect("\(results[1])".contains("refused by the test"), "bob's item reports its own error: \(results[1])")
        #expect("\(results[2])".contains("order no-such-order not found"), "\(results[2])")
        #expect((try? results[3].get())?.changedDatabase == true)
        #expect(try f.count("SELECT count(*) AS n FROM transactions") == 2)
        #expect(try f.count("SELECT count(*) AS n FROM customers WHERE customer_id IN ('bob', 'carol')") == 0, "nothing of the failed items")
        #expect(try f.count("SELECT count(*) AS n FROM receipts") == 2)
        #expect(try f.count("SELECT count(*) AS n FROM audit_log WHERE action = 'import'") == 2)
        #expect(try AuditLog.verify(f.database).isIntact)
        #expect(try f.count("SELECT count(*) AS n FROM entitlements WHERE customer_id IN ('alice', 'dave')") == 2)
    }

    @Test func twoBatchedImportersOnOverlappingCustomersNeverCountATransactionTwice() async throws {
        let f = try BackendLedgerFixture(.postgres)
        // Two importers, each with every receipt, each in its own order and giving customers of
        // its own and shared ones: every transaction is recorded once, the rest are conflicts or duplicates.
        let receipts = try (0..<40).map { index in
            try f.receipt([LedgerFixture.purchase("26\(index)a", "com.example.coins.100", expires: nil, type: 1),
                           LedgerFixture.purchase("26\(index)b", "com.example.pro.lifetime", expires: nil, type: 0)],
                          created: "2025-05-01T00:00:\(String(format: "%02d", index % 60))Z")
        }
        let location = f.scratch.location
        let (trust, configuration, now) = (f.trust, f.configuration, f.now)
        let failures = Outcomes()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let finished = Outcomes()
            for worker in 0..<2 {
                Thread.detachNewThread {
                    do {
                        let ledger = PurchaseLedger(database: try PurchaseDatabase.open(location), configuration: configuration,
                                                    verifier: ReceiptVerifier(trust: trust, expectedBundleIds: Set(configuration.bundleIds)),
                                                    clock: { now })
                        let order = worker == 0 ? Array(0..<40) : Array((0..<40).reversed())
                        try ledger.importStream(count: order.count, batchSize: 10, operatorName: "op\(worker)", item: { step in
                            let index = order[step]
                            return .init(bytes: receipts[index], customer: "shared-\(index % 7)" + (index % 3 == 0 ? "-w\(worker)" : ""),
                                         source: "w\(worker)")
                        }, report: { index, outcome in
                            if case .failure(let error) = outcome { failures.add("receipt \(order[index]): \(error)") }
                        })
                    } catch {
                        failures.add("importer \(worker): \(error)")
                    }
                    if finished.addCounting("importer \(worker)") == 2 { done.resume() }
                }
            }
        }
        #expect(failures.values.isEmpty, "\(failures.values)")
        #expect(try f.count("SELECT count(*) AS n FROM transactions") == 80)
        #expect(try f.count("SELECT count(*) AS n FROM (SELECT transaction_id FROM conflicts GROUP BY transaction_id, claimant_customer_id HAVING count(*) > 1) AS twice") == 0)
        #expect(try f.count("""
            SELECT count(*) AS n FROM (SELECT customer_id FROM entitlements
            GROUP BY customer_id, entitlement, source, coalesce(transaction_id, ''), coalesce(grant_id, 0) HAVING count(*) > 1) AS twice
            """) == 0)
        #expect(try AuditLog.verify(f.database).isIntact)
        // Each customer's stored entitlements are what a fresh computation gives.
        for customer in try f.database.query("SELECT customer_id FROM customers", []).compactMap({ $0.string("customer_id") }) {
            let stored = try f.count("SELECT count(*) AS n FROM entitlements WHERE customer_id = ?", [.text(customer)])
            let computed = try f.ledger.entitlements(customer, now: now).reduce(0) { $0 + $1.sources.count }
            #expect(stored == Int64(computed), "\(customer)")
        }
    }

    @Test func aBatchCostsAHandfulOfRoundTrips() throws {
        let f = try BackendLedgerFixture(.postgres)
        let postgres = try #require(f.database as? PostgresDatabase)
        func batch(_ first: Int) throws -> [PurchaseLedger.ImportItem] {
            try (first..<(first + 20)).map { index in
                .init(bytes: try f.receipt([LedgerFixture.purchase("27\(index)a"),
                                            LedgerFixture.purchase("27\(index)b", "com.example.coins.100", expires: nil, type: 1)],
                                           created: "2025-05-01T00:\(String(format: "%02d", index % 60)):00Z"),
                      customer: "customer-\(index)", source: "r\(index)")
            }
        }
        _ = try f.ledger.importBatch(try batch(0), operatorName: "mei")  // the session prepares its statements
        let (trips, statements) = (postgres.roundTrips, postgres.statementsSent)
        let results = try f.ledger.importBatch(try batch(20), operatorName: "mei")
        #expect(results.allSatisfy { (try? $0.get())?.changedDatabase == true })
        // BEGIN; the locks and reads ahead; the audit lock and head; the writes and COMMIT.
        #expect(postgres.roundTrips - trips <= 4, "\(postgres.roundTrips - trips) round trips")
        // Each table's rows as a few multi-row inserts (29 statements today; 155 one row each).
        #expect(postgres.statementsSent - statements < 40, "\(postgres.statementsSent - statements) statements")
        // The read-ahead is planned with its arrays each time, never kept as a generic plan (one
        // settled on small tables scanned them whole as they grew).
        _ = try f.ledger.importBatch(try batch(40), operatorName: "mei")
        let kept = try postgres.query("SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%= ANY(%'", [])
        #expect(kept.isEmpty, "\(kept.compactMap { $0.string("statement") })")
    }

    /// A fresh ledger's tables have no statistics until autovacuum analyses them; without them
    /// the planner took a batch's customers for half of each table and scanned it whole, so each
    /// batch of a large first import read every row imported before it.
    @Test func theReadAheadGoesThroughIndexesOnTablesWithoutStatistics() throws {
        let f = try BackendLedgerFixture(.postgres)
        let postgres = try #require(f.database as? PostgresDatabase)
        func items(_ range: Range<Int>) throws -> [PurchaseLedger.ImportItem] {
            try range.map { index in
                .init(bytes: try f.receipt([LedgerFixture.purchase("29\(index)a"), LedgerFixture.purchase("29\(index)b")],
                                           created: "2025-05-01T00:\(String(format: "%02d", index % 60)):00Z"),
                      customer: "customer-\(index % 40)", source: "r\(index)")
            }
        }
        _ = try f.ledger.importBatch(try items(0..<120), operatorName: "mei")
        let analysed = try postgres.queryFirst("""
            SELECT count(*) AS n FROM pg_stat_user_tables WHERE schemaname = current_schema() AND last_autoanalyze IS NOT NULL
            """, [])?.int("n") ?? 0
        let prepared = try items(120..<150).map { item in
            try f.ledger.prepareImport(item.bytes, customer: item.customer, orderId: nil, applicationUsername: nil, source: item.source, operatorName: "mei")
        }
        let scans = try postgres.writeTransaction { () -> [String: Int64] in
            // This session's own counts (not yet reported to the server's totals, so nothing
            // else on the server adds to them), before and after the read-ahead.
            func counts() throws -> [String: Int64] {
                let rows = try postgres.query("SELECT relname, seq_scan FROM pg_stat_xact_user_tables WHERE schemaname = current_schema()", [])
                return Dictionary(uniqueKeysWithValues: rows.compactMap { row in row.string("relname").map { ($0, row.int("seq_scan") ?? 0) } })
            }
            let before = try counts()
            _ = try postgres.prefetchImports(prepared)
            return try counts().merging(before) { after, before in after - before }
        }
        if analysed == 0 {
            for table in ["customers", "receipts", "transactions", "entitlements"] {
                #expect(scans[table] == 0, "\(table): \(scans[table].map(String.init) ?? "not read") sequential scans \(scans)")
            }
        }
        let setting = try postgres.queryFirst("SELECT current_setting('enable_seqscan') AS on", [])?.string("on")
        #expect(setting == "on", "the session's planner setting is its own again after the read-ahead")
    }

    /// The migrations leave a new ledger's customers unanalyzed (statistics of the empty
    /// table made the session's cached plans scan customers whole as the import grew it: seven
    /// scans of the table per receipt, the server's CPU per transaction more than doubled);
    /// a whole import in one session then reads customers by key only.
    @Test func aFirstImportReadsCustomersByKeyOnly() throws {
        let f = try BackendLedgerFixture(.postgres)
        let postgres = try #require(f.database as? PostgresDatabase)
        let reltuples = try postgres.queryFirst("SELECT reltuples::int8 AS n FROM pg_class WHERE oid = 'customers'::regclass", [])?.int("n")
        #expect(reltuples == -1, "never analyzed, not analyzed empty")
        let items = try (0..<90).map { index in
            PurchaseLedger.ImportItem(bytes: try f.receipt([LedgerFixture.purchase("27\(index)a")], created: "2025-05-01T00:\(String(format: "%02d", index % 60)):00Z"),
                                      customer: "customer-\(index % 30)", source: "r\(index)")
        }
        for start in stride(from: 0, to: items.count, by: 10) { _ = try f.ledger.importBatch(Array(items[start..<start + 10]), operatorName: "mei") }
        // This session's counts, flushed to the server's totals now rather than within a second.
        _ = try postgres.queryFirst("SELECT pg_stat_force_next_flush()", [])
        _ = try postgres.queryFirst("SELECT pg_stat_clear_snapshot()", [])
        let scans = try postgres.queryFirst("""
            SELECT seq_tup_read, idx_scan FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = 'customers'
            """, [])
        // (A scan of the empty table while the schema is made reads no row.)
        let (read, byKey) = (scans?.int("seq_tup_read") ?? -1, scans?.int("idx_scan") ?? 0)
        #expect(read == 0 && byKey >= 90, "customers: \(read) rows read by sequential scans, \(byKey) index scans")
    }

    @Test func storedReceiptsAreCompressedWithLZ4WhereTheServerHasIt() throws {
        let f = try BackendLedgerFixture(.postgres)
        let postgres = try #require(f.database as? PostgresDatabase)
        let offered = try postgres.queryFirst("""
            SELECT count(*) AS n FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)
            """, [])?.int("n") == 1
        let setting = try postgres.queryFirst("SELECT current_setting('default_toast_compression') AS method", [])?.string("method")
        #expect(setting == (offered ? "lz4" : "pglz"))
        // A tree long enough to be compressed (PostgreSQL compresses values over about 2 KB).
        let purchases = (0..<12).map { LedgerFixture.purchase("28\($0)", "com.example.coins.100", expires: nil, type: 1) }
        _ = try f.ledger.importArtefact(try f.receipt(purchases, created: "2025-05-01T00:00:00Z"), customer: "customer-lz4", source: "t", operatorName: "mei")
        let methods = try postgres.query("SELECT pg_column_compression(decoded_json) AS method FROM receipts", []).compactMap { $0.string("method") }
        #expect(!methods.isEmpty && methods.allSatisfy { $0 == (offered ? "lz4" : "pglz") }, "\(methods)")
    }
}
