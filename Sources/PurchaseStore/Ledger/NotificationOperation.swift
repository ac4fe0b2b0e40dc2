import Foundation
import ReceiptCore

/// What applying an App Store Server Notification did.
public struct NotificationResult: Sendable {
    public let notificationUUID: String
    public let notificationType: String
    public let subtype: String?
    /// False when this notificationUUID was applied before (a replay): nothing changed.
    public let applied: Bool
    public let customerId: String?
    public let changes: [AppleChange]
    public let outcome: String
}

extension PurchaseLedger {
    /// Applies an App Store Server Notification V2 body once per `notificationUUID`: it must verify;
    /// renewals add transactions, REFUND and REVOKE revoke, EXPIRED ends. A notification about a
    /// transaction no customer owns yet is kept as unmatched and applied when it is sent again.
    public func applyNotification(_ input: [UInt8], operatorName: String) throws -> NotificationResult {
        let prepared = try prepareNotification(input, operatorName: operatorName)
        return try database.writeTransaction { try applyPrepared(prepared) }
    }

    /// Decodes and verifies a notification body without touching the database (any thread):
    /// what `applyNotifications` applies. Fails as `applyNotification` would on a body that is not
    /// a notification, does not verify or names no notificationUUID.
    public func prepareNotification(_ input: [UInt8], operatorName: String) throws -> PreparedNotification {
        try Validate.operatorName(operatorName)
        let bytes = try ReceiptDecoder.artefactBytes(input)
        let artefact = try ReceiptDecoder.decode(bytes)
        guard case .notification(let notification) = artefact else {
            throw StoreError(.invalidInput, "this is a \(artefact.format.rawValue), not an App Store Server Notification: use `receiptdesk import`")
        }
        let verdict = verifier.verify(artefact, revocation: revocation)
        guard verdict.isValid else {
            throw StoreError(.notVerified, "notification not applied: \(verdict.status.rawValue): \(verdict.reason)")
        }
        guard let uuid = notification.notificationUUID, !uuid.isEmpty else {
            throw StoreError(.invalidInput, "notification has no notificationUUID: it cannot be applied exactly once")
        }
        // The digest, the stored JSON and the summary are worked out here, off the writer's thread.
        return PreparedNotification(bytes: bytes, artefact: artefact, notification: notification, verdict: verdict, uuid: uuid,
                                    operatorName: operatorName, digest: DigestAlgorithm.sha256.hash(bytes).hexString,
                                    decodedJSON: DecodeReport.json(artefact, verdict: verdict, now: clock(), includeTree: false).serialized(),
                                    summary: artefact.summary, transactionIds: IncomingTransaction.all(in: artefact).transactions.map(\.transactionId))
    }

