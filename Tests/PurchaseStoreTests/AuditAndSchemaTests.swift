import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

// Run on every backend (TestBackend.available): SQLite always, PostgreSQL when
// RECEIPTDESK_TEST_POSTGRES_URL names a test server (make test starts one).

@Suite("Audit chain and schema migrations on both backends")
struct AuditAndSchemaTests {
    func populated(_ backend: TestBackend) throws -> BackendLedgerFixture {
        let f = try BackendLedgerFixture(backend)
        for index in 0..<5 {
            try f.ledger.createOrder("ORD-\(index)", customer: "alice", product: "com.example.pro.monthly", operatorName: "mei")
        }
        return f
    }

    @Test(arguments: TestBackend.available) func intactChainVerifies(_ backend: TestBackend) throws {
        let f = try populated(backend)
        let result = try AuditLog.verify(f.database)
        #expect(result.isIntact)
        #expect(result.checked == 5)
    }

    @Test(arguments: TestBackend.available) func editingARowIsCaught(_ backend: TestBackend) throws {
        let f = try populated(backend)
        try f.database.execute("UPDATE audit_log SET details = '{\"customer\":\"mallory\"}' WHERE seq = 3", [])
        #expect(try AuditLog.verify(f.database).problem == "entry 3 was altered: its hash does not match its content")
    }

    @Test(arguments: TestBackend.available) func editingARowAndItsHashIsCaughtByTheNext(_ backend: TestBackend) throws {
        let f = try populated(backend)
        try f.database.execute("UPDATE audit_log SET operator = 'ghost', hash = 'beef' WHERE seq = 2", [])
        let problem = try AuditLog.verify(f.database).problem ?? ""
        #expect(problem.hasPrefix("entry 2 was altered") || problem.hasPrefix("entry 2 or 3 was altered"))
    }

    @Test(arguments: TestBackend.available) func deletingAMiddleRowIsCaught(_ backend: TestBackend) throws {
        let f = try populated(backend)
        try f.database.execute("DELETE FROM audit_log WHERE seq = 4", [])
        #expect(try AuditLog.verify(f.database).problem?.hasPrefix("entry 4 was removed") == true)
    }

    @Test(arguments: TestBackend.available) func deletingTheLastRowIsCaught(_ backend: TestBackend) throws {
        let f = try populated(backend)
        try f.database.execute("DELETE FROM audit_log WHERE seq = 5", [])
        #expect(try AuditLog.verify(f.database).problem?.hasPrefix("entry 5 was removed") == true)
    }

    @Test(arguments: TestBackend.available) func freshDatabaseRecordsItsMigrationsAndReopens(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        #expect(try f.count("SELECT count(*) AS n FROM schema_migrations") == Int64(PurchaseSchema.migrations.count))
        try MigrationRunner.migrate(f.database)
        #expect(try f.count("SELECT count(*) AS n FROM schema_migrations") == Int64(PurchaseSchema.migrations.count))
        let reopened = try PurchaseDatabase.open(f.scratch.location, create: false)
        #expect(reopened.location == f.database.location)
    }

    @Test(arguments: TestBackend.available) func aNewerDatabaseIsRefused(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        try f.database.execute("INSERT INTO schema_migrations (position, name, applied_at) VALUES (?, '9999-from-the-future', '2030-01-01T00:00:00Z')",
                               [.integer(Int64(PurchaseSchema.migrations.count + 1))])
        do {
            _ = try PurchaseDatabase.open(f.scratch.location, create: false)
            Issue.record("a newer database was opened")
        } catch let error as StoreError {
            #expect(error.code == .schemaTooNew)
            #expect(error.reason.contains("newer receiptdesk"))
            #expect(error.reason.contains("9999-from-the-future"))
        }
    }

