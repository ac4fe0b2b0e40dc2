import Foundation

/// When a name search is read by walking the list in key order (SQLite): one that matches more
/// customers than can be listed (`Browser.listedIfNarrow`) but fewer than `BrowseLimits.sortCap`
/// was merged by sorting its matches, a table lookup each (15,500 for `Иванов` at ten million
/// transactions, about 100 ms), where a walk finds a page of them after a few thousand keys.
extension Browser {
    /// The page length a walk's budget is sized for (a console screen is shorter).
    static let walkedPageRows: Int64 = 64
    /// The most keys a walked name search may examine per page; past this the sort is cheaper.
    static let nameWalkBudget: Int64 = 100_000

    /// `query` walked in key order with a budget that finds a page three times over on average,
    /// when its broadest name search (`counts`: each source's matches, capped past
    /// `BrowseLimits.sortCap`; `offset`: the index of the first counted source) matches more than
    /// `BrowseLimits.matchCountCap` rows and that budget is at most `nameWalkBudget`; else nil.
    func nameSearchWalk(_ query: BrowseQuery, counts: [Int64], offset: Int) throws -> BrowseQuery? {
        let names = counts.enumerated().filter { query.sources[offset + $0.offset].rowSubquery != nil }.map(\.element)
        guard let matches = names.max(), matches > BrowseLimits.matchCountCap else { return nil }
        // The list's size from its largest rowid: one index step, and close (rows are rarely deleted).
        guard let rows = try database.queryFirst("SELECT max(rowid) AS n FROM \(query.tableName)", [])?.int("n"),
              let budget = Self.walkBudget(query.table, rows: rows, matches: matches) else { return nil }
        var walked = query.walkingLookups
        walked.walkBudget = budget
        return walked
    }

    /// The keys a walk of `table` (about `rows` rows) may examine per page to find
    /// `walkedPageRows` of `matches` spread through it three times over on average, in whole
    /// chunks and at least the list's scan budget; nil past `nameWalkBudget` (or with no rows).
    static func walkBudget(_ table: BrowseTable, rows: Int64, matches: Int64) -> Int64? {
        guard rows > 0, matches > 0 else { return nil }
        let expected = (walkedPageRows * rows + matches - 1) / matches
        let chunk = BrowseLimits.scanChunk
        let budget = max(BrowseLimits.scanBudget(table), (3 * expected + chunk - 1) / chunk * chunk)
        return budget <= nameWalkBudget ? budget : nil
    }
}
