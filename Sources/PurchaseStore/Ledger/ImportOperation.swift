import Foundation
import ReceiptCore

extension PurchaseLedger {
    /// Imports one artefact (receipt, JWS, notification, Apple's answer) for a customer.
    ///
    /// The receipt is stored once (same bytes again change nothing); each transaction it carries is
    /// recorded once by transaction id. A repeat is reported as a duplicate; a transaction another
    /// customer owns opens a conflict and grants nothing. Invalid or unverifiable artefacts are
    /// stored and flagged, and record nothing.
    public func importArtefact(_ input: [UInt8], customer customerId: String, orderId: String? = nil,
                               applicationUsername: String? = nil, source: String, operatorName: String) throws -> ImportResult {
        let prepared = try prepareImport(input, customer: customerId, orderId: orderId, applicationUsername: applicationUsername,
                                         source: source, operatorName: operatorName)
        return try database.writeTransaction {
            let result = try applyImport(prepared, now: clock())
            if result.changedDatabase { try refreshEntitlements(customerId, now: clock()) }
            return result
        }
    }

    /// One artefact of a batch import.
    public struct ImportItem: Sendable {
        public let bytes: [UInt8]
        public let customer: String
        public let orderId: String?
        public let applicationUsername: String?
        public let source: String

        public init(bytes: [UInt8], customer: String, orderId: String? = nil, applicationUsername: String? = nil, source: String) {
            self.bytes = bytes
            self.customer = customer
            self.orderId = orderId
            self.applicationUsername = applicationUsername
            self.source = source
        }
    }

    /// Imports many artefacts in one write transaction, each inside its own savepoint: an artefact
    /// that fails leaves no trace and the others still apply; each customer's entitlements are
    /// recomputed once at the end. Decoding and verification happen before the transaction.
    /// A crash leaves the whole batch applied or absent.
    public func importBatch(_ items: [ImportItem], operatorName: String) throws -> [Result<ImportResult, Error>] {
        // Decoding and verifying is CPU work without the database: spread it over the cores.
        let slots = PreparedSlots(count: items.count)
        let (verifier, now) = (self.verifier, clock())
        DispatchQueue.concurrentPerform(iterations: items.count) { index in
            let item = items[index]
            slots.set(index, Result { try Self.prepare(item.bytes, customer: item.customer, orderId: item.orderId,
                                                       applicationUsername: item.applicationUsername, source: item.source,
                                                       operatorName: operatorName, verifier: verifier, now: now) })
        }
        let prepared = slots.values
        return try database.writeTransaction {
            var touched = Set<String>()
            let results = prepared.map { entry -> Result<ImportResult, Error> in
                Result {
                    let ready = try entry.get()
                    let result = try database.savepoint { try applyImport(ready, now: clock()) }
                    if result.changedDatabase { touched.insert(ready.customerId) }
                    return result
                }
            }
            for customer in touched.sorted() { try refreshEntitlements(customer, now: clock()) }
            return results
        }
    }

    /// Decoded and verified, ready to apply.
    struct PreparedImport {
        let bytes: [UInt8]
        let customerId: String
        let orderId: String?
        let applicationUsername: String?
        let source: String
        let operatorName: String
        let artefact: DecodedArtefact
        let verdict: Verdict
        let incoming: [IncomingTransaction]
        let notes: [String]
        let digest: String
        /// What the receipts table keeps as `decoded_json`.
        let decodedJSON: String
    }

    /// Results written by concurrent workers, one slot each.
    final class PreparedSlots: @unchecked Sendable {
        // Each index is written by exactly one worker, under the lock.
        private let lock = NSLock()
        private var slots: [Result<PreparedImport, Error>?]
        init(count: Int) { slots = Array(repeating: nil, count: count) }
        func set(_ index: Int, _ value: Result<PreparedImport, Error>) { lock.lock(); slots[index] = value; lock.unlock() }
        var values: [Result<PreparedImport, Error>] {
            lock.lock()
            defer { lock.unlock() }
            return slots.map { $0 ?? .failure(StoreError(.sql, "an import item was not prepared")) }
        }
    }

    /// Decodes and verifies outside any transaction (the CPU work).
    func prepareImport(_ input: [UInt8], customer customerId: String, orderId: String?, applicationUsername: String?,
                       source: String, operatorName: String) throws -> PreparedImport {
        try Self.prepare(input, customer: customerId, orderId: orderId, applicationUsername: applicationUsername, source: source,
                         operatorName: operatorName, verifier: verifier, now: clock())
    }