    /// Applies a prepared notification inside the caller's write transaction.
    func applyPrepared(_ prepared: PreparedNotification) throws -> NotificationResult {
        let (bytes, artefact, notification, verdict, uuid, operatorName) = (prepared.bytes, prepared.artefact, prepared.notification,
                                                                            prepared.verdict, prepared.uuid, prepared.operatorName)
        let type = notification.notificationType ?? "UNKNOWN"
        let now = clock()
        let facts = IncomingTransaction.all(in: artefact).transactions.map { fact -> IncomingTransaction in
            guard ["REFUND", "REVOKE"].contains(type), fact.revocationDate == nil, fact.cancellationDate == nil else { return fact }
            var revoked = fact.revoked(at: notification.signedDate ?? now)
            if type == "REVOKE", revoked.revocationTypeRaw == nil { revoked.revocationTypeRaw = RevocationType.familyRevoke.rawValue }
            return revoked
        }
        do {  // the caller's write transaction
            // Lock before reading what is decided on: whether this notificationUUID was applied.
            try database.lockKeys(prepared.writeKeys)
            if let previous = try database.queryFirst("SELECT outcome, customer_id FROM notifications WHERE notification_uuid = ?",
                                                      [.text(uuid)]), previous.string("outcome") != "unmatched" {
                return NotificationResult(notificationUUID: uuid, notificationType: type, subtype: notification.subtype, applied: false,
                                          customerId: previous.string("customer_id"), changes: [],
                                          outcome: "already applied (\(previous.string("outcome") ?? "")): nothing changed")
            }
            var owner: String?
            for fact in facts {
                if owner == nil { owner = try ownerOfAppleFact(fact) }
                if owner == nil, let token = fact.appAccountToken {
                    owner = try database.queryFirst("SELECT customer_id FROM orders WHERE order_id = ? OR lower(app_account_token) = lower(?) LIMIT 1",
                                                    [.text(token), .text(token)])?.string("customer_id")
                }
            }
            // RESCIND_CONSENT names no purchase, only the app download, which links the customer's
            // purchases. A new purchase is not given to a customer by its download alone: one Apple
            // account may serve several of the merchant's accounts.
            let appTransactionId = prepared.summary.appTransactionId
            if owner == nil, facts.isEmpty, let appTransactionId { owner = try customer(appTransactionId: appTransactionId) }
            let digest = prepared.digest
            let receiptId = try database.queryFirst("SELECT receipt_id FROM receipts WHERE sha256 = ?", [.text(digest)])?.int("receipt_id")
                ?? insertReceipt(bytes, digest: digest, artefact: artefact, verdict: verdict, decodedJSON: prepared.decodedJSON,
                                 summary: prepared.summary, customerId: owner, source: "notification \(type)",
                                 now: now, operatorName: operatorName)
            let known = try facts.map(\.transactionId).filter {
                try database.queryFirst("SELECT 1 AS found FROM transactions WHERE transaction_id = ?", [.text($0)]) != nil
            }
            var changes = owner == nil ? [] : try applyAppleFacts(facts, customerHint: owner, receiptId: receiptId, now: now)
            if type == "REFUND_REVERSED", owner != nil { changes += try reinstate(facts, now: now) }
            if type == "DID_CHANGE_RENEWAL_PREF", notification.subtype == "UPGRADE", owner != nil { changes += try markUpgraded(by: facts, now: now) }
            // A transaction Apple tells about again without changing it: a repeated arrival.
            let repeated = known.filter { id in !changes.contains { $0.transactionId == id } }
            try recordRepeats(repeated.map { ImportResult.TransactionReport(transactionId: $0, productId: "", outcome: .duplicate) },
                              source: "notification \(type) \(uuid)", receiptId: receiptId, presentedFor: owner,
                              operatorName: operatorName, now: now)
            let outcome: String
            if let meaning = Self.appLevelOutcome(notification, owner: owner) {
                outcome = meaning
            } else if facts.isEmpty {
                outcome = "recorded (no transaction in it)"
            } else if owner == nil {
                outcome = "unmatched"
            } else {
                outcome = changes.isEmpty ? "nothing to change" : changes.map { "\($0.kind.rawValue) \($0.transactionId)" }.joined(separator: ", ")
            }
            try database.execute("""
                INSERT INTO notifications (notification_uuid, notification_type, subtype, environment, signed_date, receipt_id,
                                           customer_id, outcome, received_at, app_transaction_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (notification_uuid) DO UPDATE SET customer_id = excluded.customer_id, outcome = excluded.outcome
                """, [.text(uuid), .text(type), .text(notification.subtype), .text(notification.environment.environment.rawValue),
                      .date(notification.signedDate), .integer(receiptId), .text(owner), .text(outcome), .date(now),
                      .text(appTransactionId)])
            if owner != nil || facts.isEmpty {  // unmatched: recorded when it is applied again with an owner
                try recordAppleState(notification, uuid: uuid, customerId: owner, now: now)
            }
            // The owner's too: Apple's subscription state (a grace period) can change what they hold.
            for customer in Set(changes.map(\.customerId) + [owner].compactMap { $0 }).sorted() { try refreshEntitlements(customer, now: now) }
            try openRefundRequest(notification, uuid: uuid, customerId: owner, now: now)
            try recordMassExtensionSummary(notification, now: now)
            try audit(now, operatorName, "notify", owner.map { "customer:\($0)" } ?? "notification:\(uuid)", .object([
                ("notificationUUID", .string(uuid)), ("type", .string(type)), ("subtype", .string(notification.subtype)),
                ("outcome", .string(outcome)),
                ("changes", .array(changes.map { .object([("kind", .string($0.kind.rawValue)), ("transactionId", .string($0.transactionId)),
                                                          ("detail", .string($0.detail))]) })),
            ]))
            return NotificationResult(notificationUUID: uuid, notificationType: type, subtype: notification.subtype, applied: true,
                                      customerId: owner, changes: changes,
                                      outcome: owner == nil && !facts.isEmpty
                                        ? "unmatched: no customer owns this transaction yet; import their receipt, then send the notification again"
                                        : outcome)
        }
    }
}

