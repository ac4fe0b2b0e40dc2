import Foundation
import ReceiptCore

/// Keyset-paged reads of the purchase database for the console: every page is
/// `WHERE key > ? ORDER BY key LIMIT n` (or the mirror image), so a page costs the same on the
/// first row and on the millionth, and no list is ever loaded whole.
///
/// A filter's id words become index lookups whose results are merged in key order; a filter
/// with only unindexed properties walks the table in bounded chunks (`BrowsePage.scannedThrough`).
/// Read-only: it never writes. Not thread-safe, like the connection under it.
public struct Browser {
    public let database: SQLDatabase

    public init(_ database: SQLDatabase) { self.database = database }

    /// One page of `table` under `filter`, starting at `cursor`, at most `limit` rows, in display order.
    public func page(_ table: BrowseTable, filter: BrowseFilter = BrowseFilter(), cursor: PageCursor, limit: Int) throws -> BrowsePage {
        guard database.dialect.name == "sqlite" else {
            throw StoreError(.invalidRequest, "the console pages lists by SQLite rowid: \(database.dialect.name) databases cannot be browsed yet")
        }
        let limit = max(1, min(limit, BrowseLimits.maxPage))
        let query = try planned(BrowseQuery(table, filter))
        let step = KeyStep(cursor, newestFirst: table.newestFirst)
        var rows: [SQLRow] = []
        var scannedThrough: Int64?
        if !query.sources.isEmpty {
            // The union of the sources: each gives its first limit + 1 past the cursor.
            var seen = Set<Int64>()
            for source in query.sources {
                let statement = keyed(query, conditions: [source] + query.predicates, step, limit: limit + 1)
                for row in try database.query(statement.sql, statement.parameters) {
                    if let key = row.int("browse_key"), seen.insert(key).inserted { rows.append(row) }
                }
            }
            rows.sort { a, b in
                let (x, y) = (a.int("browse_key") ?? 0, b.int("browse_key") ?? 0)
                return step.ascending ? x < y : x > y
            }
        } else if query.predicates.isEmpty {
            let statement = keyed(query, conditions: [], step, limit: limit + 1)
            rows = try database.query(statement.sql, statement.parameters)
        } else {
            (rows, scannedThrough) = try boundedScan(query, step, limit: limit + 1)
        }
        let isFull = rows.count > limit
        var page = Array(rows.prefix(limit))
        if step.reversed { page.reverse() }
        return BrowsePage(rows: try page.map { try decode(table, $0) }, isFull: isFull, scannedThrough: isFull ? nil : scannedThrough,
                          ignored: query.ignored)
    }

    /// The statements `page` runs for this request (a bounded scan: its first chunk), for
    /// `EXPLAIN QUERY PLAN` checks.
    public func statements(_ table: BrowseTable, filter: BrowseFilter, cursor: PageCursor, limit: Int) -> [(sql: String, parameters: [SQLValue])] {
        let query = (try? planned(BrowseQuery(table, filter))) ?? BrowseQuery(table, filter)  // unplanned: still the statements' shape
        let step = KeyStep(cursor, newestFirst: table.newestFirst)
        if !query.sources.isEmpty {
            return query.sources.map { keyed(query, conditions: [$0] + query.predicates, step, limit: limit + 1) }
        }
        if query.predicates.isEmpty { return [keyed(query, conditions: [], step, limit: limit + 1)] }
        let chunk = chunkStatement(query, step, from: 0, limit: limit + 1)
        return [chunk]
    }

    /// A query with no index lookup of its own uses an index on one of its equality predicates
    /// (`env:` with an index on environment) as its source, rather than scanning in chunks.
    func planned(_ query: BrowseQuery) throws -> BrowseQuery {
        guard query.sources.isEmpty, !query.indexable.isEmpty else { return query }
        let indexed = try indexedColumns(query.tableName)
        guard let usable = query.indexable.first(where: { indexed.contains($0.column) }) else { return query }
        var planned = query
        planned.sources = [usable.condition]
        planned.predicates = query.predicates.filter { $0.sql != usable.condition.sql }
        return planned
    }

