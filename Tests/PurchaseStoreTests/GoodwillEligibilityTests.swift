import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// Apple's rule for extensions (`SubscriptionExtensionIneligibleError`): a goodwill's preview
/// skips a subscription in a billing grace period whose expiry has passed, one in billing retry
/// and one in a free offer period, each with its reason and the signed state it was decided
/// from; the simulator refuses the same ones (4030004). Both backends.
@Suite("Goodwill at Apple: who Apple refuses is skipped, both backends", .serialized)
struct GoodwillEligibilityTests {
    typealias Apple = AppleExactlyOnceTests.Apple
    typealias G = GoodwillExtensionTests

    static func apply(_ f: BackendLedgerFixture, _ minted: MintedNotification) throws {
        _ = try f.ledger.applyNotification(Array(minted.body.utf8), operatorName: "apple")
    }

    @Test(arguments: TestBackend.available)
    func graceRetryAndFreeOfferPeriodsAreSkippedWithTheirSignedReason(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: AppleExactlyOnceTests.now)
        let apple = try Apple(f)
        let june1 = LedgerFixture.date("2025-06-01T00:00:00Z")
        let paid = try apple.subscriber(f, "gw-paid")
        let grace = try G.lapsed(apple, f, "gw-grace")
        try Self.apply(f, try apple.state.failRenewal(originalTransactionId: grace, date: june1,
                                                      gracePeriodExpiresDate: LedgerFixture.date("2025-06-20T00:00:00Z")))
        let retry = try G.lapsed(apple, f, "gw-retry")
        try Self.apply(f, try apple.state.failRenewal(originalTransactionId: retry, date: june1))
        // A free trial from June 2nd: its own signed transaction says so (a redeemed offer would be for the next renewal).
        let minted = try GoodwillEligibilityFreeOfferTests.trial(apple, start: "2025-06-02T00:00:00Z", end: "2025-07-01T00:00:00Z")
        let trial = minted.transaction.transactionId
        try GoodwillEligibilityFreeOfferTests.importJWS(f, minted.jws, "gw-trial")
        try Self.apply(f, try apple.state.mintNotification(type: "SUBSCRIBED", subtype: "INITIAL_BUY", transactionId: trial,
                                                           signedDate: LedgerFixture.date("2025-06-02T00:00:00Z")))
        #expect(try f.ledger.subscriptionState(original: grace)?.status == 4 && f.ledger.subscriptionState(original: retry)?.status == 3)

        let preview = try f.ledger.planRenewalExtensionBatch(customers: ["gw-paid", "gw-grace", "gw-retry", "gw-trial"], days: 3,
                                                             reasonCode: .serviceIssueOrOutage, reason: "outage")
        #expect(preview.toExtend == 1, "\(preview.lines)")
        guard case .willExtend = G.outcome(preview, paid) else { Issue.record("\(preview.lines)"); return }
        guard case .skipped(let inGrace) = G.outcome(preview, grace), case .skipped(let inRetry) = G.outcome(preview, retry),
              case .skipped(let inTrial) = G.outcome(preview, trial) else { Issue.record("\(preview.lines)"); return }
        #expect(inGrace.hasPrefix("in billing grace period since 2025-06-01 (Apple refuses extensions after expiry)")
                && inGrace.contains("Apple's status 4 and expiry in notification ") && inGrace.contains("signed 2025-06-01"), "\(inGrace)")
        #expect(inRetry.hasPrefix("in billing retry since 2025-06-01 (Apple refuses inactive subscriptions in billing retry)")
                && inRetry.contains("Apple's status 3 in notification "), "\(inRetry)")
        #expect(inTrial.hasPrefix("in a free offer period until 2025-07-01 (introductory offer (free trial)")
                && inTrial.hasSuffix("the offer of its current transaction \(trial), signed 2025-06-02"), "\(inTrial)")
        // The single extension refuses the same, naming the subscription.
        #expect {
            try f.ledger.planRenewalExtension(original: grace, days: 3, reasonCode: .serviceIssueOrOutage)
        } throws: { error in
            "\(error)".contains("subscription \(grace) is in billing grace period since 2025-06-01 (Apple refuses extensions after expiry)")
        }

        // The simulator, as Apple, refuses each of them (4030004) and extends the paid one.
        let now = LedgerFixture.date(AppleExactlyOnceTests.now)
        for original in [grace, retry, trial] {
            #expect {
                try apple.state.extendRenewalDate(originalTransactionId: original, days: 3, date: now)
            } throws: { error in
                "\(error)".contains("4030004")
            }
        }
        #expect(apple.state.extensions(originalTransactionId: paid).isEmpty)
        try apple.state.extendRenewalDate(originalTransactionId: paid, days: 3, date: now)
        #expect(apple.state.extensions(originalTransactionId: paid).count == 1)
    }

    @Test(arguments: TestBackend.available)
    func aGracePeriodWhoseExpiryIsAheadIsStillExtended(_ backend: TestBackend) throws {
        // Apple's state says grace period (4) but its signed expiry is ahead: Apple's rule lets it through.
        let f = try BackendLedgerFixture(backend, now: AppleExactlyOnceTests.now)
        let apple = try Apple(f)
        let original = try apple.subscriber(f, "gw-ahead")
        try Self.apply(f, try apple.state.failRenewal(originalTransactionId: original, date: LedgerFixture.date("2025-06-10T00:00:00Z"),
                                                      gracePeriodExpiresDate: LedgerFixture.date("2025-07-20T00:00:00Z")))
        #expect(try f.ledger.subscriptionState(original: original)?.status == 4)
        let preview = try f.ledger.planRenewalExtensionBatch(customers: ["gw-ahead"], days: 3, reasonCode: .other, reason: "sorry")
        guard case .willExtend = G.outcome(preview, original) else { Issue.record("\(preview.lines)"); return }
    }
}
