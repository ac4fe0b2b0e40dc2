/// What the console's search needs from the schema (migration 0004): customers' display name
/// and email, the Apple order id of each transaction learned from Look Up Order ID (one order
/// per transaction), and an index for every way a search finds a row.
///
/// Ids are searched by prefix, case-insensitively, through indexes on the id folded to lower
/// case (`SQLDialect.folded`: ASCII letters only on both backends, compared byte by byte, so a
/// prefix is one index range). A customer's id, name and email are also searched by any
/// fragment of three or more characters: SQLite through an FTS5 trigram table kept by triggers, PostgreSQL through a
/// pg_trgm GIN index (created when the server has pg_trgm; without it the same query is a
/// sequential scan, slower but the same answer).
public enum SearchSchema {
    static let migration = Migration("0004-search") { dialect in
        let fold = dialect.folded
        let isSQLite = dialect.name == SQLDialect.sqlite.name
        var statements = [
            "ALTER TABLE customers ADD COLUMN display_name TEXT",
            "ALTER TABLE customers ADD COLUMN email TEXT",
            "CREATE INDEX customers_by_folded_id ON customers ((\(fold("customer_id"))))",
            "CREATE INDEX orders_by_folded_id ON orders ((\(fold("order_id"))))",
            "CREATE INDEX orders_by_folded_token ON orders ((\(fold("app_account_token"))))",
            "CREATE INDEX transactions_by_folded_token ON transactions ((\(fold("app_account_token"))))",
            "CREATE INDEX transactions_by_web_order ON transactions (web_order_line_item_id)",
            """
            CREATE TABLE apple_orders (
                transaction_id TEXT PRIMARY KEY REFERENCES transactions(transaction_id),
                apple_order_id TEXT NOT NULL,
                looked_up_at TEXT NOT NULL,
                looked_up_by TEXT NOT NULL)
            """,
            "CREATE INDEX apple_orders_by_folded_id ON apple_orders ((\(fold("apple_order_id"))))",
        ]
        if isSQLite {
            statements += [
                "CREATE VIRTUAL TABLE customer_search USING fts5(customer_id, display_name, email, tokenize = 'trigram')",
                "INSERT INTO customer_search (customer_id, display_name, email) SELECT customer_id, display_name, email FROM customers",
                """
                CREATE TRIGGER customer_search_insert AFTER INSERT ON customers BEGIN
                    INSERT INTO customer_search (customer_id, display_name, email) VALUES (new.customer_id, new.display_name, new.email);
                END
                """,
                // Names change rarely: the old entry is found by its customer id (a scan of the
                // search table, not of customers).
                """
                CREATE TRIGGER customer_search_update AFTER UPDATE OF display_name, email ON customers BEGIN
                    DELETE FROM customer_search WHERE customer_id = old.customer_id;
                    INSERT INTO customer_search (customer_id, display_name, email) VALUES (new.customer_id, new.display_name, new.email);
                END
                """,
            ]
        } else {
            // pg_trgm goes into `public` (one per database, shared by every schema there), so
            // dropping a ledger's schema never drops it from under another; its operator class
            // is named by that schema. Two migrations racing to create it are both fine.
            statements.append("""
                DO $$
                DECLARE home text;
                BEGIN
                    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm')
                       AND EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
                        BEGIN
                            IF EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'public') THEN
                                CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
                            ELSE
                                CREATE EXTENSION IF NOT EXISTS pg_trgm;
                            END IF;
                        EXCEPTION WHEN insufficient_privilege OR unique_violation OR duplicate_object THEN
                            RAISE NOTICE 'pg_trgm not created here: name search scans customers';
                        END;
                    END IF;
                    SELECT n.nspname INTO home FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
                    IF home IS NOT NULL THEN
                        EXECUTE format('CREATE INDEX customers_by_contact ON customers USING gin ((\(contact(dialect).replacingOccurrences(of: "'", with: "''"))) %I.gin_trgm_ops)', home);
                    END IF;
                END
                $$
                """)
        }
        return statements
    }

    /// PostgreSQL: the text a fragment of a customer's id, name or email is looked for in (the pg_trgm index's expression).
    static func contact(_ dialect: SQLDialect, table: String = "") -> String {
        "lower(\(table)customer_id || ' ' || coalesce(\(table)display_name, '') || ' ' || coalesce(\(table)email, ''))"
    }

    /// PostgreSQL: the same text from its second character on (migration 0018's index), which
    /// holds a fragment wherever the whole text does except at its start, the id's start
    /// (`lower` maps one character to one, as libc's does).
    static func contactPastIdStart(_ dialect: SQLDialect, table: String = "") -> String {
        "lower(substr(\(table)customer_id, 2) || ' ' || coalesce(\(table)display_name, '') || ' ' || coalesce(\(table)email, ''))"
    }

    /// The tables search keeps for itself (SQLite's FTS5 table, its shadow tables and the flag of
    /// a batch whose entries are added at its end): derived from `customers`, never copied.
    public static let derivedTables: Set<String> = [
        "customer_search", "customer_search_data", "customer_search_idx", "customer_search_content",
        "customer_search_docsize", "customer_search_config", "search_entries_deferred",
    ]
}

extension SQLDialect {
    /// The comment a statement starts with when its best plan depends on its values (a search;
    /// a batch import's read-ahead, whose arrays of ids meet tables that grow under it): planned
    /// anew with its values each time, never prepared (see `PostgresDatabase.isPreparable`).
    public static let plannedPerValues = "/* planned per values */ "

    /// `column` folded for case-insensitive search: ASCII letters to lower case, compared byte
    /// by byte on both backends (PostgreSQL's "C" collation), so a prefix is one index range.
    public func folded(_ column: String) -> String {
        name == SQLDialect.sqlite.name ? "lower(\(column))" : "lower(\(column) COLLATE \"C\")"
    }
}
