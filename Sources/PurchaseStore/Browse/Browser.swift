import Foundation
import ReceiptCore

/// Keyset-paged reads of the purchase database for the console: every page is
/// `WHERE key > ? ORDER BY key LIMIT n` (or the mirror image) on the table's primary key, so a
/// page costs the same on the first row and on the millionth, and no list is ever loaded whole.
/// The same SQL runs on SQLite and PostgreSQL.
///
/// A filter's id words become index lookups whose results are merged in key order; a filter
/// with only unindexed properties walks the table in bounded chunks (`BrowsePage.scannedThrough`).
/// Read-only: it never writes. Not thread-safe, like the connection under it.
public struct Browser {
    public let database: SQLDatabase

    public init(_ database: SQLDatabase) { self.database = database }

    var isSQLite: Bool { database.dialect.name == SQLDialect.sqlite.name }

    /// One page of `table` under `filter`, starting at `cursor`, at most `limit` rows, in display
    /// order, sorted by `sort` (nil: the list's own order, by its key). A column sort is a keyset
    /// walk on (column, key) (`SortedWalk`); a search that would have to read all its matches to
    /// sort them is shown in key order instead, and the page says so (`BrowsePage.sortNote`).
    public func page(_ table: BrowseTable, filter: BrowseFilter = BrowseFilter(), cursor: PageCursor, limit: Int,
                     sort: BrowseSort? = nil) throws -> BrowsePage {
        let limit = max(1, min(limit, BrowseLimits.maxPage))
        let query = try planned(BrowseQuery(table, filter, database.dialect))
        let wanted = sort ?? .own(table)
        var note: String?
        if wanted.column != .id, let column = wanted.sqlColumn(table) {
            note = try sortRefusal(query, wanted)
            if note == nil {
                let (rows, reversed) = try sortedRows(query, wanted, column: column, cursor: cursor, limit: limit + 1)
                return try finish(table, query, filter: filter, rows: rows, reversed: reversed, limit: limit, scannedThrough: nil, sort: wanted, note: nil)
            }
        }
        let applied = wanted.column == .id ? wanted : .own(table)
        let step = KeyStep(cursor, newestFirst: applied.descending)
        let (rows, scannedThrough) = try matchingRows(query, step, limit: limit + 1)
        return try finish(table, query, filter: filter, rows: rows, reversed: step.reversed, limit: limit, scannedThrough: scannedThrough, sort: applied, note: note)
    }

    /// The page of `rows` read (one more than `limit` when there are more), in display order.
    private func finish(_ table: BrowseTable, _ query: BrowseQuery, filter: BrowseFilter, rows: [SQLRow], reversed: Bool, limit: Int,
                        scannedThrough: BrowseKey?, sort: BrowseSort, note: String?) throws -> BrowsePage {
        let isFull = rows.count > limit
        var page = Array(rows.prefix(limit))
        if reversed { page.reverse() }
        let lookups = try RowLookups(table, page, filter: filter, database: database)
        return BrowsePage(rows: try page.map { try decode(table, $0, key: BrowseKey.read($0, textual: query.keyIsText), lookups) }, isFull: isFull,
                          scannedThrough: isFull ? nil : scannedThrough, ignored: query.ignored, sort: sort, sortNote: note)
    }

