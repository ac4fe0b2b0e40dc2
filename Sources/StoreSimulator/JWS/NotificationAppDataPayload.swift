import Foundation
import ReceiptCore

/// The `appData` member of a RESCIND_CONSENT notification. Sample:
///
///     {"appAppleId":41234,"bundleId":"com.example","environment":"Sandbox",
///      "signedAppTransactionInfo":"<JWS>"}
///
/// Each stored property is written as the JSON member of the same name; nil properties are left out.
public struct NotificationAppDataPayload: Sendable {
    public var appAppleId: Int64?
    public var bundleId: String?
    /// "Sandbox" or "Production".
    public var environment: String?
    /// The customer's app transaction, signed as a nested JWS.
    public var signedAppTransactionInfo: NestedJWS<AppTransactionPayload>?

    /// App data from its members.
    public init(appAppleId: Int64? = nil, bundleId: String?, environment: String?,
                signedAppTransactionInfo: NestedJWS<AppTransactionPayload>?) {
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.environment = environment
        self.signedAppTransactionInfo = signedAppTransactionInfo
    }

    func json(signingNestedWith builder: JWSBuilder) throws -> JSONValue {
        var m = JSONMembers()
        m.add("appAppleId", appAppleId)
        m.add("bundleId", bundleId)
        m.add("environment", environment)
        switch signedAppTransactionInfo {
        case .payload(let payload)?: m.add("signedAppTransactionInfo", try builder.signedAppTransaction(payload))
        case .compact(let jws)?: m.add("signedAppTransactionInfo", jws)
        case nil: break
        }
        return m.object
    }
}

/// The `externalPurchaseToken` member of an EXTERNAL_PURCHASE_TOKEN notification. Sample:
///
///     {"externalPurchaseId":"b2158121-7af9-49d4-9561-1f588205523e","tokenCreationDate":1698148950000,
///      "appAppleId":55555,"bundleId":"com.example"}
///
/// A sandbox token's id starts with `SANDBOX_`.
public struct ExternalPurchaseTokenPayload: Sendable {
    public var externalPurchaseId: String
    public var tokenCreationDate: Date
    public var appAppleId: Int64?
    public var bundleId: String?
    /// "ACQUISITION", "SERVICES", …; nil omits it.
    public var tokenType: String?

    /// A token from its members.
    public init(externalPurchaseId: String, tokenCreationDate: Date, appAppleId: Int64?, bundleId: String?) {
        self.externalPurchaseId = externalPurchaseId
        self.tokenCreationDate = tokenCreationDate
        self.appAppleId = appAppleId
        self.bundleId = bundleId
    }

    var json: JSONValue {
        var m = JSONMembers()
        m.add("externalPurchaseId", externalPurchaseId)
        m.add("tokenCreationDate", milliseconds: tokenCreationDate)
        m.add("appAppleId", appAppleId)
        m.add("bundleId", bundleId)
        m.add("tokenType", tokenType)
        return m.object
    }
}
