import Foundation
import ReceiptCore

/// A batch item failed after it began writing: the batch's transaction is abandoned and run again
/// with a savepoint around each item (see `PurchaseLedger.importBatch`).
struct BatchItemWriteFailed: Error {
    let underlying: Error
}

extension PurchaseLedger {
    /// What an import will write, worked out by reads alone.
    struct ImportPlan {
        let prepared: PreparedImport
        let existingReceipt: Int64?
        let fresh: [IncomingTransaction]
        let newConflicts: [(IncomingTransaction, String)]
        /// Duplicates and conflicts already open, in the artefact's order.
        let reports: [ImportResult.TransactionReport]
    }

    /// An import either changes nothing or has a plan to write.
    enum PlannedImport {
        case nothingNew(ImportResult)
        case write(ImportPlan)
    }

    /// Applies a prepared import inside the caller's write transaction (entitlements not refreshed).
    func applyImport(_ prepared: PreparedImport, now: Date) throws -> ImportResult {
        switch try planImport(prepared) {
        case .nothingNew(let result): return try traced(result, prepared, now: now)
        case .write(let plan): return try writeImport(plan, now: now)
        }
    }

    /// An import that changed nothing still leaves a trace of each transaction that arrived again.
    func traced(_ result: ImportResult, _ p: PreparedImport, now: Date) throws -> ImportResult {
        try recordRepeats(result.transactions, source: Self.arrivalSource(result.receiptId, p), receiptId: result.receiptId,
                          presentedFor: p.customerId, operatorName: p.operatorName, now: now)
        return result
    }

    /// "receipt #12 (import r.b64)", or the source alone for an artefact not kept.
    static func arrivalSource(_ receiptId: Int64?, _ p: PreparedImport) -> String {
        receiptId.map { "receipt #\($0) (\(p.source))" } ?? p.source
    }

    /// Applies a batch's prepared items inside the caller's write transaction, then refreshes the
    /// entitlements of every customer it changed. An item whose checks fail (an unknown order, …)
    /// is reported and leaves no trace, since checks only read. `isolated` puts a savepoint around
    /// each item, so that one failing halfway through its writes is undone alone; without it such
    /// a failure throws `BatchItemWriteFailed` and the caller rolls the batch back.
    func applyBatch(count: Int, _ item: (Int) -> Result<PreparedImport, Error>, isolated: Bool,
                    firstIndex: Int = 0) throws -> [Result<ImportResult, Error>] {
        var touched = Set<String>()
        var results: [Result<ImportResult, Error>] = []
        results.reserveCapacity(count)
        for index in 0..<count {
            let outcome: Result<ImportResult, Error>
            let prepared = item(index)
            switch prepared {
            case .failure(let error):
                outcome = .failure(error)
            case .success(let ready) where isolated:
                outcome = Result { try database.savepoint { try applyImport(ready, now: clock()) } }
            case .success(let ready):
                switch Result(catching: { try planImport(ready) }) {
                case .failure(let error): outcome = .failure(error)
                case .success(.nothingNew(let result)):
                    do {
                        outcome = .success(try traced(result, ready, now: clock()))
                    } catch {
                        throw BatchItemWriteFailed(underlying: error)
                    }
                case .success(.write(let plan)):
                    do {
                        outcome = .success(try writeImport(plan, now: clock()))
                    } catch {
                        throw BatchItemWriteFailed(underlying: error)
                    }
                }
            }
            if case .success(let result) = outcome, result.changedDatabase, case .success(let ready) = prepared {
                touched.insert(ready.customerId)
            }
            results.append(outcome)
            importItemWritten?(firstIndex + index)
        }
        try refreshEntitlements(touched.sorted())
        return results
    }

