import Foundation

/// How many rows of one list a search matches: exact up to `BrowseLimits.matchCountCap`, or a
/// lower bound ("1,000+", or "12+" when a scan without an index stopped at its budget first).
public struct MatchCount: Sendable, Equatable {
    public let count: Int64
    /// True when there may be more than `count`.
    public let isLowerBound: Bool
    /// Whether the search applies to the list at all (false: every word of it is ignored here,
    /// and `count` is the list's size).
    public let applies: Bool

    public init(count: Int64, isLowerBound: Bool, applies: Bool = true) {
        self.count = count
        self.isLowerBound = isLowerBound
        self.applies = applies
    }
}

extension Browser {
    /// How many rows of `table` match `filter`, without reading more than about
    /// `BrowseLimits.matchCountCap` index entries per lookup (or one scan budget when the filter
    /// has no lookup).
    public func matchCount(_ table: BrowseTable, filter: BrowseFilter) throws -> MatchCount {
        let cap = BrowseLimits.matchCountCap
        let unplanned = BrowseQuery(table, filter, database.dialect)
        // Lookups alone need no plan: a broad one shows as a count past the cap.
        if unplanned.predicates.isEmpty, !unplanned.sources.isEmpty { return try cappedUnionCount(unplanned) }
        let query = try planned(unplanned)
        // Every lookup is narrow here (`planned`): their union, each with the other conditions.
        if !query.sources.isEmpty { return try cappedUnionCount(query) }
        if query.predicates.isEmpty {
            // Nothing applies here: the whole list shows.
            let total = try rowCount(query.tableName)
            return MatchCount(count: total, isLowerBound: false, applies: filter.isEmpty)
        }
        let found = try matchingRows(query, KeyStep(.first, newestFirst: table.newestFirst), limit: Int(cap) + 1)
        return MatchCount(count: min(Int64(found.rows.count), cap), isLowerBound: found.rows.count > cap || found.scannedThrough != nil)
    }

    /// The count of rows matching any of `query`'s lookups, each with its other conditions, in
    /// one statement: each lookup read to at most one row past the cap, their union counted to
    /// the cap. A lookup that alone matches more than the cap makes the count a lower bound, as
    /// `broad` would have found in a statement of its own.
    private func cappedUnionCount(_ query: BrowseQuery) throws -> MatchCount {
        let cap = BrowseLimits.matchCountCap
        let branches = query.sources.enumerated().map { index, source -> (sql: String, parameters: [SQLValue]) in
            // Alone, a name search stops after cap + 1 matches; beside other conditions it may not.
            let conditions = query.predicates.isEmpty ? [source.capped(cap + 1)] : [source] + query.predicates
            return ("SELECT k FROM (SELECT \(query.key) AS k FROM \(query.tableName) WHERE " + conditions.map(\.sql).joined(separator: " AND ")
                        + " LIMIT \(cap + 1)) AS lookup\(index)",
                    conditions.flatMap(\.parameters))
        }
        let sql = SQLDialect.plannedPerValues + "SELECT count(*) AS n FROM (SELECT k FROM (" + branches.map(\.sql).joined(separator: " UNION ")
            + ") AS matched LIMIT \(cap + 1)) AS capped"
        let n = try database.queryFirst(sql, branches.flatMap(\.parameters))?.int("n") ?? 0
        return MatchCount(count: min(n, cap), isLowerBound: n > cap)
    }
}
