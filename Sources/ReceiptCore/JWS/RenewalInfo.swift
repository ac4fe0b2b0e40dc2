import Foundation

/// A signed subscription renewal info (`JWSRenewalInfoDecodedPayload`):
///
///     {"originalTransactionId":"2000001024993299","autoRenewProductId":"pro.monthly",
///      "productId":"pro.monthly","autoRenewStatus":1,"renewalDate":1759302732000,
///      "environment":"Sandbox","signedDate":1759302518835, …}
public struct RenewalInfo: Sendable {
    public let jws: CompactJWS?
    public let payload: JSONObject
    public let originalTransactionId: String?
    public let productId: String?
    public let autoRenewProductId: String?
    /// 1 on, 0 off.
    public let autoRenewStatus: Int64?
    public let expirationIntent: Int64?
    public let isInBillingRetryPeriod: Bool?
    public let gracePeriodExpiresDate: Date?
    public let renewalDate: Date?
    public let recentSubscriptionStartDate: Date?
    public let environment: EnvironmentReading
    public let signedDate: Date?
    /// 0 the customer has not answered a price increase that needs consent, 1 consented or
    /// notified of one that does not.
    public let priceIncreaseStatus: Int64?
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    public let offerType: Int64?
    public let offerIdentifier: String?
    /// The price of the next renewal in milliunits of `currency` (1990 → 1.99).
    public let renewalPrice: Int64?
    /// ISO 4217 code of `renewalPrice`.
    public let currency: String?
    public let appAccountToken: String?
    /// `appTransactionId`: the app download the subscription belongs to.
    public let appTransactionId: String?
    /// `offerPeriod` of the offer applying at the next renewal: ISO 8601 duration ("P1M").
    public let offerPeriod: String?
    /// `offerDiscountType` as Apple wrote it ("FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT", …).
    public let offerDiscountTypeRaw: String?
    /// `offerDiscountType` typed; nil when absent or unknown to this version.
    public var offerDiscountType: OfferDiscountType? { offerDiscountTypeRaw.flatMap(OfferDiscountType.init(rawValue:)) }
    /// `eligibleWinBackOfferIds`: the win-back offers the customer may redeem now (empty when absent).
    public let eligibleWinBackOfferIds: [String]
    /// `renewalBillingPlanType` as written ("MONTHLY", "BILLED_UPFRONT"): how the next period of a
    /// 12-month commitment plan is billed (App Store Server API 1.21).
    public let renewalBillingPlanTypeRaw: String?
    /// What happens when the commitment ends (`commitmentInfo`).
    public let commitment: RenewalCommitment?

    /// The billing plan of the next renewal, when the raw value is one Apple documents.
    public var renewalBillingPlanType: BillingPlanType? { renewalBillingPlanTypeRaw.flatMap(BillingPlanType.init(rawValue:)) }

    /// Whether the next renewal is into another product than the current one: a downgrade or
    /// crossgrade the customer chose, which takes effect at `renewalDate`.
    public var changesProductAtRenewal: Bool {
        guard let next = autoRenewProductId, let current = productId else { return false }
        return next != current
    }

    public init(compactJWS: String) throws {
        let jws = try CompactJWS(compact: compactJWS, what: "JWS renewal info")
        try self.init(payload: try jws.payloadObject("JWS renewal info payload"), jws: jws)
    }

    public init(payload: JSONObject, jws: CompactJWS? = nil) throws {
        self.jws = jws
        self.payload = payload
        originalTransactionId = try payload.string("originalTransactionId")
        productId = try payload.string("productId")
        autoRenewProductId = try payload.string("autoRenewProductId")
        autoRenewStatus = try payload.int("autoRenewStatus")
        expirationIntent = try payload.int("expirationIntent")
        isInBillingRetryPeriod = try payload.bool("isInBillingRetryPeriod")
        gracePeriodExpiresDate = try payload.millisecondsDate("gracePeriodExpiresDate")
        renewalDate = try payload.millisecondsDate("renewalDate")
        recentSubscriptionStartDate = try payload.millisecondsDate("recentSubscriptionStartDate")
        environment = .named(try payload.string("environment"), source: .jwsEnvironment, isSigned: jws != nil)
        signedDate = try payload.millisecondsDate("signedDate")
        priceIncreaseStatus = try payload.int("priceIncreaseStatus")
        offerType = try payload.int("offerType")
        offerIdentifier = try payload.string("offerIdentifier")
        renewalPrice = try payload.int("renewalPrice")
        currency = try payload.string("currency")
        appAccountToken = try payload.string("appAccountToken")
        appTransactionId = try payload.string("appTransactionId")
        offerPeriod = try payload.string("offerPeriod")
        offerDiscountTypeRaw = try payload.string("offerDiscountType")
        eligibleWinBackOfferIds = try payload.strings("eligibleWinBackOfferIds")
        renewalBillingPlanTypeRaw = try payload.string("renewalBillingPlanType")
        commitment = try payload.object("commitmentInfo").map(RenewalCommitment.init)
    }
}

/// A signed app transaction (`AppTransaction`): the app-level facts StoreKit 2 gives in place of
/// the receipt's app fields.
///
///     {"bundleId":"com.example","applicationVersion":"1","originalApplicationVersion":"1",
///      "receiptType":"Xcode","originalPurchaseDate":1697679936049,"signedDate":…}
public struct AppTransaction: Sendable {
    public let jws: CompactJWS?
    public let payload: JSONObject
    public let bundleId: String?
    public let applicationVersion: String?
    public let originalApplicationVersion: String?
    public let originalPurchaseDate: Date?
    public let receiptCreationDate: Date?
    /// `appAppleId`: the app's Apple id (0 or absent outside production).
    public let appAppleId: Int64?
    public let environment: EnvironmentReading
    public let signedDate: Date?
    /// `appTransactionId`: this download's id, the same across reinstalls and devices of one account.
    public let appTransactionId: String?

    /// The instant the chain is validated at and the artefact was made: `signedDate`, else (as
    /// Apple's verifier does) `receiptCreationDate`.
    public var validationDate: Date? { signedDate ?? receiptCreationDate }

    public init(compactJWS: String) throws {
        let jws = try CompactJWS(compact: compactJWS, what: "JWS app transaction")
        try self.init(payload: try jws.payloadObject("JWS app transaction payload"), jws: jws)
    }

    public init(payload: JSONObject, jws: CompactJWS? = nil) throws {
        self.jws = jws
        self.payload = payload
        bundleId = try payload.string("bundleId")
        applicationVersion = try payload.string("applicationVersion")
        originalApplicationVersion = try payload.string("originalApplicationVersion")
        originalPurchaseDate = try payload.millisecondsDate("originalPurchaseDate")
        receiptCreationDate = try payload.millisecondsDate("receiptCreationDate")
        appAppleId = try payload.int("appAppleId")
        let raw = try payload.string("receiptType") ?? payload.string("environment")
        environment = .named(raw, source: .jwsEnvironment, isSigned: jws != nil)
        signedDate = try payload.millisecondsDate("signedDate")
        appTransactionId = try payload.string("appTransactionId")
    }
}