    @Test(arguments: TestBackend.available) func lookupsUseIndexes(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let postgres = backend == .postgres
        // On tiny tables PostgreSQL's planner prefers a scan; forbidding it shows an index serves each lookup.
        if postgres { try f.database.execute("SET enable_seqscan = off", []) }
        for (sql, parameter) in [
            ("SELECT * FROM transactions WHERE customer_id = ?", "c"), ("SELECT * FROM transactions WHERE transaction_id = ?", "t"),
            ("SELECT * FROM transactions WHERE original_transaction_id = ?", "o"), ("SELECT * FROM orders WHERE order_id = ?", "o"),
            ("SELECT * FROM transactions WHERE product_id = ?", "p"), ("SELECT * FROM orders WHERE customer_id = ?", "c"),
            ("SELECT * FROM receipts WHERE customer_id = ?", "c"), ("SELECT * FROM transactions WHERE order_id = ?", "o"),
            ("SELECT * FROM grants WHERE customer_id = ? AND entitlement = ? AND revoked_at IS NULL", "c"),
            // Through the partial indexes of migration 0022, which hold only rows that have the id.
            ("SELECT * FROM transactions WHERE web_order_line_item_id = ?", "w"), ("SELECT * FROM transactions WHERE app_transaction_id = ?", "a"),
            ("SELECT * FROM receipts WHERE app_transaction_id = ? AND customer_id IS NOT NULL", "a"),
            ("SELECT * FROM transactions WHERE app_account_token IS NOT NULL AND \(f.database.dialect.folded("app_account_token")) = ?", "t"),
        ] {
            let parameters: [SQLValue] = sql.contains("entitlement = ?") ? [.text(parameter), .text("pro")] : [.text(parameter)]
            let plan = try f.database.query((postgres ? "EXPLAIN " : "EXPLAIN QUERY PLAN ") + sql, parameters)
                .compactMap { $0.string(postgres ? "QUERY PLAN" : "detail") }
            if postgres {
                #expect(!plan.isEmpty && plan.allSatisfy { !$0.contains("Seq Scan") }, "\(sql): \(plan)")
            } else {
                #expect(plan.allSatisfy { $0.hasPrefix("SEARCH") }, "\(sql): \(plan)")
            }
        }
    }

    /// Migration 0022: an id a row may lack is indexed only where the row has one, so an import
    /// of rows without it writes no entry there.
    @Test(arguments: TestBackend.available) func optionalIdIndexesHoldOnlyRowsThatHaveTheId(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let partial: [(index: String, column: String)] = [
            ("transactions_by_order", "order_id"), ("transactions_by_folded_token", "app_account_token"),
            ("transactions_by_web_order", "web_order_line_item_id"), ("transactions_by_app_transaction", "app_transaction_id"),
            ("receipts_by_app_transaction", "app_transaction_id"),
        ]
        for (index, column) in partial {
            let definition = try f.database.queryFirst(backend == .postgres
                ? "SELECT indexdef AS sql FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ?"
                : "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", [.text(index)])?.string("sql") ?? ""
            let condition = backend == .postgres ? "WHERE (\(column) IS NOT NULL)" : "WHERE \(column) IS NOT NULL"
            #expect(definition.hasSuffix(condition), "\(index): \(definition)")
        }
    }

    @Test(arguments: TestBackend.available) func severalProcessesOpeningANewDatabaseMigrateItOnce(_ backend: TestBackend) throws {
        let scratch = try ScratchDatabase(backend)
        let location = scratch.location
        let outcomes = Outcomes()
        let group = DispatchGroup()
        for _ in 0..<4 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let database = try PurchaseDatabase.open(location)
                    outcomes.add("opened \(try database.queryFirst("SELECT count(*) AS n FROM schema_migrations", [])?.int("n") ?? -1)")
                } catch {
                    outcomes.add("failed: \(error)")
                }
            }
        }
        group.wait()
        #expect(outcomes.values == Array(repeating: "opened \(PurchaseSchema.migrations.count)", count: 4))
    }

    @Test func aFileThatIsNotADatabaseIsRefused() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-db-\(UUID().uuidString)").path
        try Data("hello, this is not sqlite".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }  // cleanup only
        #expect(throws: StoreError.self) { _ = try PurchaseDatabase.open(path) }
    }
}
