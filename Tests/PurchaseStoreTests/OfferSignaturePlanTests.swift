import Foundation
import PurchaseStore
import ReceiptCore
import Testing

/// The ledger's check of an offer signature before it is made (`planOfferSignature`), which the
/// console previews and `AppleActions.signOffer` signs from.
@Suite("Offer signature plans on both backends")
struct OfferSignaturePlanTests {
    @Test(arguments: TestBackend.available)
    func theCustomersLatestPurchaseOfTheProductIsNamedAndBadInputRefused(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        _ = try f.ledger.importArtefact(try f.receipt([
            LedgerFixture.purchase("9001", bought: "2025-04-01T00:00:00Z", expires: "2025-05-01T00:00:00Z"),
            LedgerFixture.purchase("9002", bought: "2025-05-01T00:00:00Z", expires: "2025-06-01T00:00:00Z"),
        ]), customer: "alice", source: "test", operatorName: "mei")
        let plan = try f.ledger.planOfferSignature(customerId: "alice", productId: "com.example.pro.monthly", offerIdentifier: "WINBACK50",
                                                   transactionId: nil)
        #expect(plan.transactionId == "9002", "the latest purchase of the product")
        #expect(plan.lines.first == "Sign offer WINBACK50 of com.example.pro.monthly for alice")
        #expect(try f.ledger.planOfferSignature(customerId: "alice", productId: "com.example.pro.monthly", offerIdentifier: "WINBACK50",
                                                transactionId: "9001").transactionId == "9001", "one given is kept")
        #expect(try f.ledger.planOfferSignature(customerId: "alice", productId: "com.example.pro.yearly", offerIdentifier: "WINBACK50",
                                                transactionId: nil).transactionId == nil, "no purchase of that product: none named")
        #expect(throws: StoreError(.notFound, "")) {
            _ = try f.ledger.planOfferSignature(customerId: "nobody", productId: "com.example.pro.monthly", offerIdentifier: "WINBACK50", transactionId: nil)
        }
        let refused = #expect(throws: StoreError(.invalidInput, "")) {
            _ = try f.ledger.planOfferSignature(customerId: "alice", productId: "com.example.pro.monthly", offerIdentifier: "WIN BACK", transactionId: nil)
        }
        #expect(refused?.reason == "offer signature: the offer identifier 'WIN BACK' is not 1–100 printable ASCII characters")
    }
}
