/// Migration 0015: personal data erased on request. `customers.erased_at` / `erased_by` say
/// when and by whom a customer's name, email, notes' text, receipts' bytes and digest key were
/// removed (their transactions, prices and dates stay: what accounting needs); `receipts.erased_at`
/// marks a receipt whose raw bytes (which hold device identifiers) were emptied, so nothing tries
/// to decode or re-verify them.
enum ErasureSchema {
    static let migration = Migration("0015-personal-data-erasure") { _ in
        [
            "ALTER TABLE customers ADD COLUMN erased_at TEXT",
            "ALTER TABLE customers ADD COLUMN erased_by TEXT",
            "ALTER TABLE receipts ADD COLUMN erased_at TEXT",
        ]
    }
}
