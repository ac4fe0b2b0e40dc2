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
            try database.lockKeys(Self.writeKeys(of: [prepared]))
            let result = try applyImport(prepared, now: clock())
            if result.changedDatabase { try refreshEntitlements(customerId, now: clock()) }
            return result
        }
    }

    /// What imports will claim: their customers, receipts and transaction ids (see `WriteKey`).
    static func writeKeys(of imports: [PreparedImport]) -> [WriteKey] {
        var keys: [WriteKey] = []
        for item in imports {
            keys.append(.customer(item.customerId))
            keys.append(.receipt(digest: item.digest))
            keys += item.incoming.map { .transaction($0.transactionId) }
        }
        return keys
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

    /// Imports many artefacts in one write transaction: an artefact that fails leaves no trace and
    /// the others still apply; each customer's entitlements are recomputed once at the end.
    /// Decoding and verification run on worker threads, ahead of the writer: the transaction starts
    /// once the first artefact is ready, and each artefact is applied as soon as it is. A crash
    /// leaves the whole batch applied or absent. (`importStream` imports many batches.)
    public func importBatch(_ items: [ImportItem], operatorName: String) throws -> [Result<ImportResult, Error>] {
        guard !items.isEmpty else { return [] }
        let pipeline = preparingPipeline(count: items.count, lookahead: items.count, operatorName: operatorName) { items[$0] }
        defer { pipeline.finish() }
        return try applyBatchTransaction(0..<items.count, pipeline)
    }

    /// Decoded and verified, ready to apply.
    /// A class: the writer hands it through the pipeline, a plan and a retry, and a struct of
    /// this size was copied field by field at each step (about a tenth of a batch's writing thread).
    final class PreparedImport: Sendable {
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
        /// The note that a sandbox (or Xcode) purchase grants nothing, given with the result only
        /// when that holds for this customer (`importNotes`).
        let sandboxNote: String?
        let digest: String
        /// What the receipts table keeps as `decoded_json`.
        let decodedJSON: String
        /// `artefact.summary`, worked out once, off the writer's thread.
        let summary: ArtefactSummary

        init(bytes: [UInt8], customerId: String, orderId: String?, applicationUsername: String?, source: String, operatorName: String,
             artefact: DecodedArtefact, verdict: Verdict, incoming: [IncomingTransaction], notes: [String], sandboxNote: String?,
             digest: String, decodedJSON: String, summary: ArtefactSummary) {
            self.bytes = bytes
            self.customerId = customerId
            self.orderId = orderId
            self.applicationUsername = applicationUsername
            self.source = source
            self.operatorName = operatorName
            self.artefact = artefact
            self.verdict = verdict
            self.incoming = incoming
            self.notes = notes
            self.sandboxNote = sandboxNote
            self.digest = digest
            self.decodedJSON = decodedJSON
            self.summary = summary
        }
    }

    /// Decodes and verifies outside any transaction (the CPU work).
    func prepareImport(_ input: [UInt8], customer customerId: String, orderId: String?, applicationUsername: String?,
                       source: String, operatorName: String) throws -> PreparedImport {
        try Self.prepare(input, customer: customerId, orderId: orderId, applicationUsername: applicationUsername, source: source,
                         operatorName: operatorName, verifier: verifier, revocation: revocation, now: clock())
    }

    /// The CPU part of an import, safe to run on any thread.
    static func prepare(_ input: [UInt8], customer customerId: String, orderId: String?, applicationUsername: String?,
                        source: String, operatorName: String, verifier: ReceiptVerifier, revocation: (any RevocationSource)? = nil,
                        now: Date) throws -> PreparedImport {
        try Validate.operatorName(operatorName)
        // A pasted verifyReceipt request carries the shared secret: only its receipt is kept.
        let bytes = try ReceiptDecoder.artefactBytes(input)
        try Validate.identifier(customerId, "customer id")
        let artefact = try ReceiptDecoder.decode(bytes)
        let verdict = verifier.verify(artefact, revocation: revocation)
        let summary = artefact.summary
        var notes: [String] = []
        var sandboxNote: String?
        var incoming: [IncomingTransaction] = []
        if verdict.isValid {
            let found = IncomingTransaction.all(in: artefact)
            incoming = found.transactions
            notes += found.skipped
            if summary.environment.environment != .production {
                sandboxNote = "\(summary.environment.environment.badge) purchases are flagged; they grant nothing unless the customer is a tester or allowSandbox is on"
            }
        } else {
            notes.append("\(verdict.status.rawValue): \(verdict.reason): stored and flagged, grants nothing")
        }
        return PreparedImport(bytes: bytes, customerId: customerId, orderId: orderId, applicationUsername: applicationUsername,
                              source: source, operatorName: operatorName, artefact: artefact, verdict: verdict, incoming: incoming,
                              notes: notes, sandboxNote: sandboxNote, digest: DigestAlgorithm.sha256.hash(bytes).hexString,
                              decodedJSON: DecodeReport.json(artefact, verdict: verdict, now: now, includeTree: false).serialized(),
                              summary: summary)
    }

    func insertReceipt(_ bytes: [UInt8], digest: String, artefact: DecodedArtefact, verdict: Verdict, decodedJSON: String? = nil,
                       summary known: ArtefactSummary? = nil, customerId: String?, source: String, now: Date,
                       operatorName: String) throws -> Int64 {
        let summary = known ?? artefact.summary
        let decoded = decodedJSON ?? DecodeReport.json(artefact, verdict: verdict, now: now, includeTree: false).serialized()
        if let snapshot = importSnapshot, let id = snapshot.takeReceiptId() {
            // A batch took its receipt ids from the sequence ahead: nothing to read back.
            try database.executeLater("""
                INSERT INTO receipts (receipt_id, sha256, raw, format, environment, verdict, verdict_reason, decoded_json, bundle_id,
                                      original_app_version, original_purchase_date, source, customer_id, imported_at, imported_by,
                                      app_transaction_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.integer(id)] + Self.receiptValues(bytes, digest: digest, artefact: artefact, verdict: verdict, decoded: decoded,
                                                       summary: summary, customerId: customerId, source: source, now: now,
                                                       operatorName: operatorName))
            snapshot.storedReceipt(digest: digest, id: id)
            return id
        }
        // No RETURNING: on SQLite it makes the insert keep a statement journal; SQLite tells the
        // new row id, elsewhere it is one index look-up away.
        try database.execute("""
            INSERT INTO receipts (sha256, raw, format, environment, verdict, verdict_reason, decoded_json, bundle_id,
                                  original_app_version, original_purchase_date, source, customer_id, imported_at, imported_by,
                                  app_transaction_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, Self.receiptValues(bytes, digest: digest, artefact: artefact, verdict: verdict, decoded: decoded, summary: summary,
                                 customerId: customerId, source: source, now: now, operatorName: operatorName))
        guard let id = try database.lastInsertedRowID() ?? database.queryFirst("SELECT receipt_id FROM receipts WHERE sha256 = ?", [.text(digest)])?.int("receipt_id") else {
            throw StoreError(.sql, "the receipt just stored is not there")
        }
        return id
    }

    /// A receipt row's values after its id, in the order `insertReceipt` names the columns.
    static func receiptValues(_ bytes: [UInt8], digest: String, artefact: DecodedArtefact, verdict: Verdict, decoded: String,
                              summary: ArtefactSummary, customerId: String?, source: String, now: Date, operatorName: String) -> [SQLValue] {
        [.text(digest), .blob(bytes), .text(artefact.format.rawValue), .text(summary.environment.environment.rawValue),
         .text(verdict.status.rawValue), .text(verdict.reason), .text(decoded), .text(summary.bundleId),
         .text(summary.originalAppVersion), .date(summary.originalPurchaseDate), .text(source), .text(customerId),
         .date(now), .text(operatorName), .text(summary.appTransactionId)]
    }

    func insertTransaction(_ t: IncomingTransaction, customerId: String, orderId: String?, binding: OrderBinding,
                                   receiptId: Int64, now: Date) throws {
        importSnapshot?.recordedTransaction(t.transactionId, customer: customerId)
        try database.executeLater("""
            INSERT INTO transactions (transaction_id, original_transaction_id, product_id, product_type, customer_id, order_id,
                                      binding, environment, purchase_date, expires_date, revocation_date, cancellation_date,
                                      quantity, app_account_token, web_order_line_item_id, first_receipt_id, recorded_at,
                                      app_transaction_id, ownership_type, revocation_type, revocation_percentage, is_upgraded, billing_plan_type,
                                      commitment_period, commitment_periods, commitment_price, commitment_expires_date, price, currency,
                                      offer_type, offer_identifier, offer_period, offer_discount_type, signed_date)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(t.transactionId), .text(t.originalTransactionId), .text(t.productId), .text(t.productType?.rawValue),
                  .text(customerId), .text(orderId), .text(binding.rawValue), .text(t.environment.rawValue),
                  .date(t.purchaseDate), .date(t.expiresDate), .date(t.revocationDate), .date(t.cancellationDate),
                  .integer(t.quantity), .text(t.appAccountToken), .text(t.webOrderLineItemId), .integer(receiptId), .date(now),
                  .text(t.appTransactionId), .text(t.ownershipType), .text(t.revocationTypeRaw), .integer(t.revocationPercentage),
                  .integer(t.isUpgraded.map { $0 ? 1 : 0 }), .text(t.billingPlanType), .integer(t.commitment?.billingPeriodNumber),
                  .integer(t.commitment?.totalBillingPeriods), .integer(t.commitment?.commitmentPrice),
                  .date(t.commitment?.commitmentExpiresDate), .integer(t.price), .text(t.currency)]
                  + (t.offer?.values ?? Array(repeating: .null, count: TransactionOffer.columns.count)))
    }
}
