import Foundation

/// A purchase to mint: what the customer bought and when. Everything Apple would assign itself
/// (transaction id, order id, web order line item id) is generated unless given.
///
///     SimulatedPurchase(productId: "pro.monthly", type: .autoRenewable,
///                       purchaseDate: start, expiresDate: start.addingTimeInterval(30 * 86_400))
public struct SimulatedPurchase: Sendable {
    /// The product bought.
    public var productId: String
    /// The product's type.
    public var type: SimulatedProductType
    /// When it was charged.
    public var purchaseDate: Date
    /// When the period ends (subscriptions).
    public var expiresDate: Date?
    /// Items bought.
    public var quantity: Int64
    /// A transaction id to use instead of the next generated one.
    public var transactionId: String?
    /// The original transaction (for a restore or a purchase that continues another); nil: itself.
    public var originalTransactionId: String?
    /// The merchant's order UUID the app passed to StoreKit (`appAccountToken`).
    public var appAccountToken: String?
    /// Apple's customer order id to file it under; nil: a new one.
    public var orderId: String?
    /// Subscriptions: the group (nil: the product id).
    public var subscriptionGroupIdentifier: String?
    /// Price in milliunits of `currency`.
    public var price: Int64?
    /// ISO 4217 currency code.
    public var currency: String?
    /// The offer that prices this purchase's own period (subscriptions): 1 introductory, 2
    /// promotional, 3 offer code, 4 win-back; nil: none (a free trial is 1 with `FREE_TRIAL`).
    public var offerType: Int64?
    /// The offer's identifier (promotional offer id, offer code reference name).
    public var offerIdentifier: String?
    /// How the offer discounts this period: "FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT", "ONE_TIME".
    public var offerDiscountType: String?

    /// A purchase of `productId` at `purchaseDate`.
    public init(productId: String, type: SimulatedProductType, purchaseDate: Date, expiresDate: Date? = nil,
                quantity: Int64 = 1, transactionId: String? = nil, originalTransactionId: String? = nil,
                appAccountToken: String? = nil, orderId: String? = nil) {
        self.productId = productId
        self.type = type
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.quantity = quantity
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.appAccountToken = appAccountToken
        self.orderId = orderId
    }
}
