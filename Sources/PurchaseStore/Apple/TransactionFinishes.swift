import Foundation
import ReceiptCore

/// That a transaction was finished at Apple (Finish Transaction), when and by whom.
public struct FinishedAtApple: Sendable, Equatable {
    /// When the ledger recorded Apple's 200.
    public let at: Date
    /// The operator (or service) that finished it.
    public let by: String

    public init(at: Date, by: String) {
        self.at = at
        self.by = by
    }
}

/// Telling Apple a transaction was delivered (Finish Transaction): which transaction, and what
/// the ledger knows of it. Made by `PurchaseLedger.planTransactionFinish`, which refuses a
/// transaction that is not delivered.
public struct TransactionFinishPlan: Sendable, Equatable {
    public let transactionId: String
    public let customerId: String
    public let productId: String
    public let environment: Environment
    /// The merchant order it is bound to (paid), when it is bound to one.
    public let orderId: String?
    /// Set when the ledger has it finished at Apple already: nothing more to ask.
    public let finished: FinishedAtApple?

    public var lines: [String] {
        var lines = ["Finish transaction \(transactionId) at Apple (\(customerId), \(productId), \(environment.rawValue.lowercased()))"]
        lines.append(orderId.map { "delivered for order \($0) (paid)" } ?? "delivered: it grants \(customerId) what \(productId) grants")
        if let finished {
            lines.append("already finished at \(RFC3339.format(finished.at)) by \(finished.by): Apple is not asked again")
        } else {
            lines.append("tells Apple (Finish Transaction) the purchase was delivered, then records when and by whom")
        }
        return lines
    }
}

/// How a finish went.
public enum TransactionFinishOutcome: Sendable, Equatable {
    /// Apple was told now; the ledger recorded it and the audit says who and why.
    case finished(FinishedAtApple)
    /// The ledger had it finished before: Apple was not asked again, nothing was written.
    case alreadyFinished(FinishedAtApple)

    /// When and by whom, either way.
    public var finish: FinishedAtApple {
        switch self {
        case .finished(let finish), .alreadyFinished(let finish): return finish
        }
    }
}

extension PurchaseLedger {
    /// The plan to finish `transactionId` at Apple, or the reason it is not delivered. Delivered
    /// means, from the ledger: it holds the transaction, from production or sandbox (the
    /// environments Apple knows); not refunded or revoked (an upgrade counts as delivered); it
    /// grants something (its product is in the catalogue, a consumable's quantity is above 0, a
    /// sandbox purchase belongs to a tester or sandbox is allowed); nobody else claims it (no
    /// open conflict); and its merchant order, when it has one, is paid (not failed or refunded)
    /// and not ambiguous. A transaction finished already is planned as such whatever it is now.
    public func planTransactionFinish(_ transactionId: String) throws -> TransactionFinishPlan {
        guard let t = try transaction(transactionId) else {
            throw StoreError(.notFound, "transaction \(transactionId) is not in the ledger: only a transaction the ledger delivered is finished at Apple (import it first)")
        }
        let environment = Environment(rawValue: t.environment) ?? .unknown
        func plan(_ finished: FinishedAtApple?) -> TransactionFinishPlan {
            TransactionFinishPlan(transactionId: t.transactionId, customerId: t.customerId, productId: t.productId, environment: environment,
                                  orderId: t.orderId, finished: finished)
        }
        if let at = t.finishedAt { return plan(FinishedAtApple(at: at, by: t.finishedBy ?? "unknown")) }
        func refuse(_ why: String) -> StoreError {
            StoreError(.invalidRequest, "transaction \(transactionId) is not delivered: \(why); nothing was asked of Apple")
        }
        guard environment == .production || environment == .sandbox else {
            throw refuse("it is from \(t.environment), which Apple never saw (only production and sandbox transactions are finished)")
        }
        if let date = t.revocationDate ?? t.cancellationDate, t.isUpgraded != true {
            throw refuse("it was \(t.revocationWords ?? "refunded or revoked") on \(RFC3339.format(date))")
        }
        guard let product = configuration.products[t.productId] else {
            throw refuse("it grants nothing: product \(t.productId) is not in the catalogue")
        }
        if product.type == .consumable, t.quantity <= 0 {
            throw refuse("it grants nothing: quantity \(t.quantity)")
        }
        if environment == .sandbox, !configuration.allowSandbox,
           try database.queryFirst("SELECT is_tester FROM customers WHERE customer_id = ?", [.text(t.customerId)])?.bool("is_tester") != true {
            throw refuse("it grants nothing: a sandbox purchase of \(t.customerId), who is not a tester (sandbox.allowSandbox is off)")
        }
        if let conflict = try database.queryFirst("""
            SELECT conflict_id, claimant_customer_id FROM conflicts WHERE transaction_id = ? AND status = 'open' ORDER BY conflict_id
            """, [.text(transactionId)]) {
            throw refuse("conflict #\(conflict.int("conflict_id") ?? 0) is open (\(conflict.string("claimant_customer_id") ?? "?") claims it too): resolve who owns it first")
        }
        if t.orderId == nil, t.binding == OrderBinding.ambiguous.rawValue {
            throw refuse("more than one order fits it (ambiguous binding, listed by `receiptdesk conflicts`): settle which order it pays first")
        }
        if let orderId = t.orderId, let order = try order(orderId), order.status != "paid" {
            throw refuse("its order \(orderId) is \(order.status)" + (order.failureReason.map { " (\($0))" } ?? ""))
        }
        return plan(nil)
    }

    /// Records that Apple answered Finish Transaction for `plan`, once: the transaction's row is
    /// locked (its write key, then the row), read, and written only while it is not finished,
    /// with one audit entry "apple-finish-transaction". When another writer recorded a finish
    /// first, nothing is written and theirs is returned.
    func recordTransactionFinished(_ plan: TransactionFinishPlan, reason: String, operatorName: String, attempts: Int) throws -> TransactionFinishOutcome {
        let now = clock()
        return try database.writeTransaction {
            try database.lockKeys([.transaction(plan.transactionId)])
            guard let row = try database.queryFirstLocking("SELECT customer_id, finished_at, finished_by FROM transactions WHERE transaction_id = ?",
                                                           [.text(plan.transactionId)]) else {
                throw StoreError(.notFound, "transaction \(plan.transactionId) left the ledger while Apple was asked: Apple finished it, the ledger cannot say so")
            }
            if let at = row.date("finished_at") {
                return .alreadyFinished(FinishedAtApple(at: at, by: row.string("finished_by") ?? "unknown"))
            }
            try database.executeChangingOne("""
                UPDATE transactions SET finished_at = ?, finished_by = ?, version = version + 1 WHERE transaction_id = ? AND finished_at IS NULL
                """, [.date(now), .text(operatorName), .text(plan.transactionId)],
                raced: StoreError(.alreadyExists, "transaction \(plan.transactionId) was finished by another writer meanwhile: look again"))
            try audit(now, operatorName, "apple-finish-transaction", "transaction:\(plan.transactionId)", .object([
                ("transactionId", .string(plan.transactionId)), ("customerId", .string(row.string("customer_id") ?? plan.customerId)),
                ("productId", .string(plan.productId)),
                ("environment", .string(plan.environment.rawValue)), ("orderId", .string(plan.orderId)),
                ("reason", .string(reason)), ("attempts", .int(Int64(attempts))),
            ]))
            return .finished(FinishedAtApple(at: now, by: operatorName))
        }
    }
}