    /// The rows of `query` from the step's cursor, in the step's order, at most `limit`; and
    /// where a bounded scan stopped, if it did.
    func matchingRows(_ query: BrowseQuery, _ step: KeyStep, limit: Int) throws -> (rows: [SQLRow], scannedThrough: BrowseKey?) {
        guard !query.sources.isEmpty else {
            if query.predicates.isEmpty {
                let statement = query.keyed(conditions: [], step, limit: limit)
                return (try database.query(statement.sql, statement.parameters), nil)
            }
            return try boundedScan(query, step, limit: limit)
        }
        if !isSQLite {
            let broadness = try broad(query, cap: BrowseLimits.matchCountCap)
            if broadness.contains(true) {
                let ranged = try keyRanges(query, broad: broadness)
                if broadness.indices.allSatisfy({ !broadness[$0] || ranged[$0] != nil }) {
                    return (try pickedLookupPage(query, step, limit: limit, ranged: ranged), nil)
                }
                return (try denseLookupPage(query, step, limit: limit) ?? pickedLookupPage(query, step, limit: limit, ranged: ranged), nil)
            }
        }
        var rows: [SQLRow] = []
        for statement in sourceStatements(query, step, limit: limit) {
            rows += try database.query(statement.sql, statement.parameters)
        }
        if query.sources.count > 1 && isSQLite {
            // The union of the sources, each its first `limit` past the cursor, merged in key
            // order (UTF-8 byte order is SQLite's BINARY collation).
            var seen = Set<BrowseKey>()
            rows = rows.filter { seen.insert(BrowseKey.read($0, textual: query.keyIsText)).inserted }
            rows.sort { a, b in
                let (x, y) = (BrowseKey.read(a, textual: query.keyIsText), BrowseKey.read(b, textual: query.keyIsText))
                return step.ascending ? x < y : y < x
            }
            rows = Array(rows.prefix(limit))
        }
        return (rows, nil)
    }

    /// The statements of a query with index lookups. SQLite runs one per source and the pages
    /// are merged here; PostgreSQL gets one statement that unions the sources, each its own
    /// index lookup with its own limit, and orders the union by its own collation (OR-ing them
    /// in one WHERE made it walk the whole table).
    private func sourceStatements(_ query: BrowseQuery, _ step: KeyStep, limit: Int) -> [BrowseStatement] {
        let each = query.sources.map { query.keyed(conditions: [$0] + query.predicates, step, limit: limit) }
        if isSQLite || each.count == 1 { return each }
        let union = each.map { "(" + $0.sql.dropFirst(SQLDialect.plannedPerValues.count) + ")" }.joined(separator: " UNION ")
        return [BrowseStatement(sql: SQLDialect.plannedPerValues + "SELECT * FROM (\(union)) AS merged ORDER BY browse_key \(step.order) LIMIT ?",
                                parameters: each.flatMap(\.parameters) + [.integer(Int64(limit))], walksKeys: false)]
    }

    /// The statements `page` runs for this request (a bounded scan: its first chunk), for
    /// `EXPLAIN QUERY PLAN` checks.
    public func statements(_ table: BrowseTable, filter: BrowseFilter, cursor: PageCursor, limit: Int) -> [(sql: String, parameters: [SQLValue])] {
        browseStatements(table, filter: filter, cursor: cursor, limit: limit).map { ($0.sql, $0.parameters) }
    }

    func browseStatements(_ table: BrowseTable, filter: BrowseFilter, cursor: PageCursor, limit: Int) -> [BrowseStatement] {
        let query = (try? planned(BrowseQuery(table, filter, database.dialect))) ?? BrowseQuery(table, filter, database.dialect)  // unplanned: still the statements' shape
        let step = KeyStep(cursor, newestFirst: table.newestFirst)
        if !query.sources.isEmpty { return sourceStatements(query, step, limit: limit + 1) }
        if query.predicates.isEmpty { return [query.keyed(conditions: [], step, limit: limit + 1)] }
        let bound: BrowseKey = query.keyIsText ? .text("0") : .integer(0)
        return [query.chunkRows(step, from: nil, through: bound, limit: limit + 1), query.chunkEnd(step, from: nil)]
    }

