import Foundation
import ReceiptCore

extension PurchaseLedger {
    /// "Restore purchases on a new account": moves transactions to `customer`, from another
    /// customer (all of theirs, or the ones listed) or from a receipt the customer presents (its
    /// transactions owned by others move; ones never seen are imported). Both owners appear in the
    /// audit. With `dryRun`, reports what would move and changes nothing.
    public func restore(customer customerId: String, fromCustomer: String? = nil, transactionIds: [String] = [],
                        receipt: [UInt8]? = nil, reason: String, operatorName: String, dryRun: Bool = false) throws -> RestoreResult {
        try Validate.operatorName(operatorName)
        try Validate.reason(reason)
        guard (fromCustomer == nil) != (receipt == nil) else {
            throw StoreError(.invalidInput, "restore from either another customer (--from-customer) or a receipt (--receipt), not both")
        }
        var receiptTransactions: [IncomingTransaction] = []
        if let receipt {
            let artefact = try ReceiptDecoder.decode(receipt)
            let verdict = verifier.verify(artefact)
            guard verdict.isValid else {
                throw StoreError(.invalidRequest, "the receipt is \(verdict.status.rawValue) (\(verdict.reason)): nothing restored from it")
            }
            receiptTransactions = IncomingTransaction.all(in: artefact).transactions
        }
        let now = clock()
        return try database.writeTransaction {
            try ensureCustomer(customerId, now: now)
            var moves: [(transactionId: String, fromCustomer: String)] = []
            if let fromCustomer {
                guard fromCustomer != customerId else { throw StoreError(.invalidInput, "restoring from a customer to themselves changes nothing") }
                try requireCustomer(fromCustomer)
                let owned = try database.query("SELECT transaction_id FROM transactions WHERE customer_id = ? ORDER BY purchase_date",
                                               [.text(fromCustomer)]).compactMap { $0.string("transaction_id") }
                for id in transactionIds where !owned.contains(id) {
                    throw StoreError(.notFound, "transaction \(id) does not belong to customer \(fromCustomer)")
                }
                moves = (transactionIds.isEmpty ? owned : transactionIds).map { ($0, fromCustomer) }
            } else {
                for transaction in receiptTransactions {
                    if let owner = try database.queryFirst("SELECT customer_id FROM transactions WHERE transaction_id = ?",
                                                           [.text(transaction.transactionId)])?.string("customer_id"), owner != customerId {
                        moves.append((transaction.transactionId, owner))
                    }
                }
            }
            let unknown = try receiptTransactions.filter { transaction in
                try database.queryFirst("SELECT 1 AS found FROM transactions WHERE transaction_id = ?", [.text(transaction.transactionId)]) == nil
            }.map(\.transactionId)
            if dryRun || (moves.isEmpty && unknown.isEmpty) {
                return RestoreResult(movedTransactions: moves, importedTransactions: unknown, dryRun: dryRun)
            }
            for move in moves {
                try moveTransaction(move.transactionId, from: move.fromCustomer, to: customerId)
                try database.execute("""
                    UPDATE conflicts SET status = 'resolved', resolved_owner = ?, resolved_at = ?, resolved_by = ?, resolution_reason = ?
                    WHERE transaction_id = ? AND claimant_customer_id = ? AND status = 'open'
                    """, [.text(customerId), .date(now), .text(operatorName), .text("restored: " + reason),
                          .text(move.transactionId), .text(customerId)])
            }
            if let receipt, !unknown.isEmpty {
                _ = try importArtefact(receipt, customer: customerId, source: "restore", operatorName: operatorName)
            }
            let previousOwners = Set(moves.map(\.fromCustomer))
            for owner in previousOwners.sorted() {
                try refreshEntitlements(owner, now: now)
                try audit(now, operatorName, "transfer-out", "customer:\(owner)", .object([
                    ("to", .string(customerId)), ("reason", .string(reason)),
                    ("transactions", .array(moves.filter { $0.fromCustomer == owner }.map { .string($0.transactionId) })),
                ]))
            }
            try refreshEntitlements(customerId, now: now)
            try audit(now, operatorName, "restore", "customer:\(customerId)", .object([
                ("from", .array(previousOwners.sorted().map { .string($0) })), ("reason", .string(reason)),
                ("transactions", .array(moves.map { .string($0.transactionId) })), ("imported", .array(unknown.map { .string($0) })),
            ]))
            return RestoreResult(movedTransactions: moves, importedTransactions: unknown, dryRun: false)
        }
    }
}
