import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// A subscription's whole life at the simulated App Store, every notification type and subtype it
/// sends applied to the ledger in turn: each leaves its event, the state follows, and what it
/// grants follows (refunds revoke, a reversed refund restores, recovery grants again).
@Suite("Every notification type, applied in a subscription's life")
struct EveryNotificationTypeTests {
    static func day(_ n: Double) -> Date { LedgerFixture.date("2025-01-01T00:00:00Z").addingTimeInterval(n * 86_400) }

    @Test(arguments: TestBackend.available) func aWholeLifeLeavesItsStoryInTheLedger(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-01-01T00:00:00Z")
        let state = SimulatorState(authority: f.authority, bundleId: "com.example.app")
        var purchase = SimulatedPurchase(productId: "com.example.pro.monthly", type: .autoRenewable, purchaseDate: Self.day(0),
                                         expiresDate: Self.day(30))
        purchase.price = 4990
        purchase.currency = "EUR"
        let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [purchase], account: "eva", originalAppVersion: "50")
        _ = try f.ledger.importArtefact(Array(receipt.base64.utf8), customer: "eva", source: "test", operatorName: "mei")
        let original = try #require(receipt.transactions.first?.transactionId)
        var seen: [(String, String?)] = []
        func apply(_ minted: MintedNotification, at day: Double) throws {
            f.now = Self.day(day)
            let result = try f.ledger.applyNotification(Array(minted.body.utf8), operatorName: "apple")
            #expect(result.applied && result.customerId == "eva", "\(minted.record.notificationType): \(result.outcome)")
            seen.append((minted.record.notificationType, minted.record.subtype))
        }
        func pro() throws -> Bool { try f.ledger.entitlements("eva", now: f.now).first { $0.name == "pro" }?.isActive ?? false }

        try apply(state.setAutoRenew(originalTransactionId: original, enabled: false, date: Self.day(5)), at: 5)
        try apply(state.setAutoRenew(originalTransactionId: original, enabled: true, date: Self.day(6)), at: 6)
        try apply(state.changeRenewalPreference(originalTransactionId: original, to: "com.example.pro.yearly", upgrade: false, date: Self.day(7)), at: 7)
        try apply(state.changeRenewalPreference(originalTransactionId: original, to: "com.example.pro.monthly", upgrade: false, date: Self.day(8)), at: 8)
        try apply(state.increasePrice(originalTransactionId: original, renewalPrice: 5990, accepted: false, date: Self.day(9)), at: 9)
        try apply(state.increasePrice(originalTransactionId: original, renewalPrice: 5990, accepted: true, date: Self.day(10)), at: 10)
        try apply(state.redeemOffer(originalTransactionId: original, offerType: 2, offerIdentifier: "SPRING", date: Self.day(11)), at: 11)
        try apply(state.extendRenewalDate(originalTransactionId: original, days: 5, reasonCode: 3, date: Self.day(12)), at: 12)
        try apply(state.failRenewal(originalTransactionId: original, date: Self.day(35), gracePeriodExpiresDate: Self.day(41)), at: 35)
        let reasons = try f.ledger.entitlements("eva", now: f.now).map(\.reasonAfterName)
        #expect(try pro(), "the grace period keeps access: \(reasons)")
        #expect(reasons.contains { $0.contains("in Apple's billing grace period until 2025-02-11") }, "\(reasons)")  // Apple's expiry moved by the extension: still within the period
        try apply(state.expireGracePeriod(originalTransactionId: original, date: Self.day(41)), at: 41)
        try apply(state.recoverBilling(originalTransactionId: original, purchaseDate: Self.day(43), expiresDate: Self.day(73)), at: 43)
        #expect(try pro(), "billing recovered: a new paid period")
        try apply(state.renewAndNotify(originalTransactionId: original, purchaseDate: Self.day(73), expiresDate: Self.day(103)), at: 73)
        let latest = try #require(state.transactions.last?.transactionId)
        try apply(state.requestConsumption(transactionId: latest, date: Self.day(80)), at: 80)
        #expect(try f.ledger.refundRequests().count == 1)
        try apply(state.declineRefund(transactionId: latest, date: Self.day(81)), at: 81)
        #expect(try f.ledger.refundRequests().isEmpty && f.ledger.refundRequests(all: true).first?.status == .declined)
        try apply(state.refundAndNotify(transactionId: latest, date: Self.day(82), reason: 1), at: 82)
        #expect(try !pro(), "refunded: the period no longer grants")
        try apply(state.reverseRefund(transactionId: latest, date: Self.day(83)), at: 83)
        #expect(try pro(), "the refund was reversed")
        try apply(state.expire(originalTransactionId: original, because: .voluntary, date: Self.day(103)), at: 103)
        try apply(state.resubscribe(originalTransactionId: original, purchaseDate: Self.day(120), expiresDate: Self.day(150)), at: 120)
        try apply(state.expire(originalTransactionId: original, because: .billingRetry, date: Self.day(150)), at: 150)
        try apply(state.expire(originalTransactionId: original, because: .priceIncrease, date: Self.day(151)), at: 151)
        try apply(state.expire(originalTransactionId: original, because: .productNotForSale, date: Self.day(152)), at: 152)
        try apply(state.revokeFamilySharing(transactionId: latest, date: Self.day(153)), at: 153)
        var coins = SimulatedPurchase(productId: "com.example.coins.100", type: .consumable, purchaseDate: Self.day(154))
        coins.originalTransactionId = nil
        // A new purchase Apple tells about first: kept unmatched until its receipt names the owner.
        let charge = try state.chargeOneTime(coins, environment: .production, account: "eva")
        #expect(try f.ledger.applyNotification(Array(charge.body.utf8), operatorName: "apple").outcome.hasPrefix("unmatched"))
        seen.append((charge.record.notificationType, charge.record.subtype))
        let kinds = try f.ledger.subscriptionEvents(of: "eva").map(\.kind)
        #expect(kinds == ["auto-renew off", "auto-renew on", "renewal preference", "renewal preference", "price increase", "price increase",
                          "offer", "extended", "grace period", "grace period ended", "billing recovered", "renewed", "refund requested",
                          "refund declined", "refund", "refund reversed", "expired", "subscribed", "expired", "expired", "expired", "revoked"],
                "\(kinds)")
        #expect(Set(seen.map(\.0)).count == 16, "\(Set(seen.map(\.0)).sorted())")
        #expect(Set(seen.compactMap(\.1)) == ["AUTO_RENEW_DISABLED", "AUTO_RENEW_ENABLED", "DOWNGRADE", "PENDING", "ACCEPTED", "GRACE_PERIOD",
                                               "BILLING_RECOVERY", "VOLUNTARY", "RESUBSCRIBE", "BILLING_RETRY", "PRICE_INCREASE", "PRODUCT_NOT_FOR_SALE"],
                "\(Set(seen.compactMap(\.1)).sorted())")
        let final = try #require(try f.ledger.subscriptionState(original: original))
        #expect(final.refundCount == 1 && final.offerIdentifier == "SPRING")
        #expect(AppleMoney.format(final.renewalPrice, currency: final.currency) == "5.99 EUR")
    }
}
