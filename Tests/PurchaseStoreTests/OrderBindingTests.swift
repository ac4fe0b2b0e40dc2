import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

// Run on every backend (TestBackend.available): SQLite always, PostgreSQL when
// RECEIPTDESK_TEST_POSTGRES_URL names a test server (make test starts one).

@Suite("Order binding and failed payments on both backends")
struct OrderBindingTests {
    func recorded(_ result: ImportResult, _ id: String) -> ImportResult.TransactionOutcome? {
        result.transactions.first { $0.transactionId == id }?.outcome
    }

    @Test(arguments: TestBackend.available) func explicitOrderIdBindsAndMarksThePaymentPaid(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-04-01T00:00:00Z")
        try f.ledger.createOrder("ORD-1", customer: "alice", product: "com.example.pro.monthly", operatorName: "mei")
        let result = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("7001")]), customer: "alice", orderId: "ORD-1",
                                                 source: "test", operatorName: "mei")
        #expect(recorded(result, "7001") == .recorded(binding: .explicit, orderId: "ORD-1"))
        #expect(try f.ledger.order("ORD-1")?.status == "paid")
        #expect(try f.ledger.order("ORD-1")?.transactionId == "7001")
    }

    @Test(arguments: TestBackend.available) func appAccountTokenNamesTheOrder(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-04-01T00:00:00Z")
        let token = "5A3C6E1B-58F0-4B9E-9C1F-2D3E4F5A6B7C"
        try f.ledger.createOrder("ORD-7", customer: "alice", product: "com.example.pro.lifetime", accountToken: token, operatorName: "mei")
        try f.ledger.createOrder("ORD-8", customer: "alice", product: "com.example.pro.lifetime", operatorName: "mei")
        let result = try f.ledger.importArtefact(try f.jws("7101", token: token.lowercased()), customer: "alice", source: "test", operatorName: "mei")
        #expect(recorded(result, "7101") == .recorded(binding: .accountToken, orderId: "ORD-7"))
        #expect(try f.ledger.order("ORD-8")?.status == "pending")
    }

    @Test(arguments: TestBackend.available) func applicationUsernameNamingAnOrderBinds(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-04-01T00:00:00Z")
        try f.ledger.createOrder("ORD-9", customer: "alice", product: "com.example.pro.monthly", operatorName: "mei")
        try f.ledger.createOrder("ORD-10", customer: "alice", product: "com.example.pro.monthly", operatorName: "mei")
        let result = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("7201")]), customer: "alice",
                                                 applicationUsername: "ORD-10", source: "test", operatorName: "mei")
        #expect(recorded(result, "7201") == .recorded(binding: .accountToken, orderId: "ORD-10"))
    }

    @Test(arguments: TestBackend.available) func singlePendingOrderBeforeThePurchaseBinds(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-04-01T00:00:00Z")
        try f.ledger.createOrder("ORD-11", customer: "alice", product: "com.example.pro.monthly", operatorName: "mei")
        try f.ledger.createOrder("ORD-12", customer: "alice", product: "com.example.coins.100", operatorName: "mei")
        let result = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("7301")]), customer: "alice", source: "test", operatorName: "mei")
        #expect(recorded(result, "7301") == .recorded(binding: .singlePendingOrder, orderId: "ORD-11"))
    }

    @Test(arguments: TestBackend.available) func anOrderPlacedAfterThePurchaseDoesNotBind(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-06-01T00:00:00Z")
        try f.ledger.createOrder("ORD-13", customer: "alice", product: "com.example.pro.monthly", operatorName: "mei")
        let result = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("7401")]), customer: "alice", source: "test", operatorName: "mei")
        #expect(recorded(result, "7401") == .recorded(binding: .unbound, orderId: nil))
    }

    @Test(arguments: TestBackend.available) func twoCandidateOrdersLeaveItAmbiguousAndListed(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-04-01T00:00:00Z")
        try f.ledger.createOrder("ORD-14", customer: "alice", product: "com.example.pro.monthly", operatorName: "mei")
        try f.ledger.createOrder("ORD-15", customer: "alice", product: "com.example.pro.monthly", operatorName: "mei")
        let result = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("7501")]), customer: "alice", source: "test", operatorName: "mei")
        #expect(recorded(result, "7501") == .recorded(binding: .ambiguous, orderId: nil))
        #expect(try f.ledger.ambiguousBindings().map(\.transactionId) == ["7501"])
        #expect(try f.ledger.order("ORD-14")?.status == "pending")
    }

    @Test(arguments: TestBackend.available) func twoNewTransactionsForOneOrderAreAmbiguous(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-04-01T00:00:00Z")
        try f.ledger.createOrder("ORD-16", customer: "alice", product: "com.example.coins.100", operatorName: "mei")
        let result = try f.ledger.importArtefact(try f.receipt([
            LedgerFixture.purchase("7601", "com.example.coins.100", expires: nil, type: 1),
            LedgerFixture.purchase("7602", "com.example.coins.100", bought: "2025-05-02T00:00:00Z", expires: nil, type: 1),
        ]), customer: "alice", source: "test", operatorName: "mei")
        #expect(result.transactions.allSatisfy { $0.outcome == .recorded(binding: .ambiguous, orderId: nil) })
    }

    @Test(arguments: TestBackend.available) func explicitOrderOfAnotherCustomerIsRefused(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-04-01T00:00:00Z")
        try f.ledger.createOrder("ORD-17", customer: "bob", product: "com.example.pro.monthly", operatorName: "mei")
        let before = try f.dump()
        #expect(throws: StoreError(.invalidRequest, "")) {
            _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("7701")]), customer: "alice", orderId: "ORD-17",
                                            source: "test", operatorName: "mei")
        }
        #expect(try f.dump() == before)
    }

    @Test(arguments: TestBackend.available) func failedPaymentIsRecordedOncePerOrder(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-04-01T00:00:00Z")
        try f.ledger.createOrder("ORD-18", customer: "alice", product: "com.example.pro.monthly", operatorName: "mei")
        let failed = try f.ledger.recordFailedPayment("ORD-18", reason: "SKErrorPaymentCancelled", operatorName: "mei")
        #expect(failed.status == "failed")
        let before = try f.dump()
        #expect(throws: StoreError(.alreadyExists, "")) {
            try f.ledger.recordFailedPayment("ORD-18", reason: "again", operatorName: "mei")
        }
        #expect(try f.dump() == before)
        #expect(throws: StoreError(.notFound, "")) { try f.ledger.recordFailedPayment("ORD-404", reason: "x", operatorName: "mei") }
        // A later successful purchase still pays the failed order.
        let result = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("7801")]), customer: "alice", source: "test", operatorName: "mei")
        #expect(recorded(result, "7801") == .recorded(binding: .singlePendingOrder, orderId: "ORD-18"))
        #expect(try f.ledger.order("ORD-18")?.status == "paid")
        #expect(throws: StoreError(.invalidRequest, "")) { try f.ledger.recordFailedPayment("ORD-18", reason: "late", operatorName: "mei") }
    }

    @Test(arguments: TestBackend.available) func refundedTransactionMarksItsOrderRefunded(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-04-01T00:00:00Z")
        try f.ledger.createOrder("ORD-19", customer: "alice", product: "com.example.pro.monthly", operatorName: "mei")
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("7901", cancelled: "2025-05-10T00:00:00Z")]),
                                        customer: "alice", orderId: "ORD-19", source: "test", operatorName: "mei")
        #expect(try f.ledger.order("ORD-19")?.status == "refunded")
    }

    @Test(arguments: TestBackend.available) func creatingTheSameOrderTwiceChangesNothing(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        #expect(try f.ledger.createOrder("ORD-20", customer: "alice", product: "com.example.pro.lifetime", operatorName: "mei").created)
        let before = try f.dump()
        #expect(try !f.ledger.createOrder("ORD-20", customer: "alice", product: "com.example.pro.lifetime", operatorName: "mei").created)
        #expect(try f.dump() == before)
        #expect(throws: StoreError(.alreadyExists, "")) {
            try f.ledger.createOrder("ORD-20", customer: "bob", product: "com.example.pro.lifetime", operatorName: "mei")
        }
    }
}