    /// The columns an index of `table` starts with.
    func indexedColumns(_ table: String) throws -> Set<String> {
        var columns = Set<String>()
        for index in try database.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", [.text(table)]) {
            guard let name = index.string("name") else { continue }
            let first = try database.query("SELECT name FROM pragma_index_info(?) ORDER BY seqno LIMIT 1", [.text(name)])
            if let column = first.first?.string("name") { columns.insert(column) }
        }
        return columns
    }

    /// `SELECT … WHERE conditions AND key op ? ORDER BY key LIMIT n`.
    private func keyed(_ query: BrowseQuery, conditions: [SQLCondition], _ step: KeyStep, limit: Int) -> (sql: String, parameters: [SQLValue]) {
        let t = query.tableName
        let all = conditions + [SQLCondition("\(t).rowid \(step.operator) ?", [.integer(step.bound)])]
        let sql = "SELECT \(query.columns), \(t).rowid AS browse_key FROM \(t) WHERE "
            + all.map(\.sql).joined(separator: " AND ") + " ORDER BY \(t).rowid \(step.ascending ? "ASC" : "DESC") LIMIT ?"
        return (sql, all.flatMap(\.parameters) + [.integer(Int64(limit))])
    }

    /// One chunk of a bounded scan: keys in (from, from + chunk] going up, [from - chunk, from) going down.
    private func chunkStatement(_ query: BrowseQuery, _ step: KeyStep, from: Int64, limit: Int) -> (sql: String, parameters: [SQLValue]) {
        let t = query.tableName
        let range = step.ascending
            ? SQLCondition("\(t).rowid > ? AND \(t).rowid <= ?", [.integer(from), .integer(from &+ BrowseLimits.scanChunk)])
            : SQLCondition("\(t).rowid < ? AND \(t).rowid >= ?", [.integer(from), .integer(from &- BrowseLimits.scanChunk)])
        let all = query.predicates + [range]
        let sql = "SELECT \(query.columns), \(t).rowid AS browse_key FROM \(t) WHERE "
            + all.map(\.sql).joined(separator: " AND ") + " ORDER BY \(t).rowid \(step.ascending ? "ASC" : "DESC") LIMIT ?"
        return (sql, all.flatMap(\.parameters) + [.integer(Int64(limit))])
    }

    /// Walks keys from the cursor in chunks until `limit` rows matched, the table ended, or the
    /// scan budget ran out (then returns the last key examined).
    private func boundedScan(_ query: BrowseQuery, _ step: KeyStep, limit: Int) throws -> ([SQLRow], Int64?) {
        let t = query.tableName
        let ends = try database.queryFirst("SELECT min(rowid) AS low, max(rowid) AS high FROM \(t)", [])
        guard let low = ends?.int("low"), let high = ends?.int("high") else { return ([], nil) }
        // The exclusive starting key, clamped into the table's key range.
        var from: Int64
        switch (step.ascending, step.operator) {
        case (true, ">="): from = max(step.bound, low) - 1
        case (true, _): from = max(step.bound, low - 1)
        case (false, "<="): from = min(step.bound, high) + 1
        default: from = min(step.bound, high + 1)
        }
        var rows: [SQLRow] = []
        var scanned: Int64 = 0
        while rows.count < limit {
            if step.ascending ? from >= high : from <= low { return (rows, nil) }
            if scanned >= BrowseLimits.scanBudget(query.table) { return (rows, from) }
            let statement = chunkStatement(query, step, from: from, limit: limit - rows.count)
            rows += try database.query(statement.sql, statement.parameters)
            from = step.ascending ? from &+ BrowseLimits.scanChunk : from &- BrowseLimits.scanChunk
            scanned += BrowseLimits.scanChunk
        }
        return (rows, nil)
    }

    /// A SQL row as the list row of `table`, with the small per-row lookups it shows.
    private func decode(_ table: BrowseTable, _ row: SQLRow) throws -> BrowseRow {
        let key = row.int("browse_key") ?? 0
        switch table {
        case .customers: return .customer(key, try customerRow(row))
        case .orders: return .order(key, PurchaseLedger.orderRecord(row))
        case .transactions:
            let record = PurchaseLedger.transactionRecord(row)
            let conflict = try database.queryFirst("SELECT 1 AS found FROM conflicts WHERE transaction_id = ? AND status = 'open' LIMIT 1",
                                                   [.text(record.transactionId)]) != nil
            return .transaction(key, TransactionListRow(record: record, inOpenConflict: conflict))
        case .receipts:
            return .receipt(key, ReceiptListRow(record: PurchaseLedger.receiptRecord(row), appleEnvironment: row.string("apple_environment"),
                                                lastVerifiedAt: row.date("last_verified_at")))
        case .conflicts: return .conflict(key, PurchaseLedger.conflictRecord(row))
        case .audit: return .audit(key, Self.auditEntry(row))
        }
    }

    private func customerRow(_ row: SQLRow) throws -> CustomerListRow {
        let id = row.string("customer_id") ?? ""
        let v: [SQLValue] = [.text(id)]
        let count = Int(try database.queryFirst("""
            SELECT count(*) AS n FROM (SELECT 1 FROM transactions WHERE customer_id = ? LIMIT \(BrowseLimits.countCap + 1))
            """, v)?.int("n") ?? 0)
        let entitlements = try database.query("SELECT DISTINCT entitlement FROM entitlements WHERE customer_id = ? AND active = 1", v)
            .compactMap { $0.string("entitlement") }.sorted()
        var environments = Set(try database.query("""
            SELECT environment FROM receipts WHERE customer_id = ? ORDER BY receipt_id DESC LIMIT 50
            """, v).compactMap { $0.string("environment") })
        let mismatch = try database.queryFirst("""
            SELECT 1 AS found FROM receipts WHERE customer_id = ? AND apple_environment IS NOT NULL AND apple_environment != environment
            AND apple_environment != 'Unknown' AND environment != 'Unknown' LIMIT 1
            """, v) != nil
        if let other = try database.queryFirst("""
            SELECT environment FROM transactions WHERE customer_id = ? AND environment != 'Production' LIMIT 1
            """, v)?.string("environment") { environments.insert(other) }
        if count > 0, try database.queryFirst("SELECT 1 AS found FROM transactions WHERE customer_id = ? AND environment = 'Production' LIMIT 1", v) != nil {
            environments.insert("Production")
        }
        let conflicts = Int(try database.queryFirst("""
            SELECT count(*) AS n FROM conflicts WHERE (claimant_customer_id = ? OR owner_customer_id = ?) AND status = 'open'
            """, [.text(id), .text(id)])?.int("n") ?? 0)
        return CustomerListRow(customerId: id, isTester: row.bool("is_tester"), transactionCount: min(count, BrowseLimits.countCap),
                               transactionCountCapped: count > BrowseLimits.countCap, activeEntitlements: entitlements,
                               environments: environments.subtracting(["Unknown"]).sorted(), environmentMismatch: mismatch, openConflicts: conflicts)
    }

    static func auditEntry(_ row: SQLRow) -> AuditEntry {
        AuditEntry(seq: row.int("seq") ?? 0, at: row.date("at") ?? .distantPast, operatorName: row.string("operator") ?? "",
                   action: row.string("action") ?? "", target: row.string("target") ?? "", details: row.string("details") ?? "",
                   previousHash: row.string("prev_hash") ?? "", hash: row.string("hash") ?? "")
    }
}

/// A cursor turned into SQL: the comparison with the bound key, the direction to read in, and
/// whether the rows come back in reverse display order.
struct KeyStep {
    let `operator`: String
    let bound: Int64
    let ascending: Bool
    let reversed: Bool

    init(_ cursor: PageCursor, newestFirst: Bool) {
        // Written for oldest-first lists; a newest-first list mirrors every comparison.
        var op: String
        var bound: Int64
        var forward: Bool
        switch cursor {
        case .first: (op, bound, forward) = (">", Int64.min, true)
        case .after(let key): (op, bound, forward) = (">", key, true)
        case .from(let key): (op, bound, forward) = (">=", key, true)
        case .last: (op, bound, forward) = ("<", Int64.max, false)
        case .before(let key): (op, bound, forward) = ("<", key, false)
        }
        if newestFirst {
            let mirrored = ["<": ">", ">": "<", ">=": "<=", "<=": ">="]
            op = mirrored[op] ?? op
            if bound == Int64.min { bound = Int64.max } else if bound == Int64.max { bound = Int64.min }
        }
        self.operator = op
        self.bound = bound
        self.ascending = forward != newestFirst
        self.reversed = !forward
    }
}
