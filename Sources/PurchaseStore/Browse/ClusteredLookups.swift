import Foundation

/// PostgreSQL and index lookups whose matches sit together far from the cursor.
///
/// For a lookup it expects to match many rows (a name fragment through the trigram index, an id
/// prefix), PostgreSQL plans `ORDER BY key LIMIT n` as a walk of the primary key that tests each
/// row, counting on the matches being spread evenly. When they sit together (`cust-2…` behind
/// 49,000 customers whose ids sort first), that walk reads everything before them: 130 ms for the
/// first page on a million transactions. So a page of lookups of which one matches more than
/// `BrowseLimits.matchCountCap` rows (narrower ones PostgreSQL reads through their index anyway)
/// is read in two steps: one chunk of keys from the cursor (`BrowseLimits.scanChunk`, an
/// index-only read) tested against the lookups, which is all it takes when the matches are
/// dense; and only when that chunk leaves the page short, a page picked from each lookup's first
/// matches in key order (`pickedLookupPage`). (`key IN (SELECT … OFFSET 0)` was tried first:
/// without statistics PostgreSQL ran it once per row.) When every broad lookup is read as ranges
/// of the key, the page is picked at once: the walk would only find the matches the ranges read
/// from the cursor anyway (for `cust-2`, 5,000 keys read for nothing, 10–15 ms).
extension Browser {
    /// The page when one chunk of keys from the cursor holds it (or holds every key left); nil
    /// when the matches are sparser than that near the cursor.
    ///
    /// The chunk's first fifth is read first (`probeKeys`): it holds the page when the matches
    /// are dense, and when it holds less than half what the whole chunk would need at that rate
    /// (`looksSparse`), the rest is not read: a name fragment shared by 3,000 of 1,150,000
    /// customers (`鈴木さ`) found 7 matches in 5,000 keys, 12 ms of reads for nothing before
    /// the page was picked anyway.
    func denseLookupPage(_ query: BrowseQuery, _ step: KeyStep, limit: Int) throws -> [SQLRow]? {
        let walked = query.walkingLookups
        let (first, probed) = try boundedScan(walked, step, limit: limit, budget: Self.probeKeys, chunk: Self.probeKeys)
        guard let probed else { return first }
        if Self.looksSparse(found: first.count, limit: limit) { return nil }
        let rest = BrowseLimits.scanChunk - Self.probeKeys
        let (more, stoppedAt) = try boundedScan(walked, step, limit: limit - first.count, budget: rest, after: probed, chunk: rest)
        return stoppedAt == nil ? first + more : nil
    }

    /// The keys a dense page is first looked for in: a fifth of a chunk.
    static let probeKeys = BrowseLimits.scanChunk / 5

    /// Whether `found` matches in the first `probeKeys` keys promise less than half of `limit`
    /// in a whole chunk at the same rate (then a walk of the chunk would most likely fall short).
    static func looksSparse(found: Int, limit: Int) -> Bool {
        Int64(found) * (BrowseLimits.scanChunk / probeKeys) * 2 < Int64(limit)
    }

