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
        /// The customer upgraded from this period to another product: it stops at the upgrade.
        case upgraded
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
                        UPDATE transactions SET revocation_date = ?, cancellation_date = ?, revocation_type = ?, revocation_percentage = ?,
                                                is_upgraded = COALESCE(?, is_upgraded), updated_by_apple_at = ?, version = version + 1
                        WHERE transaction_id = ?
                        """, [.date(fact.revocationDate), .date(fact.cancellationDate), .text(fact.revocationTypeRaw),
                              .integer(fact.revocationPercentage), .integer(fact.isUpgraded.map { $0 ? 1 : 0 }), .date(now), .text(fact.transactionId)])
                    if fact.isUpgraded != true {  // an upgrade is not a refund: the order stays paid
                        try database.execute("UPDATE orders SET status = 'refunded', version = version + 1 WHERE transaction_id = ?",
                                             [.text(fact.transactionId)])
                    }
                    changes.append(Self.revocationChange(fact, at: revocation, customerId: stored.customerId))
                } else if revocation != nil, fact.revocationTypeRaw != nil,
                          try Self.revocationFactsDiffer(row, fact) {
                    // Apple said more about a revocation already recorded (its type and share).
                    try database.execute("""
                        UPDATE transactions SET revocation_type = ?, revocation_percentage = ?, updated_by_apple_at = ?, version = version + 1
                        WHERE transaction_id = ?
                        """, [.text(fact.revocationTypeRaw), .integer(fact.revocationPercentage), .date(now), .text(fact.transactionId)])
                    changes.append(Self.revocationChange(fact, at: revocation ?? now, customerId: stored.customerId))
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
                try fillPrice(fact)
                try fillOffer(fact)
                continue
            }
            let owner = try ownerOfAppleFact(fact, byTransactionId: false) ?? customerHint
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

extension PurchaseLedger {
    /// The customer an Apple fact belongs to: the owner of its transaction id, else of its
    /// original transaction. A family member's copy (`FAMILY_SHARED`) has its own transaction id
    /// but the organiser's original: it belongs only to a customer who already holds a
    /// family-shared copy of that original (when exactly one customer does, and did not buy it
    /// too), never to the organiser by the original alone.
    func ownerOfAppleFact(_ fact: IncomingTransaction, byTransactionId: Bool = true) throws -> String? {
        if byTransactionId, let owner = try database.queryFirst("SELECT customer_id FROM transactions WHERE transaction_id = ?",
                                                                 [.text(fact.transactionId)])?.string("customer_id") {
            return owner
        }
        guard let original = fact.originalTransactionId else { return nil }
        if fact.isFamilyShared {
            // Several family members may hold copies of one original: only a single one is sure,
            // and never the organiser (who also bought it).
            let members = try database.query("""
                SELECT DISTINCT customer_id FROM transactions WHERE original_transaction_id = ? AND ownership_type = 'FAMILY_SHARED'
                  AND customer_id NOT IN (SELECT customer_id FROM transactions WHERE (original_transaction_id = ? OR transaction_id = ?)
                                            AND (ownership_type IS NULL OR ownership_type <> 'FAMILY_SHARED'))
                LIMIT 2
                """, [.text(original), .text(original), .text(original)]).compactMap { $0.string("customer_id") }
            return members.count == 1 ? members.first : nil
        }
        return try database.queryFirst("""
            SELECT customer_id FROM transactions WHERE (original_transaction_id = ? OR transaction_id = ?)
              AND (ownership_type IS NULL OR ownership_type <> 'FAMILY_SHARED') LIMIT 1
            """, [.text(original), .text(original)])?.string("customer_id")
    }

    /// The change a revocation made, in words that say its kind: "refunded … (prorated refund
    /// 40%)", "family sharing revoked …", "upgraded …".
    static func revocationChange(_ fact: IncomingTransaction, at date: Date, customerId: String) -> AppleChange {
        let when = RFC3339.format(date)
        if fact.isUpgraded == true {
            return AppleChange(kind: .upgraded, transactionId: fact.transactionId, customerId: customerId, detail: "upgraded \(when)")
        }
        if fact.revocationTypeRaw == RevocationType.familyRevoke.rawValue {
            return AppleChange(kind: .refunded, transactionId: fact.transactionId, customerId: customerId,
                               detail: "family sharing revoked \(when)")
        }
        let kind = RevocationType.describe(raw: fact.revocationTypeRaw, percentage: fact.revocationPercentage).map { " (\($0))" } ?? ""
        return AppleChange(kind: .refunded, transactionId: fact.transactionId, customerId: customerId, detail: "refunded \(when)\(kind)")
    }

    /// Whether a stored row's revocation type or share differs from what Apple now says.
    static func revocationFactsDiffer(_ row: SQLRow, _ fact: IncomingTransaction) throws -> Bool {
        row.string("revocation_type") != fact.revocationTypeRaw || row.int("revocation_percentage") != fact.revocationPercentage
    }
}
