import Foundation
import ReceiptCore

/// What erasing a customer's personal data removes (a preview) or removed. Kept: the customer
/// id, orders, transactions with their prices and dates, grants, conflicts, entitlements and
/// the audit log: what the law and accounting need.
public struct PersonalDataErasure: Sendable, Equatable {
    public let customerId: String
    /// The personal fields that held a value ("display name", "email").
    public let fields: [String]
    /// Notes whose text goes (the notes' authors and dates stay).
    public let notes: Int
    /// Receipts (and stored notifications) whose raw bytes go: they hold device identifiers.
    public let receipts: [Int64]
    /// Apple's raw answers stored about those receipts (re-verifications): they can quote device
    /// identifiers and whole receipts; the answers' outcome, summary and differences stay.
    public var appleAnswers = 0
    /// Whether the customer's digest key goes (every keyed digest of theirs in the audit log then
    /// cannot be tied to a value any more).
    public let digestKey: Bool
    /// Audit entries written before receiptdesk kept only keyed digests (before migration 0014)
    /// that quote the name or email. The audit log is append-only and hash-chained: they stay,
    /// named here so whoever owns the database can decide about them.
    public let clearAuditEntries: [Int64]
    /// Whether it was written (false: a preview).
    public let applied: Bool

    /// Whether there is nothing left to erase.
    public var isEmpty: Bool { fields.isEmpty && notes == 0 && receipts.isEmpty && appleAnswers == 0 && !digestKey }

    /// The preview's (or result's) lines, for the command line and the console.
    public var lines: [String] {
        let verb = applied ? "erased" : "erases"
        var out = ["\(verb) the personal data of customer \(customerId):"]
        out.append("  fields: " + (fields.isEmpty ? "none held" : fields.joined(separator: ", ")))
        out.append("  text of \(notes) note\(notes == 1 ? "" : "s") (their authors and dates stay)")
        out.append("  raw bytes of \(receipts.count) receipt\(receipts.count == 1 ? "" : "s") (device identifiers): "
                   + (receipts.isEmpty ? "none" : receipts.prefix(20).map { "#\($0)" }.joined(separator: ", ") + (receipts.count > 20 ? ", …" : "")))
        if appleAnswers > 0 { out.append("  Apple's raw answers about them: \(appleAnswers) (outcomes and differences stay)") }
        out.append("  the key of the audit log's digests of their data: " + (digestKey ? "deleted" : "none held"))
        out.append("  kept: the customer id, orders, transactions with prices and dates, grants, conflicts, the audit log")
        if !clearAuditEntries.isEmpty {
            out.append("  ⚠ audit entries \(clearAuditEntries.prefix(20).map { "#\($0)" }.joined(separator: ", ")) (written before digests) quote the name or email: the append-only chain keeps them")
        }
        return out
    }
}

extension PurchaseLedger {
    /// What `erasePersonalData` would remove now (a read).
    public func planErasure(customer customerId: String) throws -> PersonalDataErasure {
        try requireCustomer(customerId)
        return try erasure(customerId)
    }

