import Foundation
import ReceiptCore

/// One change Apple's word made to the ledger.
public struct AppleChange: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// A transaction the database did not have (a renewal, or one the stored receipt predates).
        case added
        /// Apple refunded or revoked a transaction.
        case refunded
        /// Apple reports a different expiry (a renewal extended it, or it ended early).
        case expiryChanged = "expiry-changed"
        /// Apple reversed a refund (REFUND_REVERSED): the transaction grants again.
        case reinstated
    }
    public let kind: Kind
    public let transactionId: String
    public let customerId: String
    public let detail: String
}

extension PurchaseLedger {
    /// Applies what Apple knows about transactions (from verifyReceipt's `latest_receipt_info`, the
    /// Server API or a notification) inside the caller's write transaction: unknown transactions
    /// are recorded for the customer who owns their original transaction (else `customerHint`);
    /// refunds, revocations and expiry changes update the stored rows. Applying the same facts twice
    /// changes nothing the second time.
    func applyAppleFacts(_ facts: [IncomingTransaction], customerHint: String?, receiptId: Int64?, now: Date) throws -> [AppleChange] {
        var changes: [AppleChange] = []
        for fact in facts {
            if let row = try database.queryFirst("SELECT * FROM transactions WHERE transaction_id = ?", [.text(fact.transactionId)]) {
                let stored = Self.transactionRecord(row)
                let revocation = fact.revocationDate ?? fact.cancellationDate
                if let revocation, stored.revocationDate == nil, stored.cancellationDate == nil {
                    try database.execute("""
                        UPDATE transactions SET revocation_date = ?, cancellation_date = ?, updated_by_apple_at = ?, version = version + 1
                        WHERE transaction_id = ?
                        """, [.date(fact.revocationDate), .date(fact.cancellationDate), .date(now), .text(fact.transactionId)])
                    try database.execute("UPDATE orders SET status = 'refunded', version = version + 1 WHERE transaction_id = ?",
                                         [.text(fact.transactionId)])
                    changes.append(AppleChange(kind: .refunded, transactionId: fact.transactionId, customerId: stored.customerId,
                                               detail: "refunded \(RFC3339.format(revocation))"))
                }
                if let expires = fact.expiresDate, expires != stored.expiresDate,
                   abs(expires.timeIntervalSince(stored.expiresDate ?? .distantPast)) >= 0.001 {
                    try database.execute("""
                        UPDATE transactions SET expires_date = ?, updated_by_apple_at = ?, version = version + 1 WHERE transaction_id = ?
                        """, [.date(expires), .date(now), .text(fact.transactionId)])
                    changes.append(AppleChange(kind: .expiryChanged, transactionId: fact.transactionId, customerId: stored.customerId,
                                               detail: "expires \(stored.expiresDate.map(RFC3339.format) ?? "never") → \(RFC3339.format(expires))"))
                }
                try fillAppTransactionId(fact)
                continue
            }
            let owner = try fact.originalTransactionId.flatMap { original in
                try database.queryFirst("""
                    SELECT customer_id FROM transactions WHERE original_transaction_id = ? OR transaction_id = ? LIMIT 1
                    """, [.text(original), .text(original)])?.string("customer_id")
            } ?? customerHint
            guard let owner, let receiptId else { continue }
            try ensureCustomer(owner, now: now)
            var matcher = OrderMatcher(database: database, customerId: owner)
            let (binding, order) = try matcher.bind(fact, explicitOrder: nil, applicationUsername: nil, newOfSameProduct: 1)
            try insertTransaction(fact, customerId: owner, orderId: order, binding: binding, receiptId: receiptId, now: now)
            if let order {
                try database.execute("UPDATE orders SET status = ?, transaction_id = ?, version = version + 1 WHERE order_id = ?",
                                     [.text(fact.isRefunded ? "refunded" : "paid"), .text(fact.transactionId), .text(order)])
            }
            changes.append(AppleChange(kind: .added, transactionId: fact.transactionId, customerId: owner,
                                       detail: "\(fact.productId) bought \(fact.purchaseDate.map(RFC3339.format) ?? "?")"))
        }
        return changes
    }
}
