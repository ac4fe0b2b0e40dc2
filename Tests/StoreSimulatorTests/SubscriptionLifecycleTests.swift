import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// Each lifecycle method's notification type, subtype, status and renewal info, decoded and verified.
@Suite("Simulator subscription lifecycle notifications")
struct SubscriptionLifecycleTests {
    @Test("billing failure with grace, grace expiry, recovery; expiry subtypes; auto-renew; preferences; price; offer")
    func lifecycle() throws {
        let fixture = try SimulatorFixture()
        let state = fixture.state
        var purchase = SimulatorFixture.monthly(SimulatorFixture.day(-40))
        purchase.price = 9_990
        purchase.currency = "USD"
        let bought = try fixture.verifiedNotification(try state.subscribe(purchase, environment: .sandbox).signedPayload)
        #expect(bought.notificationType == "SUBSCRIBED" && bought.subtype == "INITIAL_BUY" && bought.status == 1)
        #expect(bought.transaction?.price == 9_990 && bought.transaction?.currency == "USD" && bought.transaction?.storefront == "USA")
        let original = try #require(bought.transaction?.purchase.transactionId)
        let end = SimulatorFixture.day(-10)

        let failed = try fixture.verifiedNotification(try state.failRenewal(originalTransactionId: original, date: end,
                                                                           gracePeriodExpiresDate: end.addingTimeInterval(16 * 86_400)).signedPayload)
        #expect(failed.notificationType == "DID_FAIL_TO_RENEW" && failed.subtype == "GRACE_PERIOD" && failed.status == 4)
        #expect(failed.renewalInfo?.isInBillingRetryPeriod == true && failed.renewalInfo?.gracePeriodExpiresDate == end.addingTimeInterval(16 * 86_400))
        let statuses = try fixture.send("GET", .sandbox, "/inApps/v1/subscriptions/\(original)").json()
        let item = try #require(try statuses.objects("data").first?.objects("lastTransactions").first)
        #expect(try item.int("status") == 4, "grace period until day 6")

        let graceOver = try fixture.verifiedNotification(try state.expireGracePeriod(originalTransactionId: original, date: SimulatorFixture.day(-5)).signedPayload)
        #expect(graceOver.notificationType == "GRACE_PERIOD_EXPIRED" && graceOver.status == 3)
        let recovered = try fixture.verifiedNotification(try state.recoverBilling(originalTransactionId: original, purchaseDate: SimulatorFixture.day(-4),
                                                                                 expiresDate: SimulatorFixture.day(26)).signedPayload)
        #expect(recovered.notificationType == "DID_RENEW" && recovered.subtype == "BILLING_RECOVERY" && recovered.status == 1)
        #expect(recovered.renewalInfo?.isInBillingRetryPeriod == nil && recovered.transaction?.transactionReason == "RENEWAL")

        let off = try fixture.verifiedNotification(try state.setAutoRenew(originalTransactionId: original, enabled: false, date: SimulatorFixture.day(-3)).signedPayload)
        #expect(off.notificationType == "DID_CHANGE_RENEWAL_STATUS" && off.subtype == "AUTO_RENEW_DISABLED" && off.renewalInfo?.autoRenewStatus == 0)
        let on = try fixture.verifiedNotification(try state.setAutoRenew(originalTransactionId: original, enabled: true, date: SimulatorFixture.day(-3)).signedPayload)
        #expect(on.subtype == "AUTO_RENEW_ENABLED" && on.renewalInfo?.autoRenewStatus == 1)
        let down = try fixture.verifiedNotification(try state.changeRenewalPreference(originalTransactionId: original, to: "pro.basic", upgrade: false,
                                                                                     date: SimulatorFixture.day(-2)).signedPayload)
        #expect(down.notificationType == "DID_CHANGE_RENEWAL_PREF" && down.subtype == "DOWNGRADE" && down.renewalInfo?.autoRenewProductId == "pro.basic")
        let price = try fixture.verifiedNotification(try state.increasePrice(originalTransactionId: original, renewalPrice: 12_990, accepted: false,
                                                                            date: SimulatorFixture.day(-2)).signedPayload)
        #expect(price.notificationType == "PRICE_INCREASE" && price.subtype == "PENDING")
        #expect(try price.renewalInfo?.payload.int("priceIncreaseStatus") == 0 && price.renewalInfo?.payload.int("renewalPrice") == 12_990)
        let offer = try fixture.verifiedNotification(try state.redeemOffer(originalTransactionId: original, offerType: 2, offerIdentifier: "WINBACK10",
                                                                          date: SimulatorFixture.day(-1)).signedPayload)
        // The offer is for the next renewal: the renewal info carries it, the current period's transaction does not.
        #expect(offer.notificationType == "OFFER_REDEEMED" && offer.transaction?.offerType == nil && offer.renewalInfo?.offerType == 2)
        #expect(try offer.renewalInfo?.payload.string("offerIdentifier") == "WINBACK10" && offer.transaction?.offerIdentifier == nil)

        for reason in SubscriptionExpiry.allCases {
            let sub = try fixture.activeSubscription(start: SimulatorFixture.day(-40))
            let expired = try fixture.verifiedNotification(try state.expire(originalTransactionId: sub.transactionId, because: reason,
                                                                            date: SimulatorFixture.day(-10)).signedPayload)
            #expect(expired.notificationType == "EXPIRED" && expired.subtype == reason.rawValue && expired.status == 2)
            #expect(expired.renewalInfo?.expirationIntent == reason.expirationIntent && expired.renewalInfo?.autoRenewStatus == 0)
        }
        let again = try fixture.verifiedNotification(try state.resubscribe(originalTransactionId: original, purchaseDate: SimulatorFixture.day(30),
                                                                          expiresDate: SimulatorFixture.day(60)).signedPayload)
        #expect(again.notificationType == "SUBSCRIBED" && again.subtype == "RESUBSCRIBE" && again.transaction?.purchase.originalTransactionId == original)
        let retry = try fixture.activeSubscription(start: SimulatorFixture.day(-40))
        let noGrace = try fixture.verifiedNotification(try state.failRenewal(originalTransactionId: retry.transactionId, date: SimulatorFixture.day(-10)).signedPayload)
        #expect(noGrace.subtype == nil && noGrace.status == 3)
    }

