import Foundation

/// `appData` of a RESCIND_CONSENT notification (App Store Server Notifications 2.19): the app it
/// concerns and the customer's app transaction, signed as a nested JWS. Sample (Apple's library
/// test `signedRescindConsentNotification.json`):
///
///     "appData":{"appAppleId":41234,"bundleId":"com.example","environment":"LocalTesting",
///                "signedAppTransactionInfo":"<JWS>"}
///
/// It stands in for `data`: the bundle id and environment a verifier checks come from here.
public struct NotificationAppData: Sendable {
    public let appAppleId: Int64?
    public let bundleId: String?
    /// `environment` as Apple wrote it.
    public let rawEnvironment: String?
    /// `signedAppTransactionInfo`, decoded (nil when absent or not a compact JWS).
    public let appTransaction: AppTransaction?
    /// True when `signedAppTransactionInfo` is present but is not a compact JWS.
    public let appTransactionNotJWS: Bool

    public init(_ object: JSONObject) throws {
        appAppleId = try object.int("appAppleId")
        bundleId = try object.string("bundleId")
        rawEnvironment = try object.string("environment")
        if let nested = try object.string("signedAppTransactionInfo") {
            if CompactJWS.looksLikeJWS(Substring(nested)) {
                appTransaction = try AppTransaction(compactJWS: nested)
                appTransactionNotJWS = false
            } else {
                appTransaction = nil
                appTransactionNotJWS = true
            }
        } else {
            appTransaction = nil
            appTransactionNotJWS = false
        }
    }
}

/// `externalPurchaseToken` of an EXTERNAL_PURCHASE_TOKEN notification (subtype UNREPORTED: a
/// token created at least 10 days ago, or expired, that was never reported to Apple). Sample
/// (Apple's library test `signedExternalPurchaseTokenNotification.json`):
///
///     "externalPurchaseToken":{"externalPurchaseId":"b2158121-…","tokenCreationDate":1698148950000,
///                              "appAppleId":55555,"bundleId":"com.example"}
///
/// The token names no environment: an id starting `SANDBOX` is a sandbox token, any other
/// production (as Apple's verifier reads it).
public struct ExternalPurchaseToken: Sendable {
    public let externalPurchaseId: String?
    public let tokenCreationDate: Date?
    public let appAppleId: Int64?
    public let bundleId: String?
    /// `tokenType` ("ACQUISITION", "SERVICES", …) when Apple sends it.
    public let tokenType: String?

    public init(_ object: JSONObject) throws {
        externalPurchaseId = try object.string("externalPurchaseId")
        tokenCreationDate = try object.millisecondsDate("tokenCreationDate")
        appAppleId = try object.int("appAppleId")
        bundleId = try object.string("bundleId")
        tokenType = try object.string("tokenType")
    }

    /// "Sandbox" for an id starting `SANDBOX`, else "Production".
    public var rawEnvironment: String {
        externalPurchaseId?.hasPrefix("SANDBOX") == true ? "Sandbox" : "Production"
    }
}
