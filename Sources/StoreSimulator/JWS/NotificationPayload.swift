import Foundation
import ReceiptCore

/// A JWS nested in a notification: a payload to sign with the notification's builder, or a
/// compact JWS used as given (signed by someone else, or deliberately broken).
public enum NestedJWS<Payload: Sendable>: Sendable {
    case payload(Payload)
    case compact(String)
}

/// The payload of an App Store Server Notification V2 (`ResponseBodyV2DecodedPayload`). Sample:
///
///     {"notificationType":"SUBSCRIBED","subtype":"INITIAL_BUY",
///      "notificationUUID":"002e14d5-51f5-4503-b5a8-c3a1af68eb20",
///      "data":{"appAppleId":41234,"bundleId":"com.example","bundleVersion":"1.2.3","environment":"Sandbox",
///              "signedTransactionInfo":"<JWS>","signedRenewalInfo":"<JWS>","status":1},
///      "version":"2.0","signedDate":1698148900000}
///
/// Posted to the merchant as `{"signedPayload":"<JWS of this>"}` (`JWSBuilder.notificationBody`).
public struct NotificationPayload: Sendable {
    /// "SUBSCRIBED", "DID_RENEW", "REFUND", "TEST", …
    public var notificationType: String
    /// "INITIAL_BUY", "RESUBSCRIBE", …; nil omits it.
    public var subtype: String?
    /// Unique per notification; receivers deduplicate on it.
    public var notificationUUID: String
    /// Always "2.0" for V2 notifications.
    public var version: String = "2.0"
    /// When Apple signed it (UNIX milliseconds in the JSON).
    public var signedDate: Date
    /// `data`; nil omits it (as for summary notifications).
    public var data: NotificationData?
    /// `appData` (RESCIND_CONSENT, in place of `data`); nil omits it.
    public var appData: NotificationAppDataPayload?
    /// `externalPurchaseToken` (EXTERNAL_PURCHASE_TOKEN, in place of `data`); nil omits it.
    public var externalPurchaseToken: ExternalPurchaseTokenPayload?
    /// Members written last, as given (`summary`, `externalPurchaseToken`, …).
    public var extraMembers: [(String, JSONValue)] = []

    /// A notification from its members.
    public init(notificationType: String, subtype: String? = nil, notificationUUID: String, signedDate: Date,
                data: NotificationData?) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.signedDate = signedDate
        self.data = data
    }

    /// The payload JSON, nested payloads signed with `builder`.
    public func json(signingNestedWith builder: JWSBuilder) throws -> JSONValue {
        var m = JSONMembers()
        m.add("notificationType", notificationType)
        m.add("subtype", subtype)
        m.add("notificationUUID", notificationUUID)
        m.add("data", try data?.json(signingNestedWith: builder))
        m.add("appData", try appData?.json(signingNestedWith: builder))
        m.add("externalPurchaseToken", externalPurchaseToken?.json)
        m.add("version", version)
        m.add("signedDate", milliseconds: signedDate)
        m.append(contentsOf: extraMembers)
        return m.object
    }
}

/// The `data` member of a notification.
///
/// Each stored property is written as the JSON member of the same name (dates as UNIX
/// milliseconds); nil properties are left out.
public struct NotificationData: Sendable {
    public var appAppleId: Int64?
    public var bundleId: String
    public var bundleVersion: String?
    /// "Sandbox" or "Production".
    public var environment: String
    /// The transaction, signed as a nested JWS.
    public var signedTransactionInfo: NestedJWS<TransactionPayload>?
    /// The renewal info, signed as a nested JWS.
    public var signedRenewalInfo: NestedJWS<RenewalInfoPayload>?
    /// Subscription status: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    public var status: Int64?
    /// CONSUMPTION_REQUEST: why the customer asked for a refund (UNINTENDED_PURCHASE,
    /// FULFILLMENT_ISSUE, UNSATISFIED_WITH_PURCHASE, LEGAL, OTHER).
    public var consumptionRequestReason: String?

    /// Notification data from its members.
    public init(appAppleId: Int64? = nil, bundleId: String, bundleVersion: String? = nil, environment: String = "Sandbox",
                signedTransactionInfo: NestedJWS<TransactionPayload>? = nil,
                signedRenewalInfo: NestedJWS<RenewalInfoPayload>? = nil, status: Int64? = nil) {
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.bundleVersion = bundleVersion
        self.environment = environment
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
        self.status = status
    }

    func json(signingNestedWith builder: JWSBuilder) throws -> JSONValue {
        var m = JSONMembers()
        m.add("appAppleId", appAppleId)
        m.add("bundleId", bundleId)
        m.add("bundleVersion", bundleVersion)
        m.add("environment", environment)
        switch signedTransactionInfo {
        case .payload(let payload)?: m.add("signedTransactionInfo", try builder.signedTransaction(payload))
        case .compact(let jws)?: m.add("signedTransactionInfo", jws)
        case nil: break
        }
        switch signedRenewalInfo {
        case .payload(let payload)?: m.add("signedRenewalInfo", try builder.signedRenewalInfo(payload))
        case .compact(let jws)?: m.add("signedRenewalInfo", jws)
        case nil: break
        }
        m.add("status", status)
        m.add("consumptionRequestReason", consumptionRequestReason)
        return m.object
    }
}
