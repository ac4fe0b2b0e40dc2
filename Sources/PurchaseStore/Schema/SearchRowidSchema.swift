/// Migration 0013: SQLite's customer search entries keyed by the customer's rowid. The update
/// trigger found a customer's old entry by `customer_id`, which an FTS5 table can only scan for:
/// each change of a name or email read every entry, and building a shop of 30,000 customers
/// (each given a name after it was created) took quadratic time. Now the entry's rowid is the
/// customer's, and the old entry is deleted by it. PostgreSQL's search needs no change.
enum SearchRowidSchema {
    static let migration = Migration("0013-customer-search-by-rowid") { dialect in
        guard dialect.name == SQLDialect.sqlite.name else { return [] }
        return [
            "DROP TRIGGER customer_search_insert",
            "DROP TRIGGER customer_search_update",
            "DELETE FROM customer_search",
            "INSERT INTO customer_search (rowid, customer_id, display_name, email) SELECT rowid, customer_id, display_name, email FROM customers",
            """
            CREATE TRIGGER customer_search_insert AFTER INSERT ON customers BEGIN
                INSERT INTO customer_search (rowid, customer_id, display_name, email)
                VALUES (new.rowid, new.customer_id, new.display_name, new.email);
            END
            """,
            """
            CREATE TRIGGER customer_search_update AFTER UPDATE OF display_name, email ON customers BEGIN
                DELETE FROM customer_search WHERE rowid = old.rowid;
                INSERT INTO customer_search (rowid, customer_id, display_name, email)
                VALUES (new.rowid, new.customer_id, new.display_name, new.email);
            END
            """,
            // A customer removed (a copy emptying its target) takes its entry along, so a rowid
            // used again never meets an old entry.
            """
            CREATE TRIGGER customer_search_delete AFTER DELETE ON customers BEGIN
                DELETE FROM customer_search WHERE rowid = old.rowid;
            END
            """,
        ]
    }
}
