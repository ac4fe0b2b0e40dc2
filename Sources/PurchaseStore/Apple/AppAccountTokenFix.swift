import Foundation
import ReceiptCore

/// Setting a purchase's app account token (the order mix-up: a purchase bound to the wrong
/// account), at Apple and in the ledger, so Apple's later notifications carry the right token.
public struct AppAccountTokenPlan: Sendable {
    public let originalTransactionId: String
    public let customerId: String
    public let environment: Environment
    /// The new token, lower-cased.
    public let token: String
    /// The tokens the original's transactions carry now.
    public let currentTokens: [String]
    /// How many transactions of the original the ledger holds.
    public let transactionCount: Int
    /// The order of this customer that already carries the new token, when there is one.
    public let matchingOrder: String?

    public var lines: [String] {
        ["Set the app account token of \(originalTransactionId) (\(customerId), \(environment.rawValue.lowercased())) to \(token)",
         "now: \(currentTokens.isEmpty ? "no token" : currentTokens.joined(separator: ", ")) on \(transactionCount) transaction\(transactionCount == 1 ? "" : "s")",
         matchingOrder.map { "the token is order \($0)'s: Apple's later notifications will match that order" }
            ?? "no order of \(customerId) carries this token yet",
         "at Apple (Set App Account Token) first, then in the ledger"]
    }
}

extension PurchaseLedger {
    /// Checks a token change: the original must be in the ledger, the token a UUID, and no order
    /// of another customer may carry it (that would bind the purchase to someone else).
    public func planAppAccountToken(original: String, token: String) throws -> AppAccountTokenPlan {
        guard let uuid = UUID(uuidString: token.trimmingCharacters(in: .whitespaces)) else {
            throw StoreError(.invalidInput, "app account token '\(token.prefix(40))' is not a UUID (like 7e3fb20b-4cdb-47cc-936d-99d65f608138)")
        }
        let lowered = uuid.uuidString.lowercased()
        let rows = try database.query("""
            SELECT transaction_id, original_transaction_id, customer_id, environment, app_account_token FROM transactions
            WHERE original_transaction_id = ? OR transaction_id = ?
            """, [.text(original), .text(original)])
        guard let first = rows.first else {
            throw StoreError(.notFound, "no transaction \(original) in the ledger: give the purchase's original transaction id")
        }
        let originalId = first.string("original_transaction_id") ?? original
        guard originalId == original else {
            throw StoreError(.invalidInput, "\(original) is not an original transaction id; its original is \(originalId): Apple sets the token on the original")
        }
        let owner = first.string("customer_id") ?? ""
        let environment = Environment(rawValue: first.string("environment") ?? "") ?? .unknown
        guard environment == .production || environment == .sandbox else {
            throw StoreError(.invalidInput, "\(original) is from \(environment.rawValue): Apple sets tokens only on production and sandbox purchases")
        }
        let orders = try database.query("SELECT order_id, customer_id FROM orders WHERE lower(app_account_token) = ?", [.text(lowered)])
        if let other = orders.first(where: { $0.string("customer_id") != owner }) {
            throw StoreError(.invalidInput, "token \(lowered) belongs to order \(other.string("order_id") ?? "?") of customer \(other.string("customer_id") ?? "?"), not \(owner): move the purchase to that customer first (restore or resolve the conflict)")
        }
        let current = Array(Set(rows.compactMap { $0.string("app_account_token") })).sorted()
        return AppAccountTokenPlan(originalTransactionId: originalId, customerId: owner, environment: environment, token: lowered,
                                   currentTokens: current, transactionCount: rows.count, matchingOrder: orders.first?.string("order_id"))
    }

    /// Records a token Apple accepted: every transaction of the original carries it, audited with
    /// the tokens before.
    func recordAppAccountToken(_ plan: AppAccountTokenPlan, reason: String, operatorName: String, attempts: Int) throws {
        try Validate.reason(reason)
        let now = clock()
        try database.writeTransaction {
            try lockCustomerRow(plan.customerId)
            _ = try database.execute("""
                UPDATE transactions SET app_account_token = ?, version = version + 1 WHERE original_transaction_id = ? OR transaction_id = ?
                """, [.text(plan.token), .text(plan.originalTransactionId), .text(plan.originalTransactionId)])
            try addSubscriptionEvent(original: plan.originalTransactionId, customerId: plan.customerId, transactionId: nil,
                                     kind: "token set", type: nil, subtype: nil, at: now,
                                     detail: "app account token set to \(plan.token) by \(operatorName): \(reason)", source: "Set App Account Token")
            try audit(now, operatorName, "apple-set-token", "customer:\(plan.customerId)", .object([
                ("originalTransactionId", .string(plan.originalTransactionId)), ("token", .string(plan.token)),
                ("before", .array(plan.currentTokens.map { .string($0) })), ("order", .string(plan.matchingOrder)),
                ("reason", .string(reason)), ("attempts", .int(Int64(attempts))),
            ]))
        }
    }

    private func lockCustomerRow(_ customerId: String) throws { try database.lockCustomer(customerId) }

    /// Refuses a token plan the ledger has moved past since it was made (another token set, the
    /// purchase moved to another customer), before Apple is asked.
    func checkAppAccountTokenPlan(_ plan: AppAccountTokenPlan) throws {
        let fresh = try planAppAccountToken(original: plan.originalTransactionId, token: plan.token)
        guard fresh.customerId == plan.customerId, fresh.currentTokens == plan.currentTokens else {
            throw StoreError(.alreadyExists, "purchase \(plan.originalTransactionId) changed since the preview (owner \(fresh.customerId), tokens \(fresh.currentTokens.isEmpty ? "none" : fresh.currentTokens.joined(separator: ", "))): nothing was asked of Apple; look again")
        }
    }
}
