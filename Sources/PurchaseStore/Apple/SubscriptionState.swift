import Foundation
import ReceiptCore

/// One subscription's latest state as Apple reported it (table `subscription_states`): from an App
/// Store Server Notification or from Get All Subscription Statuses, both signed by Apple. Every
/// value here came from a verified signed payload; `source` says which.
public struct SubscriptionState: Sendable, Equatable {
    public var originalTransactionId: String
    public var customerId: String?
    public var environment: String
    public var subscriptionGroup: String?
    public var productId: String?
    /// Apple's status: 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked.
    public var status: Int64?
    /// Whether it renews; nil when Apple has not said.
    public var autoRenew: Bool?
    /// The product the next renewal is for.
    public var autoRenewProductId: String?
    /// Why it expired: 1 customer cancelled, 2 billing error, 3 price increase not consented,
    /// 4 product not for sale, 5 other.
    public var expirationIntent: Int64?
    public var expiresDate: Date?
    public var renewalDate: Date?
    public var gracePeriodExpiresDate: Date?
    public var inBillingRetry: Bool?
    /// When the current billing retry began (the end of the last paid period).
    public var billingRetrySince: Date?
    /// 0 awaiting the customer's consent to a price increase, 1 consented (or needs none).
    public var priceIncreaseStatus: Int64?
    public var offerType: Int64?
    public var offerIdentifier: String?
    /// The offer's duration, ISO 8601 ("P1M").
    public var offerPeriod: String?
    /// How the offer discounts, as Apple wrote it ("FREE_TRIAL", "PAY_AS_YOU_GO", …).
    public var offerDiscountType: String?
    /// The win-back offers Apple says the customer may redeem now (renewal info).
    public var eligibleWinBackOfferIds: [String] = []
    /// The last transaction's price, in milliunits of `currency`.
    public var price: Int64?
    /// The next renewal's price, in milliunits of `currency`.
    public var renewalPrice: Int64?
    public var currency: String?
    public var storefront: String?
    public var revocationDate: Date?
    /// 0 another reason, 1 an issue with the purchase.
    public var revocationReason: Int64?
    /// How many refunds Apple reported for this subscription.
    public var refundCount: Int64
    /// The last notification that changed it ("EXPIRED/BILLING_RETRY"), or "statuses".
    public var lastEvent: String?
    /// Where the state came from: "notification <uuid>" or "Get All Subscription Statuses".
    public var source: String
    /// Apple's signing date of what it came from; a newer one replaces it, an older one does not.
    public var signedDate: Date
    public var updatedAt: Date
    /// The revocation's type and share, and the commitment plan (migration 0008).
    public var terms = SubscriptionTerms()

    /// An empty state for a subscription, to be filled from signed data.
    public init(originalTransactionId: String, environment: String, source: String, signedDate: Date, updatedAt: Date) {
        self.originalTransactionId = originalTransactionId
        self.environment = environment
        self.refundCount = 0
        self.source = source
        self.signedDate = signedDate
        self.updatedAt = updatedAt
    }

    /// Apple's status in words.
    public var statusName: String {
        switch status {
        case 1: return "active"
        case 2: return "expired"
        case 3: return "billing retry"
        case 4: return "grace period"
        case 5: return "revoked"
        case let other?: return "status \(other)"
        case nil: return "unknown"
        }
    }

    /// Why it expired, in words.
    public var expirationIntentName: String? {
        switch expirationIntent {
        case 1: return "the customer cancelled"
        case 2: return "billing error"
        case 3: return "the customer did not consent to a price increase"
        case 4: return "the product was not for sale at renewal"
        case 5: return "another reason"
        case let other?: return "expiration intent \(other)"
        case nil: return nil
        }
    }

    /// The offer in words ("promotional offer SPRING"). Mixed from the newest transaction's
    /// offer and the renewal info's offer for the next renewal: not what the current period is
    /// (that is its newest transaction's own offer, `transactions.offer_*`).
    public var offerName: String? {
        TransactionOffer.name(type: offerType, identifier: offerIdentifier, discountType: offerDiscountType, period: offerPeriod)
    }

    /// "eligible for win-back offers W1, W2", or nil when Apple names none.
    public var winBackEligibility: String? {
        eligibleWinBackOfferIds.isEmpty ? nil
            : "eligible for win-back offer\(eligibleWinBackOfferIds.count == 1 ? "" : "s") \(eligibleWinBackOfferIds.joined(separator: ", "))"
    }

    /// Why Apple revoked it, in words, with the revocation's type and share when Apple gave them
    /// ("refunded: an issue with the purchase (prorated refund 40%)").
    public var revocationReasonName: String {
        if terms.revocationType == RevocationType.familyRevoke.rawValue { return "family sharing ended" }
        let kind = RevocationType.describe(raw: terms.revocationType, percentage: terms.revocationPercentage).map { " (\($0))" } ?? ""
        switch revocationReason {
        case 1: return "refunded: an issue with the purchase" + kind
        case 0: return "refunded for another reason" + kind
        default: return "revoked" + kind
        }
    }
}

/// Apple prices are in milliunits of the currency (1990 → 1.99); currencies without minor units
/// (JPY, KRW, …) show none.
public enum AppleMoney {
    /// "1.99 USD", "120 JPY"; nil without a price.
    public static func format(_ milliunits: Int64?, currency: String?) -> String? {
        MilliunitText.format(milliunits, currency: currency)
    }
}
