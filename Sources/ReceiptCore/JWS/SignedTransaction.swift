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
    public let payload: JSONObject
    public let purchase: Purchase
    public let bundleId: String?
    public let environment: EnvironmentReading
    public let signedDate: Date?
    public let transactionReason: String?
    public let storefront: String?
    public let price: Int64?
    public let currency: String?
    public let offerType: Int64?
    public let subscriptionGroupIdentifier: String?
    /// The offer's identifier (promotional offer, offer code, win-back), when one applied.
    public let offerIdentifier: String?
    /// Apple's storefront id ("143441").
    public let storefrontId: String?

    /// Parses and decodes a compact JWS (signature not checked here: see `JWSVerifier`).
    public init(compactJWS: String) throws {
        let jws = try CompactJWS(compact: compactJWS, what: "JWS transaction")
        try self.init(payload: try jws.payloadObject("JWS transaction payload"), jws: jws)
    }

    /// Decodes an already-decoded payload object.
    public init(payload: JSONObject, jws: CompactJWS? = nil) throws {
        self.jws = jws
        self.payload = payload
        var p = Purchase()
        p.transactionId = try payload.string("transactionId")
        p.originalTransactionId = try payload.string("originalTransactionId")
        p.productId = try payload.string("productId")
        p.quantity = try payload.int("quantity")
        p.purchaseDate = try payload.millisecondsDate("purchaseDate")
        p.originalPurchaseDate = try payload.millisecondsDate("originalPurchaseDate")
        p.expiresDate = try payload.millisecondsDate("expiresDate")
        p.revocationDate = try payload.millisecondsDate("revocationDate")
        p.webOrderLineItemId = try payload.string("webOrderLineItemId")
        p.appAccountToken = try payload.string("appAccountToken")
        p.productTypeRaw = try payload.string("type")
        p.productType = p.productTypeRaw.flatMap(ProductType.init(jwsType:))
        p.revocationReason = try payload.string("revocationReason")
        p.ownershipType = try payload.string("inAppOwnershipType")
        let offerType = try payload.int("offerType")
        p.isInIntroOfferPeriod = offerType.map { $0 == 1 }
        p.promotionalOfferId = offerType == 2 ? try payload.string("offerIdentifier") : nil
        purchase = p
        bundleId = try payload.string("bundleId")
        environment = .named(try payload.string("environment"), source: .jwsEnvironment, isSigned: jws != nil)
        signedDate = try payload.millisecondsDate("signedDate")
        transactionReason = try payload.string("transactionReason")
        storefront = try payload.string("storefront")
        price = try payload.int("price")
        currency = try payload.string("currency")
        self.offerType = offerType
        subscriptionGroupIdentifier = try payload.string("subscriptionGroupIdentifier")
        offerIdentifier = try payload.string("offerIdentifier")
        storefrontId = try payload.string("storefrontId")
    }
}