    /// The checks and look-ups of an import: reads only, so a failure here leaves nothing to undo.
    func planImport(_ p: PreparedImport) throws -> PlannedImport {
        let customerId = p.customerId
        if let orderId = p.orderId {
            let owner = try importSnapshot?.orderCustomer(orderId)
                ?? database.queryFirst("SELECT customer_id FROM orders WHERE order_id = ?", [.text(orderId)]).map { $0.string("customer_id") ?? "?" }
            guard let owner else {
                throw StoreError(.notFound, "order \(orderId) not found: create it with `receiptdesk order create`")
            }
            guard owner == customerId else {
                throw StoreError(.invalidRequest, "order \(orderId) belongs to customer \(owner), not \(customerId)")
            }
        }
        let existingReceipt: Int64?
        let owners: [String: String]
        if let snapshot = importSnapshot {
            existingReceipt = snapshot.receiptId(digest: p.digest)
            owners = snapshot.owners(of: p.incoming.map(\.transactionId))
        } else {
            existingReceipt = try database.queryFirst("SELECT receipt_id FROM receipts WHERE sha256 = ?", [.text(p.digest)])?.int("receipt_id")
            owners = try self.owners(of: p.incoming.map(\.transactionId))
        }
        var fresh: [IncomingTransaction] = []
        var reports: [ImportResult.TransactionReport] = []
        var newConflicts: [(IncomingTransaction, String)] = []
        for transaction in p.incoming {
            switch owners[transaction.transactionId] {
            case nil: fresh.append(transaction)
            case customerId?:
                reports.append(.init(transactionId: transaction.transactionId, productId: transaction.productId, outcome: .duplicate))
            case let other?:
                if let open = try database.queryFirst("SELECT conflict_id FROM conflicts WHERE transaction_id = ? AND claimant_customer_id = ?",
                                                      [.text(transaction.transactionId), .text(customerId)])?.int("conflict_id") {
                    reports.append(.init(transactionId: transaction.transactionId, productId: transaction.productId,
                                         outcome: .conflict(owner: other, conflictId: open)))
                } else {
                    newConflicts.append((transaction, other))
                }
            }
        }
        let storesReceipt = existingReceipt == nil && (p.incoming.isEmpty || !fresh.isEmpty || !newConflicts.isEmpty)
        guard storesReceipt || !fresh.isEmpty || !newConflicts.isEmpty else {
            return .nothingNew(ImportResult(receiptId: existingReceipt, changedDatabase: false, format: p.artefact.format,
                                            environment: p.summary.environment.environment, verdict: p.verdict,
                                            transactions: reports, notes: try importNotes(p) + [Self.nothingNew(existingReceipt, p)]))
        }
        return .write(ImportPlan(prepared: p, existingReceipt: existingReceipt, fresh: fresh, newConflicts: newConflicts, reports: reports))
    }

    /// Why an import changed nothing, in words that fit the case: an invalid receipt stored
    /// before (its transactions never recorded), one that holds none, or transactions all known.
    static func nothingNew(_ existingReceipt: Int64?, _ p: PreparedImport) -> String {
        let stored = existingReceipt.map { "receipt #\($0)" } ?? "this receipt"
        if !p.verdict.isValid {
            return "nothing new: \(stored) was already stored and flagged \(p.verdict.status.rawValue) (\(p.verdict.reason)); its transactions are not recorded"
        }
        if p.incoming.isEmpty { return "nothing new: \(stored) was already stored; it holds no transaction" }
        guard existingReceipt != nil else { return "nothing new: every transaction in it was already recorded from other receipts" }
        return "nothing new: \(stored) was already stored and every transaction in it was already recorded"
    }

    /// The owner of each of `transactionIds` that is already recorded, in one look-up per 64 ids
    /// (the list padded to a power of two, so a handful of statements serve every length).
    func owners(of transactionIds: [String]) throws -> [String: String] {
        var owners: [String: String] = [:]
        var start = 0
        while start < transactionIds.count {
            let chunk = Array(transactionIds[start..<min(start + 64, transactionIds.count)])
            start += chunk.count
            var width = 1
            while width < chunk.count { width *= 2 }
            let padded = chunk + Array(repeating: chunk[chunk.count - 1], count: width - chunk.count)
            let placeholders = SQLDialect.placeholders(width)
            for row in try database.query("SELECT transaction_id, customer_id FROM transactions WHERE transaction_id IN (\(placeholders))",
                                          padded.map { .text($0) }) {
                if let id = row.string("transaction_id"), let owner = row.string("customer_id") { owners[id] = owner }
            }
        }
        return owners
    }

