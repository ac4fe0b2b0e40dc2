import Foundation
import ReceiptCore

/// One transaction the simulator issued (or was told about): what Apple would know about it.
/// Saved as JSON (dates as UNIX milliseconds):
///
///     {"transactionId":"2000000100000001","originalTransactionId":"2000000100000001",
///      "environment":"Sandbox","bundleId":"com.example.receiptdesk","productId":"pro.monthly",
///      "productType":"Auto-Renewable Subscription","purchaseDate":1700000000000,
///      "originalPurchaseDate":1700000000000,"expiresDate":1702592000000,"quantity":1,
///      "transactionReason":"PURCHASE","account":"account-1","orderId":"MK5TTTVWJ1",
///      "webOrderLineItemId":"2000000000000001","subscriptionGroupIdentifier":"pro",
///      "revocation":{"date":1701000000000,"reason":1}}
public struct IssuedTransaction: Codable, Sendable, Equatable {
    /// Apple's transaction id (unique per purchase, renewal or restore).
    public var transactionId: String
    /// The first transaction of this purchase or subscription (itself for a first purchase).
    public var originalTransactionId: String
    /// Where it happened; the other environment does not know it.
    public var environment: SimulatorEnvironment
    /// The app's bundle id.
    public var bundleId: String
    /// The product bought.
    public var productId: String
    /// The product's type.
    public var productType: SimulatedProductType
    /// When this transaction was charged.
    public var purchaseDate: Date
    /// When the original transaction was charged.
    public var originalPurchaseDate: Date
    /// When this period ends (subscriptions).
    public var expiresDate: Date?
    /// Items bought (consumables).
    public var quantity: Int64
    /// The merchant's order UUID (`appAccountToken`), lower-case.
    public var appAccountToken: String?
    /// "PURCHASE" or "RENEWAL".
    public var transactionReason: String
    /// The Apple account that bought it: history and refund look-ups return the account's
    /// transactions (the simulator's stand-in for "this customer").
    public var account: String
    /// Apple's customer order id, from the customer's emailed receipt ("MK5TTTVWJH").
    public var orderId: String?
    /// Subscriptions: the line item that renews.
    public var webOrderLineItemId: String?
    /// Subscriptions: the group, for status look-ups (defaults to the product id).
    public var subscriptionGroupIdentifier: String?
    /// Price in milliunits of `currency`.
    public var price: Int64?
    /// ISO 4217 currency code.
    public var currency: String?
    /// The refund or revocation Apple was told about, if any.
    public var revocation: Revocation?
    /// The offer applied to this transaction: 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    public var offerType: Int64?
    /// The offer's identifier.
    public var offerIdentifier: String?
    /// How the offer discounts this transaction's period: "FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT", "ONE_TIME".
    public var offerDiscountType: String?
    /// "PURCHASED", or "FAMILY_SHARED" for a family member's access; nil: purchased.
    public var inAppOwnershipType: String?
    /// The customer upgraded from this subscription to another of its group (`isUpgraded`); the
    /// upgrade's date is `revocation`'s.
    public var isUpgraded: Bool?
    /// "MONTHLY" or "BILLED_UPFRONT" for a 12-month commitment plan.
    public var billingPlanType: String?
    /// The commitment this transaction pays part of.
    public var commitment: Commitment?

    /// A refund or revocation: when, why (0 other, 1 an issue with the purchase), its type and
    /// the share refunded.
    public struct Revocation: Codable, Sendable, Equatable {
        /// When Apple refunded or revoked it.
        public var date: Date
        /// 0 for another reason, 1 for an issue with the purchase (Apple's `revocationReason`);
        /// nil for an upgrade, which has none.
        public var reason: Int64?
        /// "REFUND_FULL", "REFUND_PRORATED", "FAMILY_REVOKE"; nil: not said (before API 1.19, an upgrade).
        public var type: String?
        /// Milliunits of a percent refunded (40000 is 40%).
        public var percentage: Int64?

        /// A revocation from its date, reason, type and share.
        public init(date: Date, reason: Int64?, type: String? = nil, percentage: Int64? = nil) {
            self.date = date
            self.reason = reason
            self.type = type
            self.percentage = percentage
        }
    }