    /// The CPU part of an import, safe to run on any thread.
    static func prepare(_ input: [UInt8], customer customerId: String, orderId: String?, applicationUsername: String?,
                        source: String, operatorName: String, verifier: ReceiptVerifier, now: Date) throws -> PreparedImport {
        try Validate.operatorName(operatorName)
        // A pasted verifyReceipt request carries the shared secret: only its receipt is kept.
        let bytes = try ReceiptDecoder.artefactBytes(input)
        try Validate.identifier(customerId, "customer id")
        let artefact = try ReceiptDecoder.decode(bytes)
        let verdict = verifier.verify(artefact)
        let summary = artefact.summary
        var notes: [String] = []
        var incoming: [IncomingTransaction] = []
        if verdict.isValid {
            let found = IncomingTransaction.all(in: artefact)
            incoming = found.transactions
            notes += found.skipped
            if summary.environment.environment != .production {
                notes.append("\(summary.environment.environment.badge) purchases are flagged; they grant nothing unless the customer is a tester or allowSandbox is on")
            }
        } else {
            notes.append("\(verdict.status.rawValue): \(verdict.reason): stored and flagged, grants nothing")
        }
        return PreparedImport(bytes: bytes, customerId: customerId, orderId: orderId, applicationUsername: applicationUsername,
                              source: source, operatorName: operatorName, artefact: artefact, verdict: verdict, incoming: incoming,
                              notes: notes, digest: DigestAlgorithm.sha256.hash(bytes).hexString,
                              decodedJSON: DecodeReport.json(artefact, verdict: verdict, now: now, includeTree: false).serialized())
    }

