import Foundation

/// A StoreKit 2 / App Store Server API signed transaction (`JWSTransactionDecodedPayload`):
///
///     {"transactionId":"2000001024998954","originalTransactionId":"2000001024993299",
///      "bundleId":"com.example","productId":"pro.monthly","purchaseDate":1759302552000,
///      "expiresDate":1759302732000,"quantity":1,"type":"Auto-Renewable Subscription",
///      "appAccountToken":"…","environment":"Sandbox","signedDate":1759302518835, …}
///
/// `jws` is nil for a payload given already decoded (as logs hold them): that is unsigned.
public struct SignedTransaction: Sendable {
    public let jws: CompactJWS?
    /// The whole payload (built on first use when decoded from a JWS: the fields below are read
    /// without it).
    public var payload: JSONObject { deferredPayload.object }
    private let deferredPayload: DeferredJSONObject
    public let purchase: Purchase
    public let bundleId: String?
    public let environment: EnvironmentReading
    public let signedDate: Date?
    public let transactionReason: String?
    public let storefront: String?
    /// `price` (milliunits of `currency`) and `currency`: kept on the purchase, read once.
    public var price: Int64? { purchase.price }
    public var currency: String? { purchase.currency }
    public let offerType: Int64?
    public let subscriptionGroupIdentifier: String?
    /// The offer's identifier (promotional offer, offer code, win-back), when one applied.
    public let offerIdentifier: String?
    /// Apple's storefront id ("143441").
    public let storefrontId: String?
    /// `offerPeriod`: the offer's duration, ISO 8601 ("P1M").
    public let offerPeriod: String?
    /// `offerDiscountType` as Apple wrote it.
    public let offerDiscountTypeRaw: String?
    /// `offerDiscountType` typed; nil when absent or unknown to this version.
    public var offerDiscountType: OfferDiscountType? { offerDiscountTypeRaw.flatMap(OfferDiscountType.init(rawValue:)) }
    /// `appTransactionId`: the app download it was bought in.
    public var appTransactionId: String? { purchase.appTransactionId }

    /// Parses and decodes a compact JWS (signature not checked here: see `JWSVerifier`).
    public init(compactJWS: String) throws {
        let jws = try CompactJWS(compact: compactJWS, what: "JWS transaction")
        try self.init(try CapturedMembers(parsing: jws.payload, what: "JWS transaction payload", known: Member.known), jws: jws)
    }

    /// Decodes an already-decoded payload object.
    public init(payload: JSONObject, jws: CompactJWS? = nil) throws {
        try self.init(CapturedMembers(object: payload, known: Member.known), jws: jws)
    }

    /// The members read, by position in `Member.known` (kept typed while a JWS payload is parsed).
    private enum Member {
        static let known = KnownMembers([
            "transactionId", "originalTransactionId", "productId", "quantity", "purchaseDate", "originalPurchaseDate",
            "expiresDate", "revocationDate", "webOrderLineItemId", "appAccountToken", "type", "revocationReason",
            "inAppOwnershipType", "offerType", "offerIdentifier", "bundleId", "environment", "signedDate",
            "transactionReason", "storefront", "price", "currency", "subscriptionGroupIdentifier", "storefrontId",
            "appTransactionId", "offerPeriod", "offerDiscountType",
            "revocationType", "revocationPercentage", "isUpgraded", "billingPlanType", "commitmentInfo",
        ])
        static let transactionId = 0, originalTransactionId = 1, productId = 2, quantity = 3, purchaseDate = 4
        static let originalPurchaseDate = 5, expiresDate = 6, revocationDate = 7, webOrderLineItemId = 8
        static let appAccountToken = 9, type = 10, revocationReason = 11, inAppOwnershipType = 12, offerType = 13
        static let offerIdentifier = 14, bundleId = 15, environment = 16, signedDate = 17, transactionReason = 18
        static let storefront = 19, price = 20, currency = 21, subscriptionGroupIdentifier = 22, storefrontId = 23
        static let appTransactionId = 24, offerPeriod = 25, offerDiscountType = 26
        static let revocationType = 27, revocationPercentage = 28, isUpgraded = 29, billingPlanType = 30, commitmentInfo = 31
    }

    private init(_ members: CapturedMembers, jws: CompactJWS?) throws {
        typealias M = Member
        let payload = members
        self.jws = jws
        deferredPayload = members.deferred
        var p = Purchase()
        p.transactionId = try payload.string(M.transactionId)
        p.originalTransactionId = try payload.string(M.originalTransactionId)
        p.productId = try payload.string(M.productId)
        p.quantity = try payload.int(M.quantity)
        p.purchaseDate = try payload.millisecondsDate(M.purchaseDate)
        p.originalPurchaseDate = try payload.millisecondsDate(M.originalPurchaseDate)
        p.expiresDate = try payload.millisecondsDate(M.expiresDate)
        p.revocationDate = try payload.millisecondsDate(M.revocationDate)
        p.webOrderLineItemId = try payload.string(M.webOrderLineItemId)
        p.appAccountToken = try payload.string(M.appAccountToken)
        p.productTypeRaw = try payload.string(M.type)
        p.productType = p.productTypeRaw.flatMap(ProductType.init(jwsType:))
        p.revocationReason = try payload.string(M.revocationReason)
        p.ownershipType = try payload.string(M.inAppOwnershipType)
        p.revocationTypeRaw = try payload.string(M.revocationType)
        p.revocationPercentage = try payload.int(M.revocationPercentage)
        p.isUpgraded = try payload.bool(M.isUpgraded)
        p.billingPlanTypeRaw = try payload.string(M.billingPlanType)
        p.commitment = try payload.object(M.commitmentInfo).map(TransactionCommitment.init)
        let offerType = try payload.int(M.offerType)
        p.isInIntroOfferPeriod = offerType.map { $0 == 1 }
        p.promotionalOfferId = offerType == 2 ? try payload.string(M.offerIdentifier) : nil
        p.appTransactionId = try payload.string(M.appTransactionId)
        p.price = try payload.int(M.price)
        p.currency = try payload.string(M.currency)
        purchase = p
        bundleId = try payload.string(M.bundleId)
        environment = .named(try payload.string(M.environment), source: .jwsEnvironment, isSigned: jws != nil)
        signedDate = try payload.millisecondsDate(M.signedDate)
        transactionReason = try payload.string(M.transactionReason)
        storefront = try payload.string(M.storefront)
        self.offerType = offerType
        subscriptionGroupIdentifier = try payload.string(M.subscriptionGroupIdentifier)
        offerIdentifier = try payload.string(M.offerIdentifier)
        storefrontId = try payload.string(M.storefrontId)
        offerPeriod = try payload.string(M.offerPeriod)
        offerDiscountTypeRaw = try payload.string(M.offerDiscountType)
    }
}