    /// On SQLite, a search term's prefix match on the list's own key becomes ranges of that key
    /// (`KeyPrefixRanges`), read in key order from the cursor however many rows they hold; and a
    /// query whose other lookups include a broad one (a short prefix matching more than
    /// `BrowseLimits.sortCap` rows) walks the list in key order with the lookups as one
    /// predicate: the matches are many, so the walk finds a page of them quickly, where merging
    /// the lookups would sort them all; so does a name search too broad to list, when a walk's
    /// budget would find a page (`nameSearchWalk`). A query with no index lookup of its own uses an index
    /// on one of its equality predicates (`env:` with an index on environment) as its source,
    /// rather than scanning in chunks.
    func planned(_ query: BrowseQuery) throws -> BrowseQuery {
        if !query.sources.isEmpty {
            // PostgreSQL's lookups are never walked here: `matchingRows` reads them a chunk of
            // keys first, else gathered (`ClusteredLookups`), and counting to 25,000 cost more
            // than either.
            guard isSQLite else { return query }
            var query = query
            // A search term's folded prefix match on the key is the first source (`SearchTerms`).
            if let prefix = query.sources.first?.prefix, prefix.folded, prefix.column == query.key,
               let ranges = try keyPrefixRanges(query, prefix.prefix), !ranges.isEmpty {
                // The ids that start with the term are the ranges'; the fragment lookup leaves
                // them out (matching them all, as a prefix shared by a tenth of the customers
                // does, it made the search broad and walked from the list's start).
                if let (index, beside) = query.contactBesideRanges, index < query.sources.count { query.sources[index] = beside }
                query.sources = ranges + query.sources.dropFirst()
                query.keyRangeSources = ranges.count
            }
            // After the ranges: the fragment lookup read is the one the page uses.
            query.sources = try query.sources.map(listedIfNarrow)
            var others = query
            others.sources = Array(query.sources.dropFirst(query.keyRangeSources))
            let counts = try sourceCounts(others, cap: BrowseLimits.sortCap)
            if counts.contains(where: { $0 > BrowseLimits.sortCap }) { return query.walking(perRow: true) }
            return try nameSearchWalk(query, counts: counts, offset: query.keyRangeSources) ?? query
        }
        guard !query.indexable.isEmpty else { return query }
        let indexed = try indexedColumns(query.tableName)
        guard let usable = query.indexable.first(where: { indexed.contains($0.column) }) else { return query }
        var planned = query
        planned.sources = [usable.condition]
        planned.predicates = query.predicates.filter { $0.sql != usable.condition.sql }
        return planned
    }

    /// Whether each source alone matches more than `cap` rows: one statement (one round trip) of
    /// index-only reads, at most that many entries each (`sourceCounts`).
    func broad(_ query: BrowseQuery, cap: Int64 = BrowseLimits.sortCap) throws -> [Bool] {
        try sourceCounts(query, cap: cap).map { $0 > cap }
    }

    /// How many rows each source alone matches, up to `cap` + 1 (more than `cap`: broad).
    func sourceCounts(_ query: BrowseQuery, cap: Int64) throws -> [Int64] {
        guard !query.sources.isEmpty else { return [] }
        // Each source alone. A name search is counted in its own rows, after cap + 1 of them: it
        // yields each row once, and looking each up in the table (25,000 at random) cost 40 ms.
        let columns = query.sources.enumerated().map { index, source in
            let rows = source.rowSubquery.map { "\($0.sql) LIMIT \(cap + 1)" }
                ?? "SELECT 1 FROM \(query.tableName) WHERE \(source.sql) LIMIT \(cap + 1)"
            return "(SELECT count(*) FROM (\(rows)) AS capped\(index)) AS n\(index)"
        }
        guard let row = try database.queryFirst(SQLDialect.plannedPerValues + "SELECT " + columns.joined(separator: ", "),
                                                query.sources.flatMap(\.parameters)) else {
            return query.sources.map { _ in 0 }
        }
        return query.sources.indices.map { row.int("n\($0)") ?? 0 }
    }