extension PurchaseLedger {
    /// Apple reversed the refund of these transactions: they are no longer revoked.
    func reinstate(_ facts: [IncomingTransaction], now: Date) throws -> [AppleChange] {
        var changes: [AppleChange] = []
        for fact in facts where fact.revocationDate == nil {
            guard let row = try database.queryFirst("SELECT customer_id, revocation_date FROM transactions WHERE transaction_id = ?",
                                                    [.text(fact.transactionId)]), row.date("revocation_date") != nil else { continue }
            try database.execute("""
                UPDATE transactions SET revocation_date = NULL, revocation_type = NULL, revocation_percentage = NULL,
                                        updated_by_apple_at = ?, version = version + 1 WHERE transaction_id = ?
                """, [.date(now), .text(fact.transactionId)])
            try database.execute("UPDATE orders SET status = 'paid', version = version + 1 WHERE transaction_id = ? AND status = 'refunded'",
                                 [.text(fact.transactionId)])
            changes.append(AppleChange(kind: .reinstated, transactionId: fact.transactionId, customerId: row.string("customer_id") ?? "",
                                       detail: "refund reversed"))
        }
        return changes
    }
}

extension PurchaseLedger {
    /// An upgrade takes effect at once (`DID_CHANGE_RENEWAL_PREF` / `UPGRADE` carries the new
    /// product's transaction, not the old one): the stored periods of the same original with
    /// another product that were still running at the new purchase are marked upgraded and end
    /// then, as Apple's own copy of them says (`isUpgraded`, revocation date at the upgrade) once
    /// it is asked.
    func markUpgraded(by facts: [IncomingTransaction], now: Date) throws -> [AppleChange] {
        var changes: [AppleChange] = []
        for fact in facts {
            guard let original = fact.originalTransactionId, let at = fact.purchaseDate else { continue }
            let rows = try database.query("""
                SELECT transaction_id, customer_id, product_id, purchase_date, expires_date, revocation_date, cancellation_date
                FROM transactions WHERE original_transaction_id = ? AND transaction_id <> ? AND product_id <> ?
                """, [.text(original), .text(fact.transactionId), .text(fact.productId)])
            for row in rows where row.date("revocation_date") == nil && row.date("cancellation_date") == nil
                && (row.date("purchase_date").map { $0 <= at } ?? false) && (row.date("expires_date").map { $0 > at } ?? true) {
                let id = row.string("transaction_id") ?? ""
                try database.execute("""
                    UPDATE transactions SET is_upgraded = 1, revocation_date = ?, updated_by_apple_at = ?, version = version + 1
                    WHERE transaction_id = ? AND revocation_date IS NULL
                    """, [.date(at), .date(now), .text(id)])
                changes.append(AppleChange(kind: .upgraded, transactionId: id, customerId: row.string("customer_id") ?? "",
                                           detail: "upgraded to \(fact.productId) on \(RFC3339.format(at))"))
            }
        }
        return changes
    }
}

extension IncomingTransaction {
    /// The same transaction, revoked at `date`.
    func revoked(at date: Date) -> IncomingTransaction {
        var copy = self
        copy.revocationDate = date
        return copy
    }
}
