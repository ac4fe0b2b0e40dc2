import Foundation

/// PostgreSQL and index lookups whose matches sit together far from the cursor.
///
/// For a lookup it expects to match many rows (a name fragment through the trigram index, an id
/// prefix), PostgreSQL plans `ORDER BY key LIMIT n` as a walk of the primary key that tests each
/// row, counting on the matches being spread evenly. When they sit together (`cust-2…` behind
/// 49,000 customers whose ids sort first), that walk reads everything before them: 130 ms for the
/// first page on a million transactions. So a page of lookups of which one matches more than
/// `BrowseLimits.matchCountCap` rows (narrower ones PostgreSQL reads through their index anyway)
/// is read in two steps: one chunk of
/// keys from the cursor (`BrowseLimits.scanChunk`, an index-only read) tested against the lookups,
/// which is all it takes when the matches are dense; and only when that chunk leaves the page
/// short, the lookups' matches gathered once through their indexes (a materialized common table
/// expression, which the planner cannot turn back into the walk) and sorted: at most
/// `BrowseLimits.sortCap` each, as `planned` allows. (`key IN (SELECT … OFFSET 0)` was tried
/// first: without statistics PostgreSQL ran it once per row.)
extension Browser {
    /// The page when one chunk of keys from the cursor holds it (or holds every key left); nil
    /// when the matches are sparser than that near the cursor.
    func denseLookupPage(_ query: BrowseQuery, _ step: KeyStep, limit: Int) throws -> [SQLRow]? {
        let (rows, stoppedAt) = try boundedScan(query.walkingLookups, step, limit: limit, budget: BrowseLimits.scanChunk)
        return stoppedAt == nil ? rows : nil
    }

    /// The page read from `query`'s lookups' matches gathered once (a materialized union of
    /// index lookups, which the planner cannot turn back into the walk), joined to the table by
    /// key and ordered.
    func gatheredLookupPage(_ query: BrowseQuery, _ step: KeyStep, limit: Int) throws -> [SQLRow] {
        let union = query.sources.map { "SELECT \(query.key) AS k FROM \(query.tableName) WHERE \($0.sql)" }.joined(separator: " UNION ")
        let conditions = query.predicates + step.condition(query.key)
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.map(\.sql).joined(separator: " AND ")
        let sql = SQLDialect.plannedPerValues + "WITH matched AS MATERIALIZED (\(union)) SELECT \(query.columns), \(query.key) AS browse_key FROM "
            + "\(query.tableName) JOIN matched ON \(query.key) = matched.k\(filter) ORDER BY \(query.key) \(step.order) LIMIT ?"
        return try database.query(sql, query.sources.flatMap(\.parameters) + conditions.flatMap(\.parameters) + [.integer(Int64(limit))])
    }
}