    /// The writes of a planned import: the customer, the receipt, the new transactions bound to
    /// their orders, the conflicts and the audit entry.
    func writeImport(_ plan: ImportPlan, now: Date) throws -> ImportResult {
        let p = plan.prepared
        let (customerId, orderId, artefact, verdict) = (p.customerId, p.orderId, p.artefact, p.verdict)
        let summary = p.summary
        var reports = plan.reports
        try ensureCustomer(customerId, now: now)
        let receiptId: Int64
        if let existing = plan.existingReceipt {
            receiptId = existing
        } else {
            receiptId = try insertReceipt(p.bytes, digest: p.digest, artefact: artefact, verdict: verdict, decodedJSON: p.decodedJSON,
                                          summary: summary, customerId: customerId, source: p.source, now: now, operatorName: p.operatorName)
            entitlementCache?.storedReceipt(valid: verdict.status == .valid, summary: summary, for: customerId)
        }
        var matcher = OrderMatcher(database: database, customerId: customerId, snapshot: importSnapshot)
        for transaction in plan.fresh {
            let sameProduct = plan.fresh.filter { $0.productId == transaction.productId }.count
            let (binding, boundOrder) = try matcher.bind(transaction, explicitOrder: orderId, applicationUsername: p.applicationUsername,
                                                         newOfSameProduct: sameProduct)
            try insertTransaction(transaction, customerId: customerId, orderId: boundOrder, binding: binding, receiptId: receiptId, now: now)
            entitlementCache?.recorded(transaction, for: customerId)
            if let boundOrder {
                let status = transaction.isRefunded ? "refunded" : "paid"
                try database.executeLater("""
                    UPDATE orders SET status = ?, transaction_id = ?, version = version + 1 WHERE order_id = ?
                    """, [.text(status), .text(transaction.transactionId), .text(boundOrder)])
                importSnapshot?.boundOrder(boundOrder, transactionId: transaction.transactionId, status: status)
            }
            reports.append(.init(transactionId: transaction.transactionId, productId: transaction.productId,
                                 outcome: .recorded(binding: binding, orderId: boundOrder)))
        }
        for (transaction, owner) in plan.newConflicts {
            try database.execute("""
                INSERT INTO conflicts (transaction_id, owner_customer_id, claimant_customer_id, receipt_id, opened_at, status)
                VALUES (?, ?, ?, ?, ?, 'open')
                """, [.text(transaction.transactionId), .text(owner), .text(customerId), .integer(receiptId), .date(now)])
            let id = try database.queryFirst("SELECT conflict_id FROM conflicts WHERE transaction_id = ? AND claimant_customer_id = ?",
                                             [.text(transaction.transactionId), .text(customerId)])?.int("conflict_id") ?? 0
            reports.append(.init(transactionId: transaction.transactionId, productId: transaction.productId,
                                 outcome: .conflict(owner: owner, conflictId: id)))
        }
        try audit(now, p.operatorName, "import", "customer:\(customerId)", .object([
            ("receiptId", .int(receiptId)), ("sha256", .string(p.digest)), ("format", .string(artefact.format.rawValue)),
            ("environment", .string(summary.environment.environment.rawValue)), ("verdict", .string(verdict.status.rawValue)),
            ("source", .string(p.source)), ("order", .string(orderId)),
            ("recorded", .array(reports.compactMap { report -> JSONValue? in
                guard case .recorded(let binding, let order) = report.outcome else { return nil }
                return .object([("transactionId", .string(report.transactionId)), ("binding", .string(binding.rawValue)),
                                ("orderId", .string(order))])
            })),
            ("duplicates", .array(reports.filter { $0.outcome == .duplicate }.map { .string($0.transactionId) })),
            ("conflicts", .array(plan.newConflicts.map { .object([("transactionId", .string($0.0.transactionId)), ("owner", .string($0.1))]) })),
        ]))
        try recordRepeats(reports, source: Self.arrivalSource(receiptId, p), receiptId: receiptId, presentedFor: customerId,
                          operatorName: p.operatorName, now: now)
        return ImportResult(receiptId: receiptId, changedDatabase: true, format: artefact.format,
                            environment: summary.environment.environment, verdict: verdict, transactions: reports, notes: try importNotes(p))
    }

    /// The notes an import reports: the sandbox note only when it applies, that is when
    /// allowSandbox is off and the customer is not a tester.
    func importNotes(_ p: PreparedImport) throws -> [String] {
        guard let note = p.sandboxNote, !configuration.allowSandbox else { return p.notes }
        let tester = try importSnapshot?.isTester(p.customerId)
            ?? database.queryFirst("SELECT is_tester FROM customers WHERE customer_id = ?", [.text(p.customerId)])?.bool("is_tester") ?? false
        return tester ? p.notes : p.notes + [note]
    }
}
