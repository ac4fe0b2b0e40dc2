/// A batch import's customer search entries, added in one statement at the end of its write
/// transaction (SQLite; see `SearchDeferralSchema` for why). `begin` inside the transaction,
/// before the batch creates a customer; `end` after its last change, before it commits. A batch
/// that throws between the two is rolled back whole, the flag row with it.
struct SearchEntryDeferral {
    private let database: SQLDatabase
    /// The customers' largest rowid when the batch began: the customers it creates get larger ones
    /// (SQLite gives a new row the largest rowid plus one).
    private let firstNew: Int64

    /// Starts deferring on `database`, or nil where search entries are not triggers (PostgreSQL).
    static func begin(_ database: SQLDatabase) throws -> SearchEntryDeferral? {
        guard database.dialect.name == SQLDialect.sqlite.name else { return nil }
        let top = try database.queryFirst("SELECT coalesce(max(rowid), 0) AS top FROM customers", [])?.int("top") ?? 0
        try database.execute("INSERT INTO search_entries_deferred (id) VALUES (1)", [])
        return SearchEntryDeferral(database: database, firstNew: top + 1)
    }

    /// Adds the entries of every customer created since `begin` (one a trigger already added,
    /// when a change of name or email re-entered it, is left as it is) and stops deferring.
    func end() throws {
        try database.execute("""
            INSERT INTO customer_search (rowid, customer_id, display_name, email)
            SELECT rowid, customer_id, display_name, email FROM customers
            WHERE rowid >= ? AND rowid NOT IN (SELECT rowid FROM customer_search WHERE rowid >= ?)
            """, [.integer(firstNew), .integer(firstNew)])
        try database.execute("DELETE FROM search_entries_deferred", [])
    }
}
