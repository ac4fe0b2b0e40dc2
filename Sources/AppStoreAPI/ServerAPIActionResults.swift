import Foundation
import ReceiptCore

/// Why a renewal date is extended (`extendReasonCode`).
public enum ExtendReasonCode: Int, Sendable, CaseIterable {
    case undeclared = 0
    case customerSatisfaction = 1
    case other = 2
    case serviceIssueOrOutage = 3

    /// The code in words.
    public var words: String {
        switch self {
        case .undeclared: return "undeclared"
        case .customerSatisfaction: return "customer satisfaction"
        case .other: return "other reasons"
        case .serviceIssueOrOutage: return "service issue or outage"
        }
    }

    /// A code from its number or a word ("outage", "satisfaction", "other", "undeclared").
    public init?(text: String) {
        switch text.lowercased() {
        case "0", "undeclared": self = .undeclared
        case "1", "satisfaction", "customer-satisfaction": self = .customerSatisfaction
        case "2", "other": self = .other
        case "3", "outage", "service-issue": self = .serviceIssueOrOutage
        default: return nil
        }
    }
}

/// Extend a Subscription Renewal Date's answer:
///
///     {"originalTransactionId":"2000000100000001","webOrderLineItemId":"2000000000000001",
///      "success":true,"effectiveDate":1767225600000}
public struct RenewalExtensionAnswer: Sendable {
    public let originalTransactionId: String?
    public let webOrderLineItemId: String?
    /// Whether Apple extended the subscription.
    public let success: Bool
    /// The new expiry when it did.
    public let effectiveDate: Date?
    public let environment: Environment
    public let attempts: [AppStoreAttempt]
}

/// Get Status of Subscription Renewal Date Extensions' answer:
///
///     {"requestIdentifier":"…","complete":true,"completeDate":1767225600000,"succeededCount":30,"failedCount":2}
public struct MassExtensionStatus: Sendable {
    public let requestIdentifier: String
    public let complete: Bool
    public let completeDate: Date?
    public let succeededCount: Int64
    public let failedCount: Int64
    public let attempts: [AppStoreAttempt]
}

/// One notification of Get Notification History: the signed payload as Apple sent it, and how
/// each delivery to the merchant's server went.
public struct NotificationHistoryItem: Sendable {
    public let signedPayload: String
    public let sendAttempts: [NotificationSendAttempt]
}

/// One delivery attempt of a notification (`sendAttemptResult` "SUCCESS", "TIMED_OUT", …).
public struct NotificationSendAttempt: Sendable {
    public let attemptDate: Date?
    public let result: String
}

/// One page of Get Notification History:
///
///     {"notificationHistory":[{"signedPayload":"eyJ…","sendAttempts":[{"attemptDate":1698148900000,
///       "sendAttemptResult":"SUCCESS"}]}],"hasMore":true,"paginationToken":"…"}
public struct NotificationHistoryPage: Sendable {
    public let items: [NotificationHistoryItem]
    public let hasMore: Bool
    /// The token for the next page, when there is one.
    public let paginationToken: String?
    public let attempts: [AppStoreAttempt]
}

/// What Get Notification History is asked for: a period (at most 180 days back), optionally one
/// notification type (and subtype) or one transaction, optionally only failed deliveries.
public struct NotificationHistoryQuery: Sendable, Equatable {
    public var startDate: Date
    public var endDate: Date
    public var notificationType: String?
    public var notificationSubtype: String?
    public var transactionId: String?
    public var onlyFailures: Bool

    public init(startDate: Date, endDate: Date, notificationType: String? = nil, notificationSubtype: String? = nil,
                transactionId: String? = nil, onlyFailures: Bool = false) {
        self.startDate = startDate
        self.endDate = endDate
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.transactionId = transactionId
        self.onlyFailures = onlyFailures
    }

    /// The request body.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("startDate", .int(Self.milliseconds(startDate))), ("endDate", .int(Self.milliseconds(endDate)))]
        if let notificationType { members.append(("notificationType", .string(notificationType))) }
        if let notificationSubtype { members.append(("notificationSubtype", .string(notificationSubtype))) }
        if let transactionId { members.append(("transactionId", .string(transactionId))) }
        if onlyFailures { members.append(("onlyFailures", .bool(true))) }
        return .object(members)
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}

/// Get Test Notification Status' answer.
public struct TestNotificationStatus: Sendable {
    public let signedPayload: String?
    public let sendAttempts: [NotificationSendAttempt]
    public let attempts: [AppStoreAttempt]

    /// The last delivery's result in words ("not delivered yet" when none).
    public var lastResult: String { sendAttempts.last?.result ?? "not delivered yet" }
}
