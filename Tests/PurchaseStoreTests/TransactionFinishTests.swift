import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// Finishing a delivered transaction at Apple (`AppleActions.finishTransaction`) against the
/// simulator over loopback, on both backends: what "delivered" means, refused before Apple is
/// asked; a finish recorded once with who and when; a repeat answered from the ledger.
@Suite("Finishing transactions at Apple, both backends", .serialized)
struct TransactionFinishTests {
    typealias Apple = AppleExactlyOnceTests.Apple

    /// Awaited, never waited for on a blocked thread: the test runs on the cooperative pool.
    static func finish(_ actions: AppleActions, _ id: String, operatorName: String = "mei") async throws -> TransactionFinishOutcome {
        try await actions.finishTransaction(id, reason: "gems delivered (ticket 9)", operatorName: operatorName)
    }

    @Test(arguments: TestBackend.available)
    func aDeliveredTransactionIsFinishedOnceAndARepeatIsAnsweredFromTheLedger(_ backend: TestBackend) async throws {
        let f = try BackendLedgerFixture(backend, now: AppleExactlyOnceTests.now)
        let apple = try Apple(f)
        let actions = try apple.actions(f.ledger)
        let id = try apple.subscriber(f, "alice")
        #expect(try f.ledger.transaction(id)?.finishedAt == nil)
        let plan = try f.ledger.planTransactionFinish(id)
        #expect(plan.finished == nil && plan.customerId == "alice" && plan.environment == .production)
        let now = LedgerFixture.date(AppleExactlyOnceTests.now)
        #expect(try await Self.finish(actions, id) == .finished(FinishedAtApple(at: now, by: "mei")))
        #expect(apple.state.finish(transactionId: id)?.requests == 1)
        let stored = try #require(try f.ledger.transaction(id))
        #expect(stored.finishedAt == now && stored.finishedBy == "mei")
        let audit = try f.database.query("SELECT operator, target, details FROM audit_log WHERE action = 'apple-finish-transaction'", [])
        #expect(audit.count == 1 && audit.first?.string("target") == "transaction:\(id)" && audit.first?.string("operator") == "mei")
        #expect(audit.first?.string("details")?.contains("gems delivered (ticket 9)") == true)
        // Later, another operator: the ledger answers, Apple is not asked, nothing is written.
        f.now = now.addingTimeInterval(3600)
        let before = try f.count("SELECT count(*) AS n FROM audit_log")
        #expect(try await Self.finish(actions, id, operatorName: "li") == .alreadyFinished(FinishedAtApple(at: now, by: "mei")))
        #expect(apple.state.finish(transactionId: id)?.requests == 1, "not asked again")
        #expect(try f.count("SELECT count(*) AS n FROM audit_log") == before)
        #expect(try f.ledger.planTransactionFinish(id).lines.last?.hasPrefix("already finished at 2025-06-15T00:00:00Z by mei") == true)
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    @Test(arguments: TestBackend.available)
    func applesRefusalIsThrownAndNothingIsRecorded(_ backend: TestBackend) async throws {
        let f = try BackendLedgerFixture(backend, now: AppleExactlyOnceTests.now)
        let apple = try Apple(f)
        // Delivered as far as the ledger knows, but the simulator never issued it.
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("8001")]), customer: "bob", source: "test", operatorName: "mei")
        do {
            _ = try await Self.finish(try apple.actions(f.ledger), "8001")
            Issue.record("Apple's 4040010 was not thrown")
        } catch let error as AppStoreError {
            #expect(error.apiError == .transactionIdNotFound, "\(error)")
        }
        #expect(try f.ledger.transaction("8001")?.finishedAt == nil)
        #expect(try f.count("SELECT count(*) AS n FROM audit_log WHERE action = 'apple-finish-transaction'") == 0)
    }

    /// Each way a transaction is not delivered, refused in one line before Apple is asked.
    @Test(arguments: TestBackend.available)
    func whatIsNotDeliveredIsRefusedBeforeAppleIsAsked(_ backend: TestBackend) async throws {
        let f = try BackendLedgerFixture(backend, now: AppleExactlyOnceTests.now)
        let apple = try Apple(f)
        let actions = try apple.actions(f.ledger)
        func importing(_ purchases: [ReceiptPurchase], for customer: String, type: String = "Production", order: String? = nil) throws {
            _ = try f.ledger.importArtefact(try f.receipt(purchases, type: type), customer: customer, orderId: order, source: "test", operatorName: "mei")
        }
        try importing([LedgerFixture.purchase("8101", cancelled: "2025-05-10T00:00:00Z")], for: "refunded")
        try importing([LedgerFixture.purchase("8102", "com.example.unlisted", expires: nil, type: 1)], for: "unlisted")
        try importing([LedgerFixture.purchase("8103")], for: "sandbox", type: "ProductionSandbox")
        try importing([LedgerFixture.purchase("8104")], for: "owner")
        try importing([LedgerFixture.purchase("8104")], for: "claimant")  // opens a conflict
        let now = f.now
        f.now = LedgerFixture.date("2025-04-01T00:00:00Z")  // placed before the purchase, so both fit it
        for order in ["ORD-A", "ORD-B"] {
            _ = try f.ledger.createOrder(order, customer: "two-orders", product: "com.example.pro.monthly", operatorName: "mei")
        }
        f.now = now
        try importing([LedgerFixture.purchase("8105")], for: "two-orders")  // two pending orders fit: ambiguous
        _ = try f.ledger.createOrder("ORD-C", customer: "failed-order", product: "com.example.coins.100", operatorName: "mei")
        try importing([LedgerFixture.purchase("8106", "com.example.coins.100", expires: nil, type: 0)], for: "failed-order", order: "ORD-C")
        // The merchant's own system marked the order failed afterwards (a shared database): the
        // ledger's flows never fail a paid order, so this state comes only from outside them.
        _ = try f.database.execute("UPDATE orders SET status = 'failed', failure_reason = 'chargeback' WHERE order_id = 'ORD-C'", [])
        let refusals: [(String, StoreError.Code, String)] = [
            ("8100", .notFound, "transaction 8100 is not in the ledger"),
            ("8101", .invalidRequest, "it was refunded or revoked on 2025-05-10T00:00:00Z"),
            ("8102", .invalidRequest, "it grants nothing: product com.example.unlisted is not in the catalogue"),
            ("8103", .invalidRequest, "a sandbox purchase of sandbox, who is not a tester"),
            ("8104", .invalidRequest, "conflict #1 is open (claimant claims it too)"),
            ("8105", .invalidRequest, "more than one order fits it (ambiguous binding"),
            ("8106", .invalidRequest, "its order ORD-C is failed (chargeback)"),
        ]
        for (id, code, words) in refusals {
            do {
                _ = try await Self.finish(actions, id)
                Issue.record("\(id) was finished")
            } catch let error as StoreError {
                #expect(error.code == code && error.reason.contains(words), "\(id): \(error.reason)")
                #expect(code == .notFound || error.reason.hasSuffix("nothing was asked of Apple"), "\(id): \(error.reason)")
            }
        }
        #expect(apple.state.snapshot().finishedTransactions.isEmpty, "Apple was asked nothing")
        #expect(try f.count("SELECT count(*) AS n FROM transactions WHERE finished_at IS NOT NULL") == 0)
        // A tester's sandbox purchase is delivered.
        try f.ledger.addCustomer("sandbox", isTester: true, operatorName: "mei")
        #expect(try f.ledger.planTransactionFinish("8103").environment == .sandbox)
    }
}
