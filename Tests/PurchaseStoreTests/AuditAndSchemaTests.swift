import Foundation
import PurchaseStore
import ReceiptCore
import Testing

@Suite("Audit chain and schema migrations")
struct AuditAndSchemaTests {
    func populated() throws -> LedgerFixture {
        let f = try LedgerFixture()
        for index in 0..<5 {
            try f.ledger.createOrder("ORD-\(index)", customer: "alice", product: "com.example.pro.monthly", operatorName: "mei")
        }
        return f
    }

    @Test func intactChainVerifies() throws {
        let f = try populated()
        let result = try AuditLog.verify(f.database)
        #expect(result.isIntact)
        #expect(result.checked == 5)
    }

    @Test func editingARowIsCaught() throws {
        let f = try populated()
        try f.database.execute("UPDATE audit_log SET details = '{\"customer\":\"mallory\"}' WHERE seq = 3", [])
        #expect(try AuditLog.verify(f.database).problem == "entry 3 was altered: its hash does not match its content")
    }

    @Test func editingARowAndItsHashIsCaughtByTheNext() throws {
        let f = try populated()
        try f.database.execute("UPDATE audit_log SET operator = 'ghost', hash = 'beef' WHERE seq = 2", [])
        let problem = try AuditLog.verify(f.database).problem ?? ""
        #expect(problem.hasPrefix("entry 2 was altered") || problem.hasPrefix("entry 2 or 3 was altered"))
    }

    @Test func deletingAMiddleRowIsCaught() throws {
        let f = try populated()
        try f.database.execute("DELETE FROM audit_log WHERE seq = 4", [])
        #expect(try AuditLog.verify(f.database).problem?.hasPrefix("entry 4 was removed") == true)
    }

    @Test func deletingTheLastRowIsCaught() throws {
        let f = try populated()
        try f.database.execute("DELETE FROM audit_log WHERE seq = 5", [])
        #expect(try AuditLog.verify(f.database).problem?.hasPrefix("entry 5 was removed") == true)
    }

    @Test func freshDatabaseRecordsItsMigrationsAndReopens() throws {
        let f = try LedgerFixture()
        #expect(try f.count("SELECT count(*) AS n FROM schema_migrations") == Int64(PurchaseSchema.migrations.count))
        try MigrationRunner.migrate(f.database)
        #expect(try f.count("SELECT count(*) AS n FROM schema_migrations") == Int64(PurchaseSchema.migrations.count))
        let reopened = try PurchaseDatabase.open(f.path, create: false)
        #expect(reopened.location == f.path)
    }

    @Test func aNewerDatabaseIsRefused() throws {
        let f = try LedgerFixture()
        try f.database.execute("INSERT INTO schema_migrations (position, name, applied_at) VALUES (?, '9999-from-the-future', '2030-01-01T00:00:00Z')",
                               [.integer(Int64(PurchaseSchema.migrations.count + 1))])
        do {
            _ = try PurchaseDatabase.open(f.path, create: false)
            Issue.record("a newer database was opened")
        } catch let error as StoreError {
            #expect(error.code == .schemaTooNew)
            #expect(error.reason.contains("newer receiptdesk"))
            #expect(error.reason.contains("9999-from-the-future"))
        }
    }

    @Test func aFileThatIsNotADatabaseIsRefused() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-db-\(UUID().uuidString)").path
        try Data("hello, this is not sqlite".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }  // cleanup only
        #expect(throws: StoreError.self) { _ = try PurchaseDatabase.open(path) }
    }

    @Test func lookupsUseIndexes() throws {
        let f = try LedgerFixture()
        for (sql, parameter) in [
            ("SELECT * FROM transactions WHERE customer_id = ?", "c"), ("SELECT * FROM transactions WHERE transaction_id = ?", "t"),
            ("SELECT * FROM transactions WHERE original_transaction_id = ?", "o"), ("SELECT * FROM orders WHERE order_id = ?", "o"),
            ("SELECT * FROM transactions WHERE product_id = ?", "p"), ("SELECT * FROM orders WHERE customer_id = ?", "c"),
            ("SELECT * FROM receipts WHERE customer_id = ?", "c"), ("SELECT * FROM transactions WHERE order_id = ?", "o"),
        ] {
            let plan = try f.database.query("EXPLAIN QUERY PLAN " + sql, [.text(parameter)]).compactMap { $0.string("detail") }
            #expect(plan.allSatisfy { $0.hasPrefix("SEARCH") }, "\(sql): \(plan)")
        }
    }
}
