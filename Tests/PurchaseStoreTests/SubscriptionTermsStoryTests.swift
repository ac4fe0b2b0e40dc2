import Foundation
import PurchaseStore
import ReceiptCore
import Testing

/// "Why it stopped" and the money shown, with Apple's revocation type, a downgrade's date and a
/// 12-month commitment plan.
@Suite("Subscription story: revocation type, downgrade, commitment")
struct SubscriptionTermsStoryTests {
    static func date(_ text: String) -> Date { RFC3339.parse(text) ?? .distantPast }

    static func state(status: Int64) -> SubscriptionState {
        var s = SubscriptionState(originalTransactionId: "1", environment: "Production", source: "s",
                                  signedDate: date("2026-01-01T00:00:00Z"), updatedAt: date("2026-01-01T00:00:00Z"))
        s.status = status
        s.productId = "pro.yearly"
        s.autoRenew = true
        s.expiresDate = date("2026-02-01T00:00:00Z")
        s.renewalDate = date("2026-02-01T00:00:00Z")
        s.price = 9_990
        s.currency = "USD"
        return s
    }

    @Test func aDowngradeSaysWhenItTakesEffect() {
        var s = Self.state(status: 1)
        s.autoRenewProductId = "pro.monthly"
        #expect(SubscriptionStory.line(s) == "active as pro.yearly until 2026-02-01, then changes to pro.monthly (a downgrade or crossgrade the customer chose)")
        s.autoRenewProductId = "pro.yearly"
        #expect(SubscriptionStory.line(s) == "active, renews 2026-02-01")
    }

    @Test func aRevocationSaysItsTypeAndShare() {
        var s = Self.state(status: 5)
        s.revocationDate = Self.date("2026-01-10T00:00:00Z")
        s.revocationReason = 0
        s.terms.revocationType = "REFUND_PRORATED"
        s.terms.revocationPercentage = 67_932
        #expect(SubscriptionStory.line(s) == "revoked 2026-01-10: refunded for another reason (prorated refund 67.932%)")
        s.terms.revocationType = "FAMILY_REVOKE"
        s.terms.revocationPercentage = nil
        #expect(SubscriptionStory.line(s) == "revoked 2026-01-10: family sharing ended")
    }

    @Test func aCommitmentPlanShowsMonthlyPriceCommitmentPriceAndPeriodsLeft() {
        var s = Self.state(status: 2)
        s.expirationIntent = 1
        s.terms.billingPlanType = "MONTHLY"
        s.terms.commitment = TransactionCommitment(billingPeriodNumber: 12, totalBillingPeriods: 12, commitmentPrice: 119_880,
                                                   commitmentExpiresDate: Self.date("2026-02-01T00:00:00Z"))
        s.terms.renewalCommitment = RenewalCommitment(autoRenewProductId: "pro.yearly", autoRenewStatus: 0)
        #expect(SubscriptionStory.line(s) == "expired 2026-02-01: the customer turned off auto-renew; billed monthly at 9.99 USD a month, period 12 of 12, 0 left, commitment ends 2026-02-01, commitment price 119.88 USD; after it: does not renew")
    }
}