    /// The page picked from each lookup's first `limit` matches past the cursor in key order,
    /// the other conditions met, and only then joined to the table (`ranged`: the key ranges of
    /// the broad lookups that are a prefix of the key, `keyRanges`).
    ///
    /// A broad prefix of the list's own key, when the key is ordered byte by byte, is read as
    /// ranges of the key's index from the cursor (`ColumnPrefix`): its first matches at once,
    /// wherever they sit. The other lookups are gathered once through their own indexes (a
    /// materialized common table expression, which the planner cannot turn back into a walk of
    /// the key) and their first matches sorted out of them. Joining every gathered match to the
    /// table before taking the page was planned as a merge join along the primary key from the
    /// list's start: 49,000 customers read for `cust-2`, 40 ms.
    func pickedLookupPage(_ query: BrowseQuery, _ step: KeyStep, limit: Int, ranged: [Int: [(low: String, high: String?)]]) throws -> [SQLRow] {
        let filter = query.predicates + step.condition(query.key)
        let limitValue = SQLValue.integer(Int64(limit))
        func select(_ conditions: [SQLCondition]) -> String {
            "SELECT \(query.key) AS k FROM \(query.tableName) WHERE " + conditions.map(\.sql).joined(separator: " AND ")
        }
        var sql = SQLDialect.plannedPerValues
        var parameters: [SQLValue] = []
        var branches: [String] = []
        let gathered = query.sources.indices.filter { ranged[$0] == nil }
        if !gathered.isEmpty {
            sql += "WITH gathered AS MATERIALIZED (" + gathered.map { select([query.sources[$0]] + filter) }.joined(separator: " UNION ") + ") "
            parameters += gathered.flatMap { ([query.sources[$0]] + filter).flatMap(\.parameters) }
            branches.append("(SELECT k FROM gathered ORDER BY k \(step.order) LIMIT ?)")
        }
        var branchParameters: [SQLValue] = gathered.isEmpty ? [] : [limitValue]
        for index in query.sources.indices {
            for range in ranged[index] ?? [] {
                var bounds = [SQLCondition("\(query.key) >= ?", [.text(range.low)])]
                if let high = range.high { bounds.append(SQLCondition("\(query.key) < ?", [.text(high)])) }
                branches.append("(" + select(bounds + filter) + " ORDER BY \(query.key) \(step.order) LIMIT ?)")
                branchParameters += (bounds + filter).flatMap(\.parameters) + [limitValue]
            }
        }
        sql += "SELECT \(query.columns), \(query.key) AS browse_key FROM \(query.tableName) WHERE \(query.key) IN (SELECT k FROM ("
            + branches.joined(separator: " UNION ") + ") AS picked ORDER BY k \(step.order) LIMIT ?) ORDER BY \(query.key) \(step.order) LIMIT ?"
        return try database.query(sql, parameters + branchParameters + [limitValue, limitValue])
    }

    /// For each broad lookup that is a prefix of the list's own key, the key ranges it is read
    /// as (by source index); none when the key is not ordered byte by byte.
    func keyRanges(_ query: BrowseQuery, broad: [Bool]) throws -> [Int: [(low: String, high: String?)]] {
        var ranged: [Int: [(low: String, high: String?)]] = [:]
        for (index, source) in query.sources.enumerated() where index < broad.count && broad[index] {
            guard let prefix = source.prefix, prefix.column == query.key, let ranges = prefix.ranges else { continue }
            ranged[index] = ranges
        }
        guard !ranged.isEmpty, try keyOrderIsBytewise(query) else { return [:] }
        return ranged
    }

    /// Whether PostgreSQL orders `query`'s key byte by byte: its collation (or the database's,
    /// for the default one) is C or POSIX, or C.UTF-8 (code point order, which is UTF-8's byte
    /// order), from libc or (PostgreSQL 17) the builtin provider. An ICU or language collation
    /// orders by other rules, under which a prefix's values need not be one range of the index.
    func keyOrderIsBytewise(_ query: BrowseQuery) throws -> Bool {
        guard !isSQLite else { return true }
        // to_jsonb reads the provider and locale columns that older servers do not have as NULL.
        let sql = """
            SELECT (CASE WHEN c.collprovider = 'd' THEN
                     (coalesce(to_jsonb(d) ->> 'datlocprovider', 'c') = 'c' AND (d.datcollate IN ('C', 'POSIX') OR d.datcollate LIKE 'C.%'))
                     OR (to_jsonb(d) ->> 'datlocprovider' = 'b' AND to_jsonb(d) ->> 'datlocale' IN ('C', 'C.UTF-8'))
                   ELSE (c.collprovider = 'c' AND (c.collcollate IN ('C', 'POSIX') OR c.collcollate LIKE 'C.%'))
                     OR (c.collprovider = 'b' AND to_jsonb(c) ->> 'colllocale' IN ('C', 'C.UTF-8')) END)::int AS bytewise
            FROM pg_attribute a JOIN pg_collation c ON c.oid = a.attcollation JOIN pg_database d ON d.datname = current_database()
            WHERE a.attrelid = to_regclass(?) AND a.attname = ?
            """
        return try database.queryFirst(sql, [.text(query.tableName), .text(query.keyColumn)])?.bool("bytewise") ?? false
    }
}
