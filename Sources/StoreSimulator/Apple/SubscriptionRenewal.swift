import Foundation

/// What Apple will do at a subscription's next renewal date, and the billing state it is in:
/// the source of the signed renewal info. Saved as JSON; members added after the first format
/// are optional, so older state files still load:
///
///     {"autoRenewStatus":false,"autoRenewProductId":"pro.monthly","expirationIntent":2,
///      "isInBillingRetryPeriod":true,"gracePeriodExpiresDate":1700600000000,
///      "priceIncreaseStatus":0,"renewalPrice":12990,"offerType":2,"offerIdentifier":"WINBACK"}
public struct SubscriptionRenewal: Codable, Sendable, Equatable {
    /// Whether the subscription renews (`autoRenewStatus` 1).
    public var autoRenewStatus: Bool
    /// The product it renews into.
    public var autoRenewProductId: String
    /// Why it expired (1 cancelled, 2 billing error, 3 price increase, 4 unavailable, 5 other).
    public var expirationIntent: Int64?
    /// Whether Apple is still trying to bill the customer after a failed renewal.
    public var isInBillingRetryPeriod: Bool?
    /// When the billing grace period ends (service continues until then); nil: no grace period.
    public var gracePeriodExpiresDate: Date?
    /// 0 the customer has not yet answered a price increase, 1 accepted (nil: none pending).
    public var priceIncreaseStatus: Int64?
    /// The price of the next renewal in milliunits, when it differs from the current one.
    public var renewalPrice: Int64?
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back: the offer of the next renewal.
    public var offerType: Int64?
    /// The offer's identifier (promotional offer id or offer code reference name).
    public var offerIdentifier: String?
    /// ISO 8601 duration of the offer ("P1M").
    public var offerPeriod: String?
    /// "FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT", "ONE_TIME".
    public var offerDiscountType: String?
    /// Win-back offers the customer may redeem now (an expired subscriber Apple deems eligible).
    public var eligibleWinBackOfferIds: [String]?

    /// A renewal state.
    public init(autoRenewStatus: Bool = true, autoRenewProductId: String, expirationIntent: Int64? = nil) {
        self.autoRenewStatus = autoRenewStatus
        self.autoRenewProductId = autoRenewProductId
        self.expirationIntent = expirationIntent
    }
}
