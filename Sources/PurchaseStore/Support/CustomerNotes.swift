import Foundation
import ReceiptCore

/// A note an operator wrote on a customer ("called 12 May, promised a refund if Apple
/// declines"), shown to the whole team and in the case file.
public struct NoteRecord: Sendable, Equatable {
    public let noteId: Int64
    public let customerId: String
    /// The text; nil once the customer's personal data was erased (the note's author and date stay).
    public let text: String?
    public let writtenAt: Date
    public let writtenBy: String
}

extension PurchaseLedger {
    /// The longest note, in UTF-8 bytes.
    public static let noteMaxBytes = 2000

    /// Adds a note to an existing customer: one row and one audit entry `customer-note` that
    /// carries the note's number, length and keyed digest (`PersonalDigest`), never its text, so
    /// erasing the customer later leaves nothing personal in the hashed chain. Two operators
    /// writing at the same moment each get their own note.
    @discardableResult
    public func addNote(customer customerId: String, text: String, operatorName: String) throws -> NoteRecord {
        try Validate.operatorName(operatorName)
        let text = text.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw StoreError(.invalidInput, "the note is empty: say what happened (customer note add ID TEXT)") }
        try Validate.freeText(text, "note", maxBytes: Self.noteMaxBytes)
        let now = clock()
        return try database.writeTransaction {
            try requireCustomer(customerId)
            try database.lockCustomer(customerId)
            let rows = try database.query("""
                INSERT INTO customer_notes (customer_id, body, written_at, written_by) VALUES (?, ?, ?, ?) RETURNING note_id
                """, [.text(customerId), .text(text), .date(now), .text(operatorName)])
            let noteId = rows.first?.int("note_id") ?? 0
            try audit(now, operatorName, "customer-note", "customer:\(customerId)", .object([
                ("noteId", .int(noteId)), ("bytes", .int(Int64(text.utf8.count))),
                ("textDigest", .string(try personalDigest(text, of: customerId, now: now))),
            ]))
            return NoteRecord(noteId: noteId, customerId: customerId, text: text, writtenAt: now, writtenBy: operatorName)
        }
    }

    /// The customer's notes, oldest first.
    public func notes(of customerId: String) throws -> [NoteRecord] {
        try database.query("SELECT * FROM customer_notes WHERE customer_id = ? ORDER BY note_id", [.text(customerId)]).map { row in
            NoteRecord(noteId: row.int("note_id") ?? 0, customerId: row.string("customer_id") ?? "", text: row.string("body"),
                       writtenAt: row.date("written_at") ?? .distantPast, writtenBy: row.string("written_by") ?? "")
        }
    }
}
