import Foundation

/// One App Store Server Notification the simulator minted, with the JWS exactly as signed and
/// every attempt to deliver it (Get Notification History answers from these). Saved as JSON;
/// `signedPayload` and `sendAttempts` are optional so state files written before they existed
/// still load (such notifications are simply absent from the history):
///
///     {"notificationUUID":"…","notificationType":"DID_RENEW","environment":"Sandbox",
///      "transactionId":"2000000100000002","originalTransactionId":"2000000100000001",
///      "signedDate":1700000000000,"signedPayload":"eyJhbGciOi…",
///      "sendAttempts":[{"attemptDate":1700000000000,"sendAttemptResult":"SUCCESS"}]}
public struct NotificationRecord: Codable, Sendable, Equatable {
    /// Unique per notification; receivers deduplicate on it.
    public var notificationUUID: String
    /// "DID_RENEW", "REFUND", "EXPIRED", …
    public var notificationType: String
    /// "BILLING_RETRY", "VOLUNTARY", …
    public var subtype: String?
    /// The transaction it is about (nil for TEST and summary notifications).
    public var transactionId: String?
    /// Where it happened.
    public var environment: SimulatorEnvironment
    /// When it was signed.
    public var signedDate: Date
    /// The notification's compact JWS, exactly as minted.
    public var signedPayload: String?
    /// The original transaction of `transactionId` (history filters on either).
    public var originalTransactionId: String?
    /// Each attempt to POST it to the notification URL, oldest first; empty when none was set.
    public var sendAttempts: [NotificationSendAttempt]?

    /// A record of a minted notification.
    public init(notificationUUID: String, notificationType: String, subtype: String?, transactionId: String?,
                environment: SimulatorEnvironment, signedDate: Date) {
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.subtype = subtype
        self.transactionId = transactionId
        self.environment = environment
        self.signedDate = signedDate
    }

    /// Whether any attempt to deliver it failed and none succeeded (history's `onlyFailures`).
    public var hasOnlyFailedAttempts: Bool {
        let attempts = sendAttempts ?? []
        return !attempts.isEmpty && !attempts.contains { $0.result == .success }
    }
}

/// One attempt to POST a notification to the merchant's URL: `{"attemptDate":ms,"sendAttemptResult":"SUCCESS"}`.
public struct NotificationSendAttempt: Codable, Sendable, Equatable {
    /// When it was sent.
    public var attemptDate: Date
    /// How it went.
    public var result: NotificationSendResult

    /// An attempt from its date and result.
    public init(attemptDate: Date, result: NotificationSendResult) {
        self.attemptDate = attemptDate
        self.result = result
    }
}

/// Apple's `sendAttemptResult` values the simulator can produce.
public enum NotificationSendResult: String, Codable, Sendable, CaseIterable {
    /// The receiver answered 2xx.
    case success = "SUCCESS"
    /// Nothing answered (connection refused or closed without an answer).
    case noResponse = "NO_RESPONSE"
    /// The receiver did not answer within the timeout.
    case timedOut = "TIMED_OUT"
    /// The receiver answered with a status outside 200…299.
    case unsuccessfulHTTPResponseCode = "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
    /// The answer was not HTTP.
    case invalidResponse = "INVALID_RESPONSE"
    /// Anything else (the request could not be sent).
    case other = "OTHER"
}