    /// The columns an index of `table` starts with.
    func indexedColumns(_ table: String) throws -> Set<String> {
        guard isSQLite else {
            return Set(try database.query("""
                SELECT a.attname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
                JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
                WHERE c.relname = ? AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
                """, [.text(table)]).compactMap { $0.string("name") })
        }
        var columns = Set<String>()
        for index in try database.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", [.text(table)]) {
            guard let name = index.string("name") else { continue }
            let first = try database.query("SELECT name FROM pragma_index_info(?) ORDER BY seqno LIMIT 1", [.text(name)])
            if let column = first.first?.string("name") { columns.insert(column) }
        }
        return columns
    }

    /// Walks keys from the cursor (or past `start`) in chunks of `chunk` keys (each found by an
    /// index-only read of the key) until `limit` rows matched, the table ended, or the scan
    /// budget (`budget` keys, else the query's `walkBudget`, else `BrowseLimits.scanBudget`) ran out (then returns the last key examined).
    func boundedScan(_ query: BrowseQuery, _ step: KeyStep, limit: Int, budget: Int64? = nil, after start: BrowseKey? = nil,
                     chunk size: Int64 = BrowseLimits.scanChunk) throws -> ([SQLRow], BrowseKey?) {
        var rows: [SQLRow] = []
        var from = start  // nil: the first chunk starts at the cursor
        var scanned: Int64 = 0
        while rows.count < limit {
            if let from, scanned >= budget ?? query.walkBudget ?? BrowseLimits.scanBudget(query.table) { return (rows, from) }
            let end = query.chunkEnd(step, from: from, keys: size)
            guard let chunk = try database.queryFirst(end.sql, end.parameters), (chunk.int("chunk_keys") ?? 0) > 0,
                  chunk["chunk_end"] != .null else { return (rows, nil) }
            let through = query.keyIsText ? BrowseKey.text(chunk.string("chunk_end") ?? "") : BrowseKey.integer(chunk.int("chunk_end") ?? 0)
            let statement = query.chunkRows(step, from: from, through: through, limit: limit - rows.count)
            rows += try database.query(statement.sql, statement.parameters)
            if (chunk.int("chunk_keys") ?? 0) < size { return (rows, nil) }
            from = through
            scanned += size
        }
        return (rows, nil)
    }

    /// What `ListRowLookups` read for a page's rows, one statement or two per page (and, for a
    /// search, one more for customers: why each matched).
    private struct RowLookups {
        var customers: [String: CustomerListRow] = [:]
        var inOpenConflict: Set<String> = []

        init(_ table: BrowseTable, _ rows: [SQLRow], filter: BrowseFilter, database: SQLDatabase) throws {
            switch table {
            case .customers:
                customers = try ListRowLookups.customers(rows, database: database)
                // Why each was found, when a search word is one of their related ids: one statement for the page.
                if !filter.terms.isEmpty || !filter.fields.isEmpty {
                    for (id, reason) in try SearchReasons.lookup(filter, customers: rows.compactMap { $0.string("customer_id") }, database: database) {
                        customers[id]?.matchedVia = reason
                    }
                }
            case .transactions: inOpenConflict = try ListRowLookups.inOpenConflict(rows.compactMap { $0.string("transaction_id") }, database: database)
            default: break
            }
        }
    }

    /// A SQL row as the list row of `table`, with the small lookups it shows.
    private func decode(_ table: BrowseTable, _ row: SQLRow, key: BrowseKey, _ lookups: RowLookups) throws -> BrowseRow {
        switch table {
        case .customers:
            let id = row.string("customer_id") ?? ""
            guard let listed = lookups.customers[id] else { throw StoreError(.notFound, "customer \(id) vanished while its page was read") }
            return .customer(key, listed)
        case .orders: return .order(key, PurchaseLedger.orderRecord(row))
        case .transactions:
            let record = PurchaseLedger.transactionRecord(row)
            return .transaction(key, TransactionListRow(record: record, inOpenConflict: lookups.inOpenConflict.contains(record.transactionId)))
        case .receipts:
            return .receipt(key, ReceiptListRow(record: PurchaseLedger.receiptRecord(row), appleEnvironment: row.string("apple_environment"),
                                                lastVerifiedAt: row.date("last_verified_at")))
        case .conflicts: return .conflict(key, PurchaseLedger.conflictRecord(row))
        case .audit: return .audit(key, Self.auditEntry(row))
        }
    }

    static func auditEntry(_ row: SQLRow) -> AuditEntry {
        AuditEntry(seq: row.int("seq") ?? 0, at: row.date("at") ?? .distantPast, operatorName: row.string("operator") ?? "",
                   action: row.string("action") ?? "", target: row.string("target") ?? "", details: row.string("details") ?? "",
                   previousHash: row.string("prev_hash") ?? "", hash: row.string("hash") ?? "", databaseUser: row.string("db_user"))
    }
}
