/// Migration 0014: notes on a customer, written by operators and shown to the whole team, and
/// the per-customer key that personal data is digested with in the audit log.
///
/// `customer_notes.body` is the note's text (NULL once the customer's personal data was erased;
/// the row, its author and date stay). `personal_digest_keys` holds one random key per
/// customer: audit entries about personal data (a note's text, a name, an email) carry
/// HMAC-SHA256 under that key, never the value, so the hashed chain holds nothing personal, and
/// erasure deletes the key, after which no digest can be tied to a guessed value.
enum CustomerNotesSchema {
    static let migration = Migration("0014-customer-notes") { dialect in
        [
            """
            CREATE TABLE customer_notes (
                note_id \(dialect.autoIncrementPrimaryKey),
                customer_id TEXT NOT NULL REFERENCES customers(customer_id),
                body TEXT,
                written_at TEXT NOT NULL,
                written_by TEXT NOT NULL)
            """,
            "CREATE INDEX customer_notes_by_customer ON customer_notes(customer_id, note_id)",
            """
            CREATE TABLE personal_digest_keys (
                customer_id TEXT PRIMARY KEY REFERENCES customers(customer_id),
                digest_key TEXT NOT NULL,
                created_at TEXT NOT NULL)
            """,
        ]
    }

    /// The tables `db copy` copies, parents first.
    static let copiedTables: [(name: String, order: [String])] = [
        ("customer_notes", ["note_id"]), ("personal_digest_keys", ["customer_id"]),
    ]
}
