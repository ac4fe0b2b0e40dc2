import Foundation

/// A narrow name search read once per page request (SQLite): the trigram search behind a
/// customers' name, email or id fragment is the costly part of a search on a large shop, and the
/// broad check, the page and each merged lookup would each run it again.
extension Browser {
    /// A name search (`SQLCondition.rowSubquery`) matching at most `BrowseLimits.matchCountCap`
    /// rows, as the list of those rows: read once here, where the broad check, the page and each
    /// merged lookup read the whole trigram search again (at ten million transactions tens of
    /// milliseconds each). Any other lookup, or a broader one, as it is.
    func listedIfNarrow(_ source: SQLCondition) throws -> SQLCondition {
        guard let (column, sql) = source.rowSubquery else { return source }
        let cap = BrowseLimits.matchCountCap
        let rows = try database.query("\(sql) LIMIT \(cap + 1)", source.parameters).compactMap { $0.int("rowid") }
        guard rows.count <= cap else { return source }
        // None: `IN (NULL)` matches nothing and is still planned as a search of the key.
        guard let last = rows.last else { return SQLCondition("\(column) IN (?)", [.null]) }
        // Padded to a power of two with the last row again: a handful of statement shapes serve
        // every length, so the connection's statement cache is not churned by one per search.
        var width = 1
        while width < rows.count { width *= 2 }
        let listed = rows + Array(repeating: last, count: width - rows.count)
        return SQLCondition("\(column) IN (\(SQLDialect.placeholders(width)))", listed.map { .integer($0) })
    }
}
