import Foundation
import ReceiptCore
import Testing
@testable import PurchaseStore

/// What a restore may move (issue 13, item 5): what Apple restores (non-consumables and
/// subscriptions), never a consumable unless asked; and a restore with nothing to move fails
/// and creates nobody, like its dry run.
@Suite("Restore moves only what Apple restores")
struct RestoreRulesTests {
    func customers(_ f: BackendLedgerFixture) throws -> Int64 {
        try f.database.queryFirst("SELECT count(*) AS n FROM customers", [])?.int("n") ?? -1
    }

    @Test(arguments: TestBackend.available) func consumablesStayWithTheirOwnerUnlessIncluded(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("9101", "com.example.pro.lifetime", expires: nil, type: 0),
                                                       LedgerFixture.purchase("9102", "com.example.coins.100", expires: nil, type: 1)]),
                                        customer: "old", source: "test", operatorName: "mei")
        let preview = try f.ledger.restore(customer: "new", fromCustomer: "old", reason: "new phone", operatorName: "mei", dryRun: true)
        #expect(preview.movedTransactions.map(\.transactionId) == ["9101"])
        #expect(preview.consumablesLeft.map(\.transactionId) == ["9102"])
        let result = try f.ledger.restore(customer: "new", fromCustomer: "old", reason: "new phone", operatorName: "mei")
        #expect(result.movedTransactions.map(\.transactionId) == ["9101"])
        #expect(try f.ledger.transaction("9102")?.customerId == "old", "the consumable stayed")
        let details = try #require(try AuditLog.entries(f.database, limit: 1).first?.details)
        #expect(details.contains("\"consumablesLeft\":[\"9102\"]"), "\(details)")
        // Asked for explicitly, it moves.
        let included = try f.ledger.restore(customer: "new", fromCustomer: "old", reason: "insists", operatorName: "mei", includeConsumables: true)
        #expect(included.movedTransactions.map(\.transactionId) == ["9102"] && included.consumablesMoved == 1)
        #expect(try f.ledger.transaction("9102")?.customerId == "new")
    }

    @Test(arguments: TestBackend.available) func nothingToMoveFailsAndCreatesNoCustomer(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("9201", "com.example.coins.100", expires: nil, type: 1)]),
                                        customer: "old", source: "test", operatorName: "mei")
        try f.ledger.addCustomer("empty", isTester: false, operatorName: "mei")
        let before = try customers(f)
        let auditBefore = try AuditLog.entries(f.database, limit: 1).first?.seq
        _ = try f.ledger.restore(customer: "typo-customer", fromCustomer: "old", reason: "r", operatorName: "mei", dryRun: true)
        #expect(try customers(f) == before, "a dry run creates no customer")
        do {
            _ = try f.ledger.restore(customer: "typo-customer", fromCustomer: "old", reason: "r", operatorName: "mei")
            Issue.record("a restore of one consumable moved something")
        } catch let error as StoreError {
            #expect(error.reason.contains("only 1 consumable purchase would, and Apple does not restore consumables"), "\(error.reason)")
        }
        do {
            _ = try f.ledger.restore(customer: "typo-customer", fromCustomer: "empty", reason: "r", operatorName: "mei")
            Issue.record("a restore from a customer with nothing succeeded")
        } catch let error as StoreError {
            #expect(error.reason == "nothing to restore to typo-customer: no transaction would move; nothing changed")
        }
        #expect(try customers(f) == before, "no customer was created")
        #expect(try AuditLog.entries(f.database, limit: 1).first?.seq == auditBefore, "nothing was audited")
    }
}
