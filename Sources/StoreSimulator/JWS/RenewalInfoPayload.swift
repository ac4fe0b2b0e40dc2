import Foundation
import ReceiptCore

/// The payload of a signed renewal info (`JWSRenewalInfoDecodedPayload`), in Apple's member
/// order; dates are UNIX milliseconds. Sample:
///
///     {"originalTransactionId":"2000001024993299","autoRenewProductId":"pro.monthly",
///      "productId":"pro.monthly","autoRenewStatus":1,"renewalPrice":1990,"currency":"AUD",
///      "signedDate":1759302518835,"environment":"Sandbox","recentSubscriptionStartDate":1759301832000,
///      "renewalDate":1759302732000,"appTransactionId":"704897469903383919"}
///
/// Each stored property is written as the JSON member of the same name (dates as UNIX
/// milliseconds); nil properties are left out.
public struct RenewalInfoPayload: Sendable {
    public var originalTransactionId: String
    public var autoRenewProductId: String
    public var productId: String
    /// 1 on, 0 off.
    public var autoRenewStatus: Int64 = 1
    /// 1 cancelled, 2 billing error, 3 price increase not consented, 4 product unavailable, 5 other.
    public var expirationIntent: Int64?
    public var isInBillingRetryPeriod: Bool?
    public var priceIncreaseStatus: Int64?
    public var gracePeriodExpiresDate: Date?
    public var offerType: Int64?
    public var offerIdentifier: String?
    public var renewalPrice: Int64?
    public var currency: String?
    public var signedDate: Date
    public var environment: String = "Sandbox"
    public var recentSubscriptionStartDate: Date?
    public var renewalDate: Date?
    public var appAccountToken: String?
    public var appTransactionId: String?
    /// ISO 8601 duration of the next renewal's offer ("P1M").
    public var offerPeriod: String?
    /// "FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT", "ONE_TIME".
    public var offerDiscountType: String?
    /// Win-back offers the customer may redeem; nil or empty omits the member.
    public var eligibleWinBackOfferIds: [String]?
    /// "MONTHLY" or "BILLED_UPFRONT": how the next period of a commitment plan is billed.
    public var renewalBillingPlanType: String?
    /// What happens when the commitment ends (written as `commitmentInfo`).
    public var commitmentInfo: RenewalCommitment?
    /// Members written last, as given.
    public var extraMembers: [(String, JSONValue)] = []

    /// Renewal info for a subscription renewing into the same product by default.
    public init(originalTransactionId: String, productId: String, autoRenewProductId: String? = nil,
                signedDate: Date, environment: String = "Sandbox") {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.autoRenewProductId = autoRenewProductId ?? productId
        self.signedDate = signedDate
        self.environment = environment
    }

    /// The payload JSON.
    public var json: JSONValue {
        var m = JSONMembers()
        m.add("expirationIntent", expirationIntent)
        m.add("originalTransactionId", originalTransactionId)
        m.add("autoRenewProductId", autoRenewProductId)
        m.add("productId", productId)
        m.add("autoRenewStatus", autoRenewStatus)
        m.add("isInBillingRetryPeriod", isInBillingRetryPeriod)
        m.add("priceIncreaseStatus", priceIncreaseStatus)
        m.add("gracePeriodExpiresDate", milliseconds: gracePeriodExpiresDate)
        m.add("offerType", offerType)
        m.add("offerIdentifier", offerIdentifier)
        m.add("renewalPrice", renewalPrice)
        m.add("currency", currency)
        m.add("signedDate", milliseconds: signedDate)
        m.add("environment", environment)
        m.add("recentSubscriptionStartDate", milliseconds: recentSubscriptionStartDate)
        m.add("renewalDate", milliseconds: renewalDate)
        m.add("appAccountToken", appAccountToken)
        m.add("appTransactionId", appTransactionId)
        m.add("offerPeriod", offerPeriod)
        m.add("offerDiscountType", offerDiscountType)
        if let ids = eligibleWinBackOfferIds, !ids.isEmpty { m.add("eligibleWinBackOfferIds", JSONValue.array(ids.map { .string($0) })) }
        m.add("commitmentInfo", commitmentInfo.map(Self.json))
        m.add("renewalBillingPlanType", renewalBillingPlanType)
        m.append(contentsOf: extraMembers)
        return m.object
    }

    /// A renewal info's `commitmentInfo` object, in the member order of Apple's sample.
    static func json(_ c: RenewalCommitment) -> JSONValue {
        var m = JSONMembers()
        m.add("commitmentAutoRenewProductId", c.autoRenewProductId)
        m.add("commitmentAutoRenewStatus", c.autoRenewStatus)
        m.add("commitmentRenewalBillingPlanType", c.renewalBillingPlanTypeRaw)
        m.add("commitmentRenewalDate", milliseconds: c.renewalDate)
        m.add("commitmentRenewalPrice", c.renewalPrice)
        return m.object
    }
}
