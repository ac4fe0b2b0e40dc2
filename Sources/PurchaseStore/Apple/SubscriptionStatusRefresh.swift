import AppStoreAPI
import Foundation
import ReceiptCore

/// Applying a verified Get All Subscription Statuses answer for one customer.
extension PurchaseLedger {
    /// Records each subscription's state and applies the latest signed transactions (a renewal
    /// the ledger lacks is added, an extension moves the expiry, a refund revokes), in one write
    /// transaction, audited as `apple-status`. Returns the customer's subscription states.
    public func applySubscriptionStatuses(_ answer: ServerAPISubscriptionStatuses, customerId: String,
                                          operatorName: String) throws -> (states: [SubscriptionState], changes: [AppleChange]) {
        try Validate.operatorName(operatorName)
        let now = clock()
        return try database.writeTransaction {
            try requireCustomer(customerId)
            var changes: [AppleChange] = []
            var recorded: [String] = []
            for group in answer.groups {
                for last in group.lastTransactions {
                    let transaction = last.transaction.transaction
                    guard let jws = transaction.jws?.text else { continue }
                    let bytes = Array(jws.utf8)
                    let digest = DigestAlgorithm.sha256.hash(bytes).hexString
                    let receiptId = try database.queryFirst("SELECT receipt_id FROM receipts WHERE sha256 = ?", [.text(digest)])?.int("receipt_id")
                        ?? insertReceipt(bytes, digest: digest, artefact: .transaction(transaction), verdict: last.transaction.verdict,
                                         customerId: customerId, source: "Get All Subscription Statuses", now: now, operatorName: operatorName)
                    let facts = IncomingTransaction.from([transaction.purchase], environment: answer.environment).transactions
                        .map { $0.withOffer(of: transaction) }
                    changes += try applyAppleFacts(facts, customerHint: customerId, receiptId: receiptId, now: now)
                    if let state = try recordSubscriptionStatus(transaction: transaction, renewal: last.renewalInfo?.renewalInfo,
                                                                status: last.status, group: group.subscriptionGroupIdentifier,
                                                                customerId: customerId, now: now) {
                        recorded.append("\(state.originalTransactionId) \(state.statusName)")
                    }
                }
            }
            for customer in Set(changes.map(\.customerId) + [customerId]).sorted() { try refreshEntitlements(customer, now: now) }
            try audit(now, operatorName, "apple-status", "customer:\(customerId)", .object([
                ("environment", .string(answer.environment.rawValue)), ("subscriptions", .array(recorded.map { .string($0) })),
                ("changes", .array(changes.map { .string("\($0.kind.rawValue) \($0.transactionId)") })),
                ("rejected", .array(answer.rejected.map { .string($0.description) })),
            ]))
            return (try subscriptionStates(of: customerId), changes)
        }
    }

    /// One transaction id per environment among the customer's auto-renewable subscriptions
    /// (Get All Subscription Statuses answers for the whole Apple account from any of them).
    public func subscriptionAnchors(of customerId: String) throws -> [(transactionId: String, environment: Environment)] {
        let rows = try database.query("""
            SELECT environment, MIN(COALESCE(original_transaction_id, transaction_id)) AS anchor FROM transactions
            WHERE customer_id = ? AND product_type = 'auto-renewable' GROUP BY environment ORDER BY environment
            """, [.text(customerId)])
        return rows.compactMap { row in
            guard let id = row.string("anchor"), let environment = Environment(rawValue: row.string("environment") ?? "") else { return nil }
            return (id, environment)
        }
    }
}