    /// Applies a prepared import inside the caller's write transaction (entitlements not refreshed).
    func applyImport(_ p: PreparedImport, now: Date) throws -> ImportResult {
        let (bytes, customerId, orderId, applicationUsername, source, operatorName) =
            (p.bytes, p.customerId, p.orderId, p.applicationUsername, p.source, p.operatorName)
        let (artefact, verdict, incoming, notes, digest) = (p.artefact, p.verdict, p.incoming, p.notes, p.digest)
        let summary = artefact.summary
        do {
            if let orderId {
                guard let order = try database.queryFirst("SELECT customer_id FROM orders WHERE order_id = ?", [.text(orderId)]) else {
                    throw StoreError(.notFound, "order \(orderId) not found: create it with `receiptdesk order create`")
                }
                guard order.string("customer_id") == customerId else {
                    throw StoreError(.invalidRequest, "order \(orderId) belongs to customer \(order.string("customer_id") ?? "?"), not \(customerId)")
                }
            }
            let existingReceipt = try database.queryFirst("SELECT receipt_id FROM receipts WHERE sha256 = ?", [.text(digest)])?.int("receipt_id")
            var fresh: [IncomingTransaction] = []
            var reports: [ImportResult.TransactionReport] = []
            var newConflicts: [(IncomingTransaction, String)] = []
            for transaction in incoming {
                let owner = try database.queryFirst("SELECT customer_id FROM transactions WHERE transaction_id = ?",
                                                    [.text(transaction.transactionId)])?.string("customer_id")
                switch owner {
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
            let storesReceipt = existingReceipt == nil && (incoming.isEmpty || !fresh.isEmpty || !newConflicts.isEmpty)
            guard storesReceipt || !fresh.isEmpty || !newConflicts.isEmpty else {
                return ImportResult(receiptId: existingReceipt, changedDatabase: false, format: artefact.format,
                                    environment: summary.environment.environment, verdict: verdict, transactions: reports,
                                    notes: notes + ["nothing new: every transaction was already recorded"])
            }
            try ensureCustomer(customerId, now: now)
            let receiptId = try existingReceipt ?? insertReceipt(bytes, digest: digest, artefact: artefact, verdict: verdict, decodedJSON: p.decodedJSON,
                                                                 customerId: customerId, source: source, now: now,
                                                                 operatorName: operatorName)
            var matcher = OrderMatcher(database: database, customerId: customerId)
            for transaction in fresh {
                let sameProduct = fresh.filter { $0.productId == transaction.productId }.count
                let (binding, boundOrder) = try matcher.bind(transaction, explicitOrder: orderId, applicationUsername: applicationUsername,
                                                             newOfSameProduct: sameProduct)
                try insertTransaction(transaction, customerId: customerId, orderId: boundOrder, binding: binding,
                                      receiptId: receiptId, now: now)
                if let boundOrder {
                    try database.execute("""
                        UPDATE orders SET status = ?, transaction_id = ?, version = version + 1 WHERE order_id = ?
                        """, [.text(transaction.isRefunded ? "refunded" : "paid"), .text(transaction.transactionId), .text(boundOrder)])
                }
                reports.append(.init(transactionId: transaction.transactionId, productId: transaction.productId,
                                     outcome: .recorded(binding: binding, orderId: boundOrder)))
            }
            for (transaction, owner) in newConflicts {
                try database.execute("""
                    INSERT INTO conflicts (transaction_id, owner_customer_id, claimant_customer_id, receipt_id, opened_at, status)
                    VALUES (?, ?, ?, ?, ?, 'open')
                    """, [.text(transaction.transactionId), .text(owner), .text(customerId), .integer(receiptId), .date(now)])
                let id = try database.queryFirst("SELECT conflict_id FROM conflicts WHERE transaction_id = ? AND claimant_customer_id = ?",
                                                 [.text(transaction.transactionId), .text(customerId)])?.int("conflict_id") ?? 0
                reports.append(.init(transactionId: transaction.transactionId, productId: transaction.productId,
                                     outcome: .conflict(owner: owner, conflictId: id)))
            }
            try audit(now, operatorName, "import", "customer:\(customerId)", .object([
                ("receiptId", .int(receiptId)), ("sha256", .string(digest)), ("format", .string(artefact.format.rawValue)),
                ("environment", .string(summary.environment.environment.rawValue)), ("verdict", .string(verdict.status.rawValue)),
                ("source", .string(source)), ("order", .string(orderId)),
                ("recorded", .array(reports.compactMap { report -> JSONValue? in
                    guard case .recorded(let binding, let order) = report.outcome else { return nil }
                    return .object([("transactionId", .string(report.transactionId)), ("binding", .string(binding.rawValue)),
                                    ("orderId", .string(order))])
                })),
                ("duplicates", .array(reports.filter { $0.outcome == .duplicate }.map { .string($0.transactionId) })),
                ("conflicts", .array(newConflicts.map { .object([("transactionId", .string($0.0.transactionId)), ("owner", .string($0.1))]) })),
            ]))
            return ImportResult(receiptId: receiptId, changedDatabase: true, format: artefact.format,
                                environment: summary.environment.environment, verdict: verdict, transactions: reports, notes: notes)
        }
    }

    func insertReceipt(_ bytes: [UInt8], digest: String, artefact: DecodedArtefact, verdict: Verdict, decodedJSON: String? = nil,
                       customerId: String?, source: String, now: Date, operatorName: String) throws -> Int64 {
        let summary = artefact.summary
        let decoded = decodedJSON ?? DecodeReport.json(artefact, verdict: verdict, now: now, includeTree: false).serialized()
        let rows = try database.query("""
            INSERT INTO receipts (sha256, raw, format, environment, verdict, verdict_reason, decoded_json, bundle_id,
                                  original_app_version, original_purchase_date, source, customer_id, imported_at, imported_by)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING receipt_id
            """, [.text(digest), .blob(bytes), .text(artefact.format.rawValue), .text(summary.environment.environment.rawValue),
                  .text(verdict.status.rawValue), .text(verdict.reason), .text(decoded), .text(summary.bundleId),
                  .text(summary.originalAppVersion), .date(summary.originalPurchaseDate), .text(source), .text(customerId),
                  .date(now), .text(operatorName)])
        guard let id = rows.first?.int("receipt_id") else { throw StoreError(.sql, "storing the receipt returned no id") }
        return id
    }

    func insertTransaction(_ t: IncomingTransaction, customerId: String, orderId: String?, binding: OrderBinding,
                                   receiptId: Int64, now: Date) throws {
        try database.execute("""
            INSERT INTO transactions (transaction_id, original_transaction_id, product_id, product_type, customer_id, order_id,
                                      binding, environment, purchase_date, expires_date, revocation_date, cancellation_date,
                                      quantity, app_account_token, web_order_line_item_id, first_receipt_id, recorded_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(t.transactionId), .text(t.originalTransactionId), .text(t.productId), .text(t.productType?.rawValue),
                  .text(customerId), .text(orderId), .text(binding.rawValue), .text(t.environment.rawValue),
                  .date(t.purchaseDate), .date(t.expiresDate), .date(t.revocationDate), .date(t.cancellationDate),
                  .integer(t.quantity), .text(t.appAccountToken), .text(t.webOrderLineItemId), .integer(receiptId), .date(now)])
    }
}
