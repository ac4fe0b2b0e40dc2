import Foundation
import ReceiptCore

extension PurchaseLedger {
    /// "Restore purchases on a new account": moves transactions to `customer`, from another
    /// customer (all of theirs, or the ones listed) or from a receipt the customer presents (its
    /// transactions owned by others move; ones never seen are imported). Both owners appear in the
    /// audit. Only what Apple restores moves: non-consumables and subscriptions; consumables stay
    /// with their owner (moving one would let it be spent twice) unless `includeConsumables`.
    /// With `dryRun`, reports what would move and changes nothing (no customer is created). A
    /// restore with nothing to move fails and changes nothing.
    public func restore(customer customerId: String, fromCustomer: String? = nil, transactionIds: [String] = [],
                        receipt: [UInt8]? = nil, reason: String, operatorName: String, includeConsumables: Bool = false,
                        dryRun: Bool = false) throws -> RestoreResult {
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
            try Validate.identifier(customerId, "customer id")
            var moves: [(transactionId: String, fromCustomer: String)] = []
            if let fromCustomer {
                guard fromCustomer != customerId else { throw StoreError(.invalidInput, "restoring from a customer to themselves changes nothing") }
                try requireCustomer(fromCustomer)
                // PostgreSQL: a second restore (or conflict resolution) of these customers waits
                // here, then reads what this one moved.
                try database.lockCustomers([customerId, fromCustomer])
                let owned = try database.query("SELECT transaction_id FROM transactions WHERE customer_id = ? ORDER BY purchase_date",
                                               [.text(fromCustomer)]).compactMap { $0.string("transaction_id") }
                for id in transactionIds where !owned.contains(id) {
                    throw StoreError(.notFound, "transaction \(id) does not belong to customer \(fromCustomer)")
                }
                moves = (transactionIds.isEmpty ? owned : transactionIds).map { ($0, fromCustomer) }
            } else {
                // The owners as they are now, locked (in the one order), then read again: a
                // transaction moves only under its owner's lock, so the second read holds.
                let owners = try receiptTransactions.compactMap { transaction in
                    try database.queryFirst("SELECT customer_id FROM transactions WHERE transaction_id = ?",
                                            [.text(transaction.transactionId)])?.string("customer_id")
                }
                try database.lockCustomers(owners + [customerId])
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
            let consumables = try moves.filter { try isConsumable($0.transactionId) }
            if !includeConsumables { moves.removeAll { move in consumables.contains { $0.transactionId == move.transactionId } } }
            var result = RestoreResult(movedTransactions: moves, importedTransactions: unknown, dryRun: dryRun)
            if includeConsumables { result.consumablesMoved = consumables.count } else { result.consumablesLeft = consumables }
            if dryRun { return result }
            guard !moves.isEmpty || !unknown.isEmpty else {
                let why = consumables.isEmpty ? "no transaction would move"
                    : "only \(Plural.of(consumables.count, "consumable purchase")) would, and Apple does not restore consumables (moving one lets it be spent twice; --include-consumables moves them anyway)"
                throw StoreError(.invalidRequest, "nothing to restore to \(customerId): \(why); nothing changed")
            }
            try ensureCustomer(customerId, now: now)
            for move in moves {
                try moveTransaction(move.transactionId, from: move.fromCustomer, to: customerId)
                try recordTransfer(move.transactionId, from: move.fromCustomer, to: customerId, kind: "restore", reason: reason,
                                   operatorName: operatorName, now: now)
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
            var details: [(String, JSONValue)] = [
                ("from", .array(previousOwners.sorted().map { .string($0) })), ("reason", .string(reason)),
                ("transactions", .array(moves.map { .string($0.transactionId) })), ("imported", .array(unknown.map { .string($0) })),
            ]
            if !result.consumablesLeft.isEmpty { details.append(("consumablesLeft", .array(result.consumablesLeft.map { .string($0.transactionId) }))) }
            if result.consumablesMoved > 0 { details.append(("consumablesMoved", .int(Int64(result.consumablesMoved)))) }
            try audit(now, operatorName, "restore", "customer:\(customerId)", .object(details))
            return result
        }
    }

    /// Whether a stored transaction is a consumable: by its recorded type, else the catalogue's.
    func isConsumable(_ transactionId: String) throws -> Bool {
        guard let row = try database.queryFirst("SELECT product_id, product_type FROM transactions WHERE transaction_id = ?",
                                                [.text(transactionId)]) else { return false }
        if let type = row.string("product_type").flatMap(ProductType.init(rawValue:)) { return type == .consumable }
        return configuration.products[row.string("product_id") ?? ""]?.type == .consumable
    }
}