    /// A 12-month commitment's facts as Apple signs them in `commitmentInfo`.
    public struct Commitment: Codable, Sendable, Equatable {
        /// Which period of the commitment this transaction pays (1 …).
        public var billingPeriodNumber: Int64
        /// How many periods the commitment has.
        public var totalBillingPeriods: Int64
        /// Milliunits of `currency`.
        public var commitmentPrice: Int64?
        /// When the commitment ends.
        public var commitmentExpiresDate: Date?

        /// A commitment from its facts.
        public init(billingPeriodNumber: Int64, totalBillingPeriods: Int64, commitmentPrice: Int64? = nil, commitmentExpiresDate: Date? = nil) {
            self.billingPeriodNumber = billingPeriodNumber
            self.totalBillingPeriods = totalBillingPeriods
            self.commitmentPrice = commitmentPrice
            self.commitmentExpiresDate = commitmentExpiresDate
        }

        /// As the core decodes it.
        public var signed: TransactionCommitment {
            TransactionCommitment(billingPeriodNumber: billingPeriodNumber, totalBillingPeriods: totalBillingPeriods,
                                  commitmentPrice: commitmentPrice, commitmentExpiresDate: commitmentExpiresDate)
        }
    }

    /// A transaction from its facts; optional ones default to absent.
    public init(transactionId: String, originalTransactionId: String, environment: SimulatorEnvironment, bundleId: String,
                productId: String, productType: SimulatedProductType, purchaseDate: Date, originalPurchaseDate: Date,
                expiresDate: Date? = nil, quantity: Int64 = 1, transactionReason: String = "PURCHASE", account: String) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.environment = environment
        self.bundleId = bundleId
        self.productId = productId
        self.productType = productType
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.quantity = quantity
        self.transactionReason = transactionReason
        self.account = account
    }

    /// Whether Apple refunded or revoked it.
    public var isRevoked: Bool { revocation != nil }

    /// The StoreKit 2 payload Apple would sign for this transaction at `signedDate`.
    public func payload(signedDate: Date) -> TransactionPayload {
        var payload = TransactionPayload(transactionId: transactionId, originalTransactionId: originalTransactionId,
                                         bundleId: bundleId, productId: productId, type: productType.rawValue,
                                         purchaseDate: purchaseDate, originalPurchaseDate: originalPurchaseDate,
                                         expiresDate: expiresDate, signedDate: signedDate, environment: environment.rawValue)
        payload.quantity = quantity
        payload.webOrderLineItemId = webOrderLineItemId
        payload.subscriptionGroupIdentifier = productType == .autoRenewable ? (subscriptionGroupIdentifier ?? productId) : nil
        payload.appAccountToken = appAccountToken
        payload.transactionReason = transactionReason
        payload.revocationDate = revocation?.date
        payload.revocationReason = revocation?.reason
        payload.revocationType = revocation?.type
        payload.revocationPercentage = revocation?.percentage
        payload.isUpgraded = isUpgraded
        payload.billingPlanType = billingPlanType
        payload.commitmentInfo = commitment?.signed
        payload.price = price
        payload.currency = currency
        payload.offerType = offerType
        payload.offerIdentifier = offerIdentifier
        payload.offerDiscountType = offerDiscountType
        if let inAppOwnershipType { payload.inAppOwnershipType = inAppOwnershipType }
        payload.appTransactionId = SimulatorRecords.appTransactionId(bundleId: bundleId, account: account, environment: environment)
        return payload
    }

    /// The in-app purchase a unified receipt carries for this transaction.
    public var receiptPurchase: ReceiptPurchase {
        ReceiptPurchase(productId: productId, transactionId: transactionId, originalTransactionId: originalTransactionId,
                        purchaseDate: purchaseDate, originalPurchaseDate: originalPurchaseDate, expiresDate: expiresDate,
                        cancellationDate: revocation?.date, quantity: quantity, productTypeCode: productType.receiptCode,
                        webOrderLineItemId: webOrderLineItemId.flatMap { Int64($0) })
    }
}
