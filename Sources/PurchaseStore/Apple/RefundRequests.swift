import AppStoreAPI
import Foundation
import ReceiptCore

/// A customer asked Apple for a refund and Apple asked the merchant what they consumed
/// (CONSUMPTION_REQUEST). Apple decides without the merchant's answer after 12 hours.
public struct RefundRequest: Sendable, Equatable {
    public enum Status: String, Sendable, CaseIterable {
        /// Waiting for the merchant's consumption information.
        case open
        /// Consumption information sent; Apple has not decided yet.
        case sent
        /// Apple refunded (REFUND).
        case refunded
        /// Apple declined (REFUND_DECLINED).
        case declined
    }

    public let requestId: Int64
    public let notificationUUID: String
    public let transactionId: String
    public let originalTransactionId: String?
    public let customerId: String?
    public let productId: String?
    public let environment: String
    /// When Apple signed the request.
    public let requestedAt: Date
    /// Apple's deadline for the answer (12 hours after the request).
    public let deadline: Date
    public let status: Status
    /// What was sent, as JSON (nil until sent).
    public let consumption: String?
    public let sentAt: Date?
    public let sentBy: String?
    public let reason: String?
    /// Why the customer asked (Apple's `consumptionRequestReason`, raw: UNINTENDED_PURCHASE, …);
    /// nil when Apple did not say.
    public var requestReason: String? = nil

    /// Apple's consumption request reasons, in words.
    public static func reasonWords(_ raw: String) -> String {
        switch raw {
        case "UNINTENDED_PURCHASE": return "did not mean to buy it (UNINTENDED_PURCHASE)"
        case "FULFILLMENT_ISSUE": return "did not receive it or it did not work (FULFILLMENT_ISSUE)"
        case "UNSATISFIED_WITH_PURCHASE": return "not satisfied with it (UNSATISFIED_WITH_PURCHASE)"
        case "LEGAL": return "a legal reason (LEGAL)"
        case "OTHER": return "another reason (OTHER)"
        default: return "\(raw) (a reason this receiptdesk does not know)"
        }
    }

    /// Whether the deadline passed with nothing sent.
    public func isOverdue(at now: Date) -> Bool { status == .open && deadline <= now }

    /// "due in 3h 20m", "overdue by 1h 5m", "sent", "refunded", "declined".
    public func timing(at now: Date) -> String {
        guard status == .open else { return status.rawValue }
        let seconds = Int(deadline.timeIntervalSince(now))
        let span = Self.span(abs(seconds))
        return seconds > 0 ? "due in \(span)" : "OVERDUE by \(span)"
    }

    static func span(_ seconds: Int) -> String {
        let hours = seconds / 3600, minutes = (seconds % 3600) / 60
        if hours >= 48 { return "\(hours / 24)d \(hours % 24)h" }
        return hours > 0 ? "\(hours)h \(minutes)m" : "\(minutes)m"
    }
}

extension PurchaseLedger {
    /// How long Apple waits for consumption information after a CONSUMPTION_REQUEST.
    public static let consumptionDeadline: TimeInterval = 12 * 3600

    /// Opens a refund request for a CONSUMPTION_REQUEST; closes open or sent ones on REFUND and
    /// REFUND_DECLINED. Inside the caller's write transaction.
    func openRefundRequest(_ notification: ServerNotification, uuid: String, customerId: String?, now: Date) throws {
        guard let transaction = notification.transaction, let id = transaction.purchase.transactionId else { return }
        let signed = notification.signedDate ?? now
        switch notification.notificationType {
        case "CONSUMPTION_REQUEST":
            // Signed with the rest of the notification; kept raw (an unknown reason is still shown).
            let requestReason = try notification.payload.object("data")?.string("consumptionRequestReason")
            try database.execute("""
                INSERT INTO refund_requests (notification_uuid, transaction_id, original_transaction_id, customer_id, product_id,
                                             environment, requested_at, deadline, status, request_reason)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', ?)
                ON CONFLICT (notification_uuid) DO UPDATE SET customer_id = COALESCE(excluded.customer_id, refund_requests.customer_id)
                """, [.text(uuid), .text(id), .text(transaction.purchase.originalTransactionId), .text(customerId),
                      .text(transaction.purchase.productId), .text(notification.environment.environment.rawValue), .date(signed),
                      .date(signed.addingTimeInterval(Self.consumptionDeadline)), .text(requestReason.map { String($0.prefix(64)) })])
        case "REFUND", "REFUND_DECLINED":
            try database.execute("""
                UPDATE refund_requests SET status = ?, outcome_at = ? WHERE transaction_id = ? AND status IN ('open', 'sent')
                """, [.text(notification.notificationType == "REFUND" ? "refunded" : "declined"), .date(signed), .text(id)])
        default:
            return
        }
    }