    @Test("a free trial is its own transaction's offer; a redeemed offer prices the next renewal, then is used up")
    func offersBelongToTheirPeriod() throws {
        let fixture = try SimulatorFixture()
        let state = fixture.state
        var purchase = SimulatorFixture.monthly(SimulatorFixture.day(-40))
        purchase.expiresDate = SimulatorFixture.day(-33)
        purchase.offerType = 1
        purchase.offerDiscountType = "FREE_TRIAL"
        let bought = try fixture.verifiedNotification(try state.subscribe(purchase, environment: .sandbox).signedPayload)
        #expect(bought.transaction?.offerType == 1 && bought.transaction?.offerDiscountTypeRaw == "FREE_TRIAL")
        #expect(bought.renewalInfo?.offerType == nil, "the trial is this period's, not the next renewal's")
        let original = try #require(bought.transaction?.purchase.transactionId)
        let paid = try fixture.verifiedNotification(try state.renewAndNotify(originalTransactionId: original, purchaseDate: SimulatorFixture.day(-33),
                                                                             expiresDate: SimulatorFixture.day(-3)).signedPayload)
        #expect(paid.transaction?.offerType == nil && paid.transaction?.offerDiscountTypeRaw == nil, "the paid renewal has no offer")
        _ = try state.redeemOffer(originalTransactionId: original, offerType: 2, offerIdentifier: "SPRING", offerDiscountType: "PAY_AS_YOU_GO",
                                  date: SimulatorFixture.day(-10))
        #expect(state.transactions.last?.offerType == nil, "the current period keeps its price")
        let discounted = try fixture.verifiedNotification(try state.renewAndNotify(originalTransactionId: original, purchaseDate: SimulatorFixture.day(-3),
                                                                                   expiresDate: SimulatorFixture.day(27)).signedPayload)
        #expect(discounted.transaction?.offerType == 2 && discounted.transaction?.offerIdentifier == "SPRING"
                && discounted.transaction?.offerDiscountTypeRaw == "PAY_AS_YOU_GO")
        #expect(discounted.renewalInfo?.offerType == nil && discounted.renewalInfo?.offerIdentifier == nil, "used up by the renewal it priced")
    }

    @Test("refunds, declines, reversals, family revocation, consumption requests and one-time charges")
    func purchases() throws {
        let fixture = try SimulatorFixture()
        let state = fixture.state
        let charged = try fixture.verifiedNotification(try state.chargeOneTime(SimulatedPurchase(productId: "coins", type: .consumable,
                                                                                                  purchaseDate: SimulatorFixture.day(-3)), environment: .sandbox).signedPayload)
        #expect(charged.notificationType == "ONE_TIME_CHARGE" && charged.status == nil)
        let coins = try #require(charged.transaction?.purchase.transactionId)
        let asked = try fixture.verifiedNotification(try state.requestConsumption(transactionId: coins, date: SimulatorFixture.day(-1)).signedPayload)
        #expect(asked.notificationType == "CONSUMPTION_REQUEST" && state.pendingConsumptionRequest(transactionId: coins) == SimulatorFixture.day(-1))
        let declined = try fixture.verifiedNotification(try state.declineRefund(transactionId: coins, date: SimulatorFixture.now).signedPayload)
        #expect(declined.notificationType == "REFUND_DECLINED" && state.pendingConsumptionRequest(transactionId: coins) == nil)
        let refunded = try fixture.verifiedNotification(try state.refundAndNotify(transactionId: coins, date: SimulatorFixture.now, reason: 1).signedPayload)
        #expect(refunded.notificationType == "REFUND" && refunded.transaction?.purchase.revocationDate == SimulatorFixture.now)
        #expect(try refunded.transaction?.payload.int("revocationReason") == 1)
        let reversed = try fixture.verifiedNotification(try state.reverseRefund(transactionId: coins, date: SimulatorFixture.now).signedPayload)
        #expect(reversed.notificationType == "REFUND_REVERSED" && reversed.transaction?.purchase.revocationDate == nil)
        #expect(throws: SimulatorError.self) { try state.reverseRefund(transactionId: coins, date: SimulatorFixture.now) }
        let sub = try fixture.activeSubscription()
        let revoked = try fixture.verifiedNotification(try state.revokeFamilySharing(transactionId: sub.transactionId, date: SimulatorFixture.now).signedPayload)
        #expect(revoked.notificationType == "REVOKE" && revoked.status == 5)
        #expect(try revoked.transaction?.payload.string("inAppOwnershipType") == "FAMILY_SHARED")
        let ads = try state.register(SimulatedPurchase(productId: "no.ads", type: .nonConsumable, purchaseDate: SimulatorFixture.day(-1)), environment: .sandbox)
        #expect(throws: SimulatorError.self) { try state.requestConsumption(transactionId: ads.transactionId, date: SimulatorFixture.now) }
        #expect(throws: SimulatorError.self) { try state.subscribe(SimulatedPurchase(productId: "x", type: .consumable, purchaseDate: SimulatorFixture.now), environment: .sandbox) }
        #expect(throws: SimulatorError.self) { try state.failRenewal(originalTransactionId: "123", date: SimulatorFixture.now) }
    }
}
