import Foundation
import ReceiptCore

/// The payload of a StoreKit 2 signed transaction (`JWSTransactionDecodedPayload`), in Apple's
/// member order; dates are UNIX milliseconds. Sample:
///
///     {"transactionId":"2000001024998954","originalTransactionId":"2000001024993299",
///      "webOrderLineItemId":"2000000113755461","bundleId":"com.example","productId":"pro.monthly",
///      "subscriptionGroupIdentifier":"21752814","purchaseDate":1759302552000,
///      "originalPurchaseDate":1759301833000,"expiresDate":1759302732000,"quantity":1,
///      "type":"Auto-Renewable Subscription","inAppOwnershipType":"PURCHASED","signedDate":1759302518835,
///      "environment":"Sandbox","transactionReason":"RENEWAL","storefront":"AUS","storefrontId":"143460",
///      "price":1990,"currency":"AUD","appTransactionId":"704897469903383919"}
///
/// Each stored property is written as the JSON member of the same name (dates as UNIX
/// milliseconds); nil properties are left out.
public struct TransactionPayload: Sendable {
    public var transactionId: String
    public var originalTransactionId: String
    public var webOrderLineItemId: String?
    public var bundleId: String
    public var productId: String
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Date
    public var originalPurchaseDate: Date
    public var expiresDate: Date?
    public var quantity: Int64 = 1
    /// "Auto-Renewable Subscription", "Non-Consumable", "Consumable" or "Non-Renewing Subscription".
    public var type: String
    /// The merchant's UUID for the order (lower-case UUID string).
    public var appAccountToken: String?
    /// "PURCHASED" or "FAMILY_SHARED".
    public var inAppOwnershipType: String? = "PURCHASED"
    public var signedDate: Date
    /// 0 other, 1 an issue with the purchase.
    public var revocationReason: Int64?
    public var revocationDate: Date?
    public var isUpgraded: Bool?
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    public var offerType: Int64?
    public var offerIdentifier: String?
    /// "FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT", "ONE_TIME".
    public var offerDiscountType: String?
    /// "Sandbox", "Production", "Xcode", "LocalTesting".
    public var environment: String = "Sandbox"
    /// "PURCHASE" or "RENEWAL".
    public var transactionReason: String? = "PURCHASE"
    public var storefront: String? = "USA"
    public var storefrontId: String? = "143441"
    /// Price in milliunits of `currency`.
    public var price: Int64?
    public var currency: String?
    public var appTransactionId: String?
    /// "REFUND_FULL", "REFUND_PRORATED" or "FAMILY_REVOKE" (App Store Server API 1.19).
    public var revocationType: String?
    /// The share refunded or revoked, in milliunits of a percent (40000 is 40%).
    public var revocationPercentage: Int64?
    /// "MONTHLY" or "BILLED_UPFRONT": a 12-month commitment plan (App Store Server API 1.21).
    public var billingPlanType: String?
    /// The commitment this transaction pays part of (written as `commitmentInfo`).
    public var commitmentInfo: TransactionCommitment?
    /// Members written last, as given (new or unknown fields).
    public var extraMembers: [(String, JSONValue)] = []

    /// A transaction; the original id and date default to this one's (a first purchase).
    public init(transactionId: String, originalTransactionId: String? = nil, bundleId: String, productId: String,
                type: String, purchaseDate: Date, originalPurchaseDate: Date? = nil, expiresDate: Date? = nil,
                signedDate: Date, environment: String = "Sandbox") {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId ?? transactionId
        self.bundleId = bundleId
        self.productId = productId
        self.type = type
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate ?? purchaseDate
        self.expiresDate = expiresDate
        self.signedDate = signedDate
        self.environment = environment
    }

    /// The payload JSON.
    public var json: JSONValue {
        var m = JSONMembers()
        m.add("transactionId", transactionId)
        m.add("originalTransactionId", originalTransactionId)
        m.add("webOrderLineItemId", webOrderLineItemId)
        m.add("bundleId", bundleId)
        m.add("productId", productId)
        m.add("subscriptionGroupIdentifier", subscriptionGroupIdentifier)
        m.add("purchaseDate", milliseconds: purchaseDate)
        m.add("originalPurchaseDate", milliseconds: originalPurchaseDate)
        m.add("expiresDate", milliseconds: expiresDate)
        m.add("quantity", quantity)
        m.add("type", type)
        m.add("appAccountToken", appAccountToken)
        m.add("inAppOwnershipType", inAppOwnershipType)
        m.add("signedDate", milliseconds: signedDate)
        m.add("revocationReason", revocationReason)
        m.add("revocationDate", milliseconds: revocationDate)
        m.add("isUpgraded", isUpgraded)
        m.add("offerType", offerType)
        m.add("offerIdentifier", offerIdentifier)
        m.add("offerDiscountType", offerDiscountType)
        m.add("environment", environment)
        m.add("transactionReason", transactionReason)
        m.add("storefront", storefront)
        m.add("storefrontId", storefrontId)
        m.add("price", price)
        m.add("currency", currency)
        m.add("appTransactionId", appTransactionId)
        m.add("revocationType", revocationType)
        m.add("revocationPercentage", revocationPercentage)
        m.add("billingPlanType", billingPlanType)
        m.add("commitmentInfo", commitmentInfo.map(Self.json))
        m.append(contentsOf: extraMembers)
        return m.object
    }

    /// A `commitmentInfo` object, in the member order of Apple's sample.
    static func json(_ c: TransactionCommitment) -> JSONValue {
        var m = JSONMembers()
        m.add("billingPeriodNumber", c.billingPeriodNumber)
        m.add("commitmentExpiresDate", milliseconds: c.commitmentExpiresDate)
        m.add("commitmentPrice", c.commitmentPrice)
        m.add("totalBillingPeriods", c.totalBillingPeriods)
        return m.object
    }
}