    /// Refund requests, most urgent first: open ones by deadline, then the rest newest first.
    /// `all` false gives only open and sent ones.
    public func refundRequests(all: Bool = false, customerId: String? = nil, limit: Int = 500) throws -> [RefundRequest] {
        var conditions: [String] = []
        var values: [SQLValue] = []
        if !all { conditions.append("status IN ('open', 'sent')") }
        if let customerId { conditions.append("customer_id = ?"); values.append(.text(customerId)) }
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        values.append(.integer(Int64(max(1, limit))))
        return try database.query("""
            SELECT * FROM refund_requests \(whereClause)
            ORDER BY CASE status WHEN 'open' THEN 0 WHEN 'sent' THEN 1 ELSE 2 END, deadline, request_id LIMIT ?
            """, values).map(Self.refundRequest)
    }

    /// One refund request by its number.
    public func refundRequest(_ requestId: Int64) throws -> RefundRequest {
        guard let row = try database.queryFirst("SELECT * FROM refund_requests WHERE request_id = ?", [.integer(requestId)]) else {
            throw StoreError(.notFound, "refund request #\(requestId) not found: `receiptdesk refunds` lists them")
        }
        return Self.refundRequest(row)
    }

    static func refundRequest(_ row: SQLRow) -> RefundRequest {
        var request = RefundRequest(requestId: row.int("request_id") ?? 0, notificationUUID: row.string("notification_uuid") ?? "",
                      transactionId: row.string("transaction_id") ?? "", originalTransactionId: row.string("original_transaction_id"),
                      customerId: row.string("customer_id"), productId: row.string("product_id"), environment: row.string("environment") ?? "",
                      requestedAt: row.date("requested_at") ?? Date(timeIntervalSince1970: 0),
                      deadline: row.date("deadline") ?? Date(timeIntervalSince1970: 0),
                      status: RefundRequest.Status(rawValue: row.string("status") ?? "") ?? .open, consumption: row.string("consumption"),
                      sentAt: row.date("sent_at"), sentBy: row.string("sent_by"), reason: row.string("reason"))
        request.requestReason = row.string("request_reason")
        return request
    }

    /// Records that consumption information was sent for `request` (after Apple accepted it).
    func markConsumptionSent(_ request: RefundRequest, _ information: ConsumptionInformation, reason: String, operatorName: String,
                             attempts: [AppStoreAttempt], now: Date) throws {
        try database.writeTransaction {
            try database.executeChangingOne("""
                UPDATE refund_requests SET status = 'sent', consumption = ?, sent_at = ?, sent_by = ?, reason = ?
                WHERE request_id = ? AND status = 'open'
                """, [.text(information.json.serialized()), .date(now), .text(operatorName), .text(reason), .integer(request.requestId)],
                raced: StoreError(.alreadyExists, "refund request #\(request.requestId) was answered by another operator meanwhile: this send is not recorded again"))
            try audit(now, operatorName, "apple-consumption", request.customerId.map { "customer:\($0)" } ?? "transaction:\(request.transactionId)", .object([
                ("refundRequest", .int(request.requestId)), ("transactionId", .string(request.transactionId)),
                ("consumption", information.json), ("reason", .string(reason)), ("attempts", .int(Int64(attempts.count))),
            ]))
        }
    }
}
