import Foundation
import PurchaseStore
import ReceiptCore
import Testing

/// A batch runs its items without savepoints on SQLite (the write transaction is exclusive); an
/// item that fails halfway through its writes makes the batch run again with a savepoint per item,
/// so the outcome is the same as if every item had had its own.
@Suite("Batch import: an item failing halfway through its writes")
struct ImportBatchWriteFailureTests {
    @Test func theFailingItemLeavesNoTraceAndTheOthersApply() throws {
        let f = try LedgerFixture()
        // A trigger stands in for any failure after the item's first write (its receipt row).
        try f.database.execute("""
            CREATE TRIGGER refuse_boom BEFORE INSERT ON transactions WHEN NEW.transaction_id = '13002'
            BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
            """, [])
        let items = [
            PurchaseLedger.ImportItem(bytes: try f.receipt([LedgerFixture.purchase("13001")]), customer: "alice", source: "batch"),
            PurchaseLedger.ImportItem(bytes: try f.receipt([LedgerFixture.purchase("13003", "com.example.coins.100", expires: nil, type: 1),
                                                            LedgerFixture.purchase("13002", "com.example.coins.100", expires: nil, type: 1)],
                                                           created: "2025-05-02T00:00:00Z"),
                                      customer: "bob", source: "batch"),
            PurchaseLedger.ImportItem(bytes: try f.receipt([LedgerFixture.purchase("13004", "com.example.coins.100", expires: nil, type: 1)],
                                                           created: "2025-05-03T00:00:00Z"),
                                      customer: "carol", source: "batch"),
        ]
        let results = try f.ledger.importBatch(items, operatorName: "mei")
        #expect(results.count == 3)
        #expect((try? results[0].get())?.changedDatabase == true)
        #expect((try? results[1].get()) == nil, "the refused item fails")
        #expect((try? results[2].get())?.changedDatabase == true)
        #expect(try f.count("SELECT count(*) AS n FROM transactions") == 2)
        #expect(try f.count("SELECT count(*) AS n FROM transactions WHERE transaction_id = '13003'") == 0, "none of bob's item is left")
        #expect(try f.count("SELECT count(*) AS n FROM receipts") == 2)
        #expect(try f.count("SELECT count(*) AS n FROM customers WHERE customer_id = 'bob'") == 0)
        #expect(try f.count("SELECT count(*) AS n FROM audit_log WHERE action = 'import'") == 2)
        #expect(try AuditLog.verify(f.database).isIntact)
        #expect(try f.count("SELECT count(*) AS n FROM entitlements WHERE customer_id IN ('alice', 'carol')") >= 2)
    }

    @Test func aBatchMatchesTheSameImportsOneByOne() throws {
        let batched = try LedgerFixture()
        let single = try LedgerFixture()
        var receipts: [(bytes: [UInt8], customer: String)] = []
        for index in 0..<12 {
            let id = String(14_000 + index * 2)
            let purchases = [LedgerFixture.purchase(id, bought: "2025-05-0\(1 + index % 9)T00:00:00Z", expires: "2025-07-01T00:00:00Z"),
                             LedgerFixture.purchase(String(14_001 + index * 2), "com.example.coins.100", expires: nil, type: 1)]
            receipts.append((try batched.receipt(purchases, created: "2025-05-\(10 + index)T00:00:00Z"), "customer-\(index % 4)"))
        }
        receipts.append(receipts[3])  // a repeat inside the batch
        receipts.append((receipts[5].bytes, "customer-9"))  // someone else's transactions: conflicts
        _ = try batched.ledger.importBatch(receipts.map { PurchaseLedger.ImportItem(bytes: $0.bytes, customer: $0.customer, source: "test") },
                                           operatorName: "mei")
        for receipt in receipts {
            _ = try single.ledger.importArtefact(receipt.bytes, customer: receipt.customer, source: "test", operatorName: "mei")
        }
        for table in ["customers", "receipts", "transactions", "conflicts", "entitlements"] {
            let columns = table == "receipts" ? "sha256, customer_id, verdict" : "*"
            let order = table == "entitlements" ? "customer_id, entitlement, source, transaction_id" : "1"
            let sql = "SELECT \(columns) FROM \(table) ORDER BY \(order)"
            #expect(try batched.database.query(sql, []).map(\.values) == single.database.query(sql, []).map(\.values), "\(table) differs")
        }
        #expect(try batched.database.query("SELECT action, target, details FROM audit_log ORDER BY seq", []).map(\.values)
                == single.database.query("SELECT action, target, details FROM audit_log ORDER BY seq", []).map(\.values))
    }
}
