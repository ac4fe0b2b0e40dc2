/// Migration 0018 (PostgreSQL only): a trigram index on a customer's contact text from its second
/// character on (`SearchSchema.contactPastIdStart`), beside the one on the whole text.
///
/// Why: a search term finds customers whose id starts with it through ranges of the key, and
/// whose id, name or email holds it through the trigram index. The whole text starts with the
/// id, so for a term that starts ids (`cust-2`: 77,700 of 1,150,000 customers at ten million
/// transactions) every one of those customers was also a candidate of the trigram index, and
/// each was read from the table and checked again (100–200 ms a page), only to be found a
/// second time; and an id's trigrams that every id shares (`cus`, `ust`) made even a whole id's
/// index read cost 16 ms. Past its first character the text holds no id's start, so its index
/// finds only the other matches. SQLite's name search (FTS5) leaves id starts out by itself.
enum ContactPastIdSchema {
    static let migration = Migration("0018-contact-past-id-start") { dialect in
        guard dialect.name != SQLDialect.sqlite.name else { return [] }
        let expression = SearchSchema.contactPastIdStart(dialect).replacingOccurrences(of: "'", with: "''")
        // As 0004: only where pg_trgm is installed (without it, a name search scans customers).
        return ["""
            DO $$
            DECLARE home text;
            BEGIN
                SELECT n.nspname INTO home FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
                IF home IS NOT NULL THEN
                    EXECUTE format('CREATE INDEX customers_by_contact_past_id ON customers USING gin ((\(expression)) %I.gin_trgm_ops)', home);
                END IF;
            END
            $$
            """,
            // Statistics for the new index's expression now: without them the planner took it
            // for a rare match and read every 'icloud' customer through it (26 ms where the
            // first 1,001 of a plain scan take 6), and building an index triggers no analyze.
            // Only when there are customers: statistics saying the table is empty make a
            // session's cached plans read customers by sequential scan for as long as it lives
            // (an import into a new database: 7 scans of the whole table per receipt), where a
            // never-analyzed table is planned as if it held some pages and is read by key.
            "DO $$ BEGIN IF EXISTS (SELECT 1 FROM customers) THEN ANALYZE customers; END IF; END $$"]
    }
}
