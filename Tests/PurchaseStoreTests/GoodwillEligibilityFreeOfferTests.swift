import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// "In a free offer period" is the current period's own signed transaction (the subscription's
/// newest: its offerDiscountType FREE_TRIAL and its period not over), not the stored Apple
/// state's offer, which mixes in the renewal info's offer for the next renewal and an earlier
/// transaction's. A free trial that renewed into a paid period is extended; one still in its
/// trial is skipped, naming the transaction and its signing date; an older free-trial
/// transaction recorded after the paid renewal changes nothing. Both backends, against the
/// simulator over loopback.
@Suite("Goodwill and free offer periods: the current period's signed transaction decides, both backends", .serialized)
struct GoodwillEligibilityFreeOfferTests {
    typealias Apple = AppleExactlyOnceTests.Apple
    typealias G = GoodwillExtensionTests

    /// A monthly subscription that began with a free trial from `start` to `end` (its own Apple
    /// account), not yet in the ledger: the trial's signed transaction (signed at `start`).
    static func trial(_ apple: Apple, start: String, end: String) throws -> MintedSignedTransaction {
        var purchase = SimulatedPurchase(productId: "com.example.pro.monthly", type: .autoRenewable, purchaseDate: LedgerFixture.date(start),
                                         expiresDate: LedgerFixture.date(end))
        purchase.offerType = 1
        purchase.offerDiscountType = "FREE_TRIAL"
        return try apple.state.mintSignedTransaction(environment: .production, purchase: purchase, signedDate: LedgerFixture.date(start))
    }

    static func importJWS(_ f: BackendLedgerFixture, _ jws: String, _ customer: String) throws {
        _ = try f.ledger.importArtefact(Array(jws.utf8), customer: customer, source: "test", operatorName: "mei")
    }

    static func apply(_ f: BackendLedgerFixture, _ minted: MintedNotification) throws {
        _ = try f.ledger.applyNotification(Array(minted.body.utf8), operatorName: "apple")
    }

    @Test(arguments: TestBackend.available)
    func aFreeTrialThatRenewedIntoAPaidPeriodIsExtended(_ backend: TestBackend) async throws {
        let f = try BackendLedgerFixture(backend, now: AppleExactlyOnceTests.now)
        let apple = try Apple(f)
        let transport = G.CountingTransport()
        let actions = try G.actions(apple, f.ledger, transport)
        let trial = try Self.trial(apple, start: "2025-05-27T00:00:00Z", end: "2025-06-03T00:00:00Z")
        let original = trial.transaction.transactionId
        try Self.importJWS(f, trial.jws, "fo-paid")
        try Self.apply(f, try apple.state.mintNotification(type: "SUBSCRIBED", subtype: "INITIAL_BUY", transactionId: original,
                                                           signedDate: LedgerFixture.date("2025-05-27T00:00:00Z")))
        // The trial renews into a paid month: Apple's DID_RENEW carries a transaction without an offer.
        try Self.apply(f, try apple.state.renewAndNotify(originalTransactionId: original, purchaseDate: LedgerFixture.date("2025-06-03T00:00:00Z"),
                                                         expiresDate: LedgerFixture.date("2025-07-03T00:00:00Z")))
        #expect(try f.ledger.subscriptionState(original: original)?.status == 1)

        let preview = try f.ledger.planRenewalExtensionBatch(customers: ["fo-paid"], days: 3, reasonCode: .serviceIssueOrOutage, reason: "outage")
        guard case .willExtend(let expires, false) = G.outcome(preview, original) else { Issue.record("\(preview.lines)"); return }
        #expect(expires == LedgerFixture.date("2025-07-03T00:00:00Z"))
        // Awaited, not run on a blocked thread: two tests blocking the 2-core cooperative pool at once never finish.
        let done = try await actions.extendBatch(preview, operatorName: "mei")
        #expect(done.extendedNow == 1 && done.refusedOrFailed == 0, "\(done.lines)")
        let atApple = apple.state.extensions(originalTransactionId: original)
        #expect(atApple.count == 1 && transport.extendRequests(original) == 1, "Apple extends a paying subscriber: \(atApple)")
    }

