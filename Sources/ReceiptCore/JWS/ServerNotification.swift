import Foundation

/// An App Store Server Notification V2: `{"signedPayload": "<JWS>"}` or the bare JWS, whose payload is
///
///     {"notificationType":"DID_RENEW","subtype":"…","notificationUUID":"…","version":"2.0",
///      "signedDate":1681314324000,
///      "data":{"appAppleId":1234,"bundleId":"com.example","bundleVersion":"1.2.3",
///              "environment":"Sandbox","signedTransactionInfo":"<JWS>","signedRenewalInfo":"<JWS>","status":1}}
///
/// The nested transaction and renewal info are decoded too. Instead of `data` a payload may carry
/// `summary` (RENEWAL_EXTENSION/SUMMARY), `externalPurchaseToken` (EXTERNAL_PURCHASE_TOKEN) or
/// `appData` (RESCIND_CONSENT); the app and environment are read from whichever is present.
public struct ServerNotification: Sendable {
    public let jws: CompactJWS?
    public let payload: JSONObject
    public let notificationType: String?
    public let subtype: String?
    public let notificationUUID: String?
    public let version: String?
    public let signedDate: Date?
    public let appAppleId: Int64?
    public let bundleId: String?
    public let bundleVersion: String?
    public let status: Int64?
    public let environment: EnvironmentReading
    /// `data.signedTransactionInfo`, decoded.
    public let transaction: SignedTransaction?
    /// `data.signedRenewalInfo`, decoded.
    public let renewalInfo: RenewalInfo?
    /// The nested keys (`data.signedTransactionInfo`, `data.signedRenewalInfo`) present with a
    /// value that is not a compact JWS: nothing vouches for them, so a signed notification
    /// carrying one is invalid.
    public let nestedNotJWS: [String]
    /// `appData` (RESCIND_CONSENT), with its signed app transaction decoded.
    public let appData: NotificationAppData?
    /// `externalPurchaseToken` (EXTERNAL_PURCHASE_TOKEN).
    public let externalPurchaseToken: ExternalPurchaseToken?

    /// `notificationType` typed; nil for a type this version does not know (the raw string stays).
    public var type: NotificationType? { notificationType.flatMap(NotificationType.init(rawValue:)) }

    public init(compactJWS: String) throws {
        let jws = try CompactJWS(compact: compactJWS, what: "notification")
        try self.init(payload: try jws.payloadObject("notification payload"), jws: jws)
    }

    public init(payload: JSONObject, jws: CompactJWS? = nil) throws {
        self.jws = jws
        self.payload = payload
        notificationType = try payload.string("notificationType")
        guard notificationType != nil else {
            throw ReceiptError(.missingField, "\(payload.what): `notificationType` is missing")
        }
        subtype = try payload.string("subtype")
        notificationUUID = try payload.string("notificationUUID")
        version = try payload.string("version")
        signedDate = try payload.millisecondsDate("signedDate")
        let data = try payload.object("data") ?? payload.object("summary")
        let appData = try payload.object("appData").map(NotificationAppData.init)
        let token = try payload.object("externalPurchaseToken").map(ExternalPurchaseToken.init)
        self.appData = appData
        externalPurchaseToken = token
        appAppleId = try data?.int("appAppleId") ?? token?.appAppleId ?? appData?.appAppleId
        bundleId = try data?.string("bundleId") ?? token?.bundleId ?? appData?.bundleId
        bundleVersion = try data?.string("bundleVersion")
        status = try data?.int("status")
        let rawEnvironment = data == nil ? token?.rawEnvironment ?? appData?.rawEnvironment : try data?.string("environment")
        environment = .named(rawEnvironment, source: .jwsEnvironment, isSigned: jws != nil)
        // A nested value that is not compact JWS (as in Apple's unsigned samples) is left
        // undecoded and named, so that the verdict on a signed notification can refuse it.
        var notJWS: [String] = []
        if let nested = try data?.string("signedTransactionInfo") {
            if CompactJWS.looksLikeJWS(Substring(nested)) {
                transaction = try SignedTransaction(compactJWS: nested)
            } else {
                transaction = nil
                notJWS.append("data.signedTransactionInfo")
            }
        } else {
            transaction = nil
        }
        if let nested = try data?.string("signedRenewalInfo") {
            if CompactJWS.looksLikeJWS(Substring(nested)) {
                renewalInfo = try RenewalInfo(compactJWS: nested)
            } else {
                renewalInfo = nil
                notJWS.append("data.signedRenewalInfo")
            }
        } else {
            renewalInfo = nil
        }
        if appData?.appTransactionNotJWS == true { notJWS.append("appData.signedAppTransactionInfo") }
        nestedNotJWS = notJWS
    }
}