    /// Erases a customer's personal data on their request, in one write transaction under the
    /// customer's lock: name and email cleared, notes' text cleared, the raw bytes of their
    /// receipts emptied, their digest key deleted; one audit entry `customer-erase` (the reason,
    /// what went, never a value). No hashed entry is rewritten: entries about their personal
    /// data hold keyed digests, which the deleted key no longer opens. A second erasure (or two
    /// at once) finds nothing left and is refused with nothing written.
    @discardableResult
    public func erasePersonalData(customer customerId: String, reason: String, operatorName: String) throws -> PersonalDataErasure {
        try Validate.operatorName(operatorName)
        try Validate.reason(reason)
        let now = clock()
        return try database.writeTransaction {
            try requireCustomer(customerId)
            try database.lockCustomer(customerId)
            let plan = try erasure(customerId)
            guard !plan.isEmpty else {
                let row = try database.queryFirst("SELECT erased_at, erased_by FROM customers WHERE customer_id = ?", [.text(customerId)])
                let when = row?.date("erased_at").map { " (erased \(RFC3339.format($0)) by \(row?.string("erased_by") ?? "?"))" } ?? ""
                throw StoreError(.alreadyExists, "customer \(customerId) holds no personal data to erase\(when): nothing changed")
            }
            try database.executeChangingOne("""
                UPDATE customers SET display_name = NULL, email = NULL, erased_at = ?, erased_by = ?, updated_at = ?, version = version + 1
                WHERE customer_id = ?
                """, [.date(now), .text(operatorName), .date(now), .text(customerId)],
                raced: StoreError(.notFound, "customer \(customerId) vanished while being erased: nothing changed"))
            try database.execute("UPDATE customer_notes SET body = NULL WHERE customer_id = ? AND body IS NOT NULL", [.text(customerId)])
            try database.execute("UPDATE receipts SET raw = ?, erased_at = ? WHERE customer_id = ? AND erased_at IS NULL",
                                 [.blob([]), .date(now), .text(customerId)])
            try database.execute("""
                UPDATE reverifications SET raw_answer = NULL
                WHERE raw_answer IS NOT NULL AND receipt_id IN (SELECT receipt_id FROM receipts WHERE customer_id = ?)
                """, [.text(customerId)])
            try database.execute("DELETE FROM personal_digest_keys WHERE customer_id = ?", [.text(customerId)])
            try audit(now, operatorName, "customer-erase", "customer:\(customerId)", .object([
                ("reason", .string(reason)), ("fields", .array(plan.fields.map { .string($0) })), ("notes", .int(Int64(plan.notes))),
                ("receipts", .array(plan.receipts.map { .int($0) })), ("appleAnswers", .int(Int64(plan.appleAnswers))),
                ("digestKey", .bool(plan.digestKey)),
                ("clearAuditEntries", .array(plan.clearAuditEntries.map { .int($0) })),
            ]))
            var erased = PersonalDataErasure(customerId: customerId, fields: plan.fields, notes: plan.notes, receipts: plan.receipts,
                                             digestKey: plan.digestKey, clearAuditEntries: plan.clearAuditEntries, applied: true)
            erased.appleAnswers = plan.appleAnswers
            return erased
        }
    }

    /// What is left to erase of an existing customer.
    private func erasure(_ customerId: String) throws -> PersonalDataErasure {
        let id: [SQLValue] = [.text(customerId)]
        let row = try database.queryFirst("SELECT display_name, email FROM customers WHERE customer_id = ?", id)
        var fields: [String] = []
        if row?.string("display_name") != nil { fields.append("display name") }
        if row?.string("email") != nil { fields.append("email") }
        let notes = try database.queryFirst("SELECT count(*) AS n FROM customer_notes WHERE customer_id = ? AND body IS NOT NULL", id)?.int("n") ?? 0
        let receipts = try database.query("SELECT receipt_id FROM receipts WHERE customer_id = ? AND erased_at IS NULL ORDER BY receipt_id", id)
            .compactMap { $0.int("receipt_id") }
        let key = try database.queryFirst("SELECT 1 AS found FROM personal_digest_keys WHERE customer_id = ?", id) != nil
        // Entries from before keyed digests that quote a name or an email in clear.
        let clear = try database.query("""
            SELECT seq FROM audit_log WHERE target = ? AND action = 'customer-contact' AND details NOT LIKE ?
              AND (details LIKE ? OR details LIKE ?) ORDER BY seq
            """, [.text("customer:\(customerId)"), .text("%\(PersonalDigest.prefix)%"), .text("%\"displayName\":\"%"), .text("%\"email\":\"%")])
            .compactMap { $0.int("seq") }
        let answers = try database.queryFirst("""
            SELECT count(*) AS n FROM reverifications
            WHERE raw_answer IS NOT NULL AND receipt_id IN (SELECT receipt_id FROM receipts WHERE customer_id = ?)
            """, id)?.int("n") ?? 0
        var plan = PersonalDataErasure(customerId: customerId, fields: fields, notes: Int(notes), receipts: receipts, digestKey: key,
                                       clearAuditEntries: clear, applied: false)
        plan.appleAnswers = Int(answers)
        return plan
    }
}