    @Test(arguments: TestBackend.available)
    func aSubscriptionStillInItsFreeTrialIsSkippedNamingItsTransaction(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: AppleExactlyOnceTests.now)
        let apple = try Apple(f)
        let trial = try Self.trial(apple, start: "2025-06-10T00:00:00Z", end: "2025-06-17T00:00:00Z")
        let original = trial.transaction.transactionId
        try Self.importJWS(f, trial.jws, "fo-trial")
        // Before Apple reported a status, the signed transaction alone decides.
        var preview = try f.ledger.planRenewalExtensionBatch(customers: ["fo-trial"], days: 3, reasonCode: .other, reason: "sorry")
        let expected = "in a free offer period until 2025-06-17 (introductory offer (free trial); Apple refuses extensions during one): the offer of its current transaction \(original), signed 2025-06-10"
        #expect(G.outcome(preview, original) == .skipped(expected), "\(preview.lines)")
        try Self.apply(f, try apple.state.mintNotification(type: "SUBSCRIBED", subtype: "INITIAL_BUY", transactionId: original,
                                                           signedDate: LedgerFixture.date("2025-06-10T00:00:00Z")))
        #expect(try f.ledger.subscriptionState(original: original)?.status == 1)
        preview = try f.ledger.planRenewalExtensionBatch(customers: ["fo-trial"], days: 3, reasonCode: .other, reason: "sorry")
        #expect(G.outcome(preview, original) == .skipped(expected), "\(preview.lines)")
        #expect {
            try f.ledger.planRenewalExtension(original: original, days: 3, reasonCode: .other)
        } throws: { error in
            "\(error)".contains("subscription \(original) is \(expected)")
        }
        // Apple (the simulator) refuses it the same way.
        #expect {
            try apple.state.extendRenewalDate(originalTransactionId: original, days: 3, date: LedgerFixture.date(AppleExactlyOnceTests.now))
        } throws: { error in
            "\(error)".contains("4030004")
        }
    }

    @Test(arguments: TestBackend.available)
    func anOlderFreeTrialTransactionRecordedAfterThePaidRenewalChangesNothing(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: AppleExactlyOnceTests.now)
        let apple = try Apple(f)
        let trial = try Self.trial(apple, start: "2025-06-01T00:00:00Z", end: "2025-06-08T00:00:00Z")
        let original = trial.transaction.transactionId
        let paid = try apple.state.renew(originalTransactionId: original, purchaseDate: LedgerFixture.date("2025-06-08T00:00:00Z"),
                                         expiresDate: LedgerFixture.date("2025-07-08T00:00:00Z"))
        // The paid renewal reaches the ledger first, then the trial's transaction, signed later
        // (Apple signs a transaction anew each time it is fetched), and a notification about it.
        try Self.importJWS(f, try apple.state.signedTransaction(paid.transactionId, signedDate: LedgerFixture.date("2025-06-08T00:00:00Z")), "fo-late")
        var preview = try f.ledger.planRenewalExtensionBatch(customers: ["fo-late"], days: 3, reasonCode: .other, reason: "sorry")
        guard case .willExtend = G.outcome(preview, original) else { Issue.record("\(preview.lines)"); return }
        try Self.importJWS(f, try apple.state.signedTransaction(original, signedDate: LedgerFixture.date("2025-06-14T00:00:00Z")), "fo-late")
        #expect(try f.count("SELECT count(*) AS n FROM transactions WHERE original_transaction_id = '\(original)'") == 2)
        try Self.apply(f, try apple.state.mintNotification(type: "CONSUMPTION_REQUEST", transactionId: original,
                                                           signedDate: LedgerFixture.date("2025-06-14T12:00:00Z")))
        preview = try f.ledger.planRenewalExtensionBatch(customers: ["fo-late"], days: 3, reasonCode: .other, reason: "sorry")
        guard case .willExtend(let expires, false) = G.outcome(preview, original) else { Issue.record("\(preview.lines)"); return }
        #expect(expires == LedgerFixture.date("2025-07-08T00:00:00Z"))
        // The trial's own row keeps its offer (its own period was free), from its first signed copy.
        let row = try #require(try f.database.queryFirst("SELECT offer_discount_type, signed_date FROM transactions WHERE transaction_id = ?",
                                                         [.text(original)]))
        #expect(row.string("offer_discount_type") == "FREE_TRIAL" && row.date("signed_date") == LedgerFixture.date("2025-06-14T00:00:00Z"))
        let paidRow = try #require(try f.database.queryFirst("SELECT offer_type, offer_discount_type, signed_date FROM transactions WHERE transaction_id = ?",
                                                             [.text(paid.transactionId)]))
        #expect(paidRow.int("offer_type") == nil && paidRow.string("offer_discount_type") == nil
                && paidRow.date("signed_date") == LedgerFixture.date("2025-06-08T00:00:00Z"))
    }
}
