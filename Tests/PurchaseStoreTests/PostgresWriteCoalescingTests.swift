import Foundation
@testable import PurchaseStore
import ReceiptCore
import Testing

/// Combining a batch's single-row inserts into multi-row ones (`WriteCoalescing`): what may move
/// (the plan, without a server), and on PostgreSQL the same database, the same change
/// notifications and far fewer statements than sending each insert alone.
@Suite("PostgreSQL batch writes combined into multi-row inserts")
struct PostgresWriteCoalescingTests {
    typealias Shape = WriteCoalescing.WriteShape

    static let parents: [String: Set<String>] = ["receipts": ["customers"], "transactions": ["customers", "receipts", "orders"],
                                                 "arrivals": ["transactions", "receipts"], "entitlements": ["customers"]]
    static func insert(_ table: String) -> String { "INSERT INTO \(table) (a, b) VALUES (?, 0)" }

    @Test func onlyPlainSingleRowInsertsAreCombinable() {
        #expect(Shape("INSERT INTO receipts (a, b) VALUES (?, ?)") == .insert(table: "receipts", head: "INSERT INTO receipts (a, b)", tuple: "(?, ?)"))
        #expect(Shape("INSERT INTO customers (a) VALUES (?) ON CONFLICT (a) DO NOTHING") == .other)
        #expect(Shape("INSERT INTO receipts (a) VALUES (?) RETURNING a") == .other)
        #expect(Shape("INSERT INTO receipts (a) VALUES (lower(?))") == .other)
        #expect(Shape("INSERT INTO receipts (a) SELECT a FROM other") == .other)
        #expect(Shape("INSERT INTO audit_log (a) VALUES ('x')") == .other)
        #expect(Shape("UPDATE orders SET status = ? WHERE order_id = ?") == .update(table: "orders"))
        #expect(Shape("DELETE FROM entitlements WHERE customer_id = ?") == .delete(table: "entitlements"))
        #expect(Shape("SELECT pg_advisory_xact_lock(1)") == .other)
    }

    @Test func rowsMoveUpToTheirStatementOnlyPastWhatCannotConcernThem() {
        let sql = [
            Self.insert("customers"),                                    // 0
            Self.insert("receipts"),                                     // 1
            Self.insert("transactions"),                                 // 2
            Self.insert("transactions"),                                 // 3 joins 2
            "DELETE FROM entitlements WHERE customer_id = ?",            // 4
            Self.insert("entitlements"),                                 // 5
            Self.insert("customers"),                                    // 6 joins 0: above its children's statements
            Self.insert("receipts"),                                     // 7 joins 1 (past inserts into its children)
            Self.insert("transactions"),                                 // 8 joins 2
            "DELETE FROM entitlements WHERE customer_id = ?",            // 9
            Self.insert("entitlements"),                                 // 10: the delete at 9 may concern it: alone
            "UPDATE transactions SET repeat_arrivals = 1 WHERE x = ?",  // 11: transactions' parents stay below it
            Self.insert("arrivals"),                                     // 12
            Self.insert("receipts"),                                     // 13: a new statement; arrivals may point at it
            Self.insert("arrivals"),                                     // 14: so it stays below 13
            "SELECT pg_advisory_xact_lock(1)",                           // 15: nothing moves above it
            Self.insert("receipts"),                                     // 16
        ].map(Shape.init)
        let plan = WriteCoalescing.plan(sql, parents: Self.parents).map(\.members)
        #expect(plan == [[0, 6], [1, 7], [2, 3, 8], [4], [5], [9], [10], [11], [12], [13], [14], [15], [16]])
        // Every statement once, and each in the order given within its element.
        #expect(plan.flatMap { $0 }.sorted() == Array(0..<sql.count))
    }

    @Test func combinedInsertsComeInAFewSizes() {
        #expect(WriteCoalescing.chunks(300) == [256, 16, 16, 4, 4, 4])
        #expect(WriteCoalescing.chunks(3) == [1, 1, 1])
        #expect(WriteCoalescing.combinedSQL(head: "INSERT INTO t (a)", tuple: "(?)", rows: 3) == "INSERT INTO t (a) VALUES (?), (?), (?)")
    }

    /// 40 receipts of two purchases for 10 customers, a known customer among them.
    static func batch(_ f: BackendLedgerFixture) throws -> [PurchaseLedger.ImportItem] {
        try (0..<40).map { index in
            .init(bytes: try f.receipt([LedgerFixture.purchase("28\(index)a"),
                                        LedgerFixture.purchase("28\(index)b", "com.example.coins.100", expires: nil, type: 1)],
                                       created: "2025-05-01T00:\(String(format: "%02d", index)):00Z"),
                  customer: "customer-\(index % 10)", source: "r\(index)")
        }
    }

    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
    func aCombinedBatchLeavesTheSameDatabaseAndNoticesWithFewerStatements() throws {
        var statements: [Bool: Int] = [:]
        var dumps: [Bool: String] = [:]
        var heard: [Bool: Set<String>] = [:]
        for combined in [false, true] {
            let f = try BackendLedgerFixture(.postgres)
            let postgres = try #require(f.database as? PostgresDatabase)
            postgres.coalescesWrites = combined
            try f.ledger.addCustomer("customer-3", isTester: false, operatorName: "mei")
            let console = try PostgresDatabase(url: f.scratch.location)
            try console.execute("LISTEN changes", [])  // the raw notices, each one (the feed reports confirmed changes only)
            let before = postgres.statementsSent
            let results = try f.ledger.importBatch(try Self.batch(f), operatorName: "mei")
            #expect(results.allSatisfy { (try? $0.get())?.changedDatabase == true })
            statements[combined] = postgres.statementsSent - before
            dumps[combined] = try BackendDump.text(f.database, excluding: ["schema_migrations"])
            #expect(try AuditLog.verify(f.database).isIntact)
            // A change committed after the whole batch: PostgreSQL delivers notifications in commit
            // order, so once its notice is heard every notice of the batch has been heard too
            // (stopping at the batch's own notices left some of its audit entries unheard, at random).
            try f.ledger.addCustomer("after-the-batch", isTester: false, operatorName: "mei")
            let head = try #require(try f.database.queryFirst("SELECT seq FROM audit_head", [])?.int("seq"))
            let schema = try #require(try f.database.queryFirst("SELECT current_schema() AS s", [])?.string("s"))
            let last = "\(schema).audit_log:\(head)"
            var seen: Set<String> = []
            let deadline = Date().addingTimeInterval(60)  // a safety net, never the pass condition
            while !seen.contains(last), Date() < deadline {  // a quiet second is no reason to stop
                _ = try console.connection.awaitInput(timeout: 1)
                seen.formUnion(console.connection.takeNotifications().filter { $0.channel == "changes" && $0.payload.hasPrefix(schema + ".") }.map { $0.payload })
            }
            #expect(seen.contains(last), "the change after the batch was not heard")
            // Every table the batch wrote is announced (by name only: notices name no row).
            let tables = Set(seen.filter { !$0.contains(".audit_log") }.compactMap { $0.split(separator: ".").last.map(String.init) })
            let expected: Set<String> = ["customers", "receipts", "transactions", "entitlements"]
            #expect(expected.isSubset(of: tables), "not heard: \(expected.subtracting(tables).sorted())")
            heard[combined] = tables
        }
        #expect(dumps[true] == dumps[false])
        #expect(heard[true] == heard[false])
        let (alone, combined) = (statements[false] ?? 0, statements[true] ?? 0)
        #expect(combined * 3 < alone, "\(combined) statements combined, \(alone) alone")
    }
}
