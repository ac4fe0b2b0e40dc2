import Foundation

/// A list sorted by a column (`BrowseSort`), paged as a keyset walk on (column, key).
///
/// The display order is two sections: the rows with a value, by (value, key) in the sort's
/// direction, then the rows without one (NULL), by key in the same direction. Each section is
/// one range of the index `(column, key)` of migration 0016 (PostgreSQL's row comparison and
/// SQLite's row values both read it as a range, and `column IS NULL` is an equality to both),
/// so a page reads about as many index entries as it shows, however deep it is and however many
/// rows tie. A page that ends a section goes on into the next.
///
/// A cursor is a row's key, as in the key order; the walk reads that row's value first (one
/// lookup by primary key). A row whose value changed since it was shown continues the walk from
/// where it is now.
struct SortedWalk {
    /// One range of one section.
    struct Segment {
        /// The rows without a value (else the rows with one).
        let nulls: Bool
        /// The bound: the cursor row's value and key (nil: from the section's end).
        let bound: (value: SQLValue, key: BrowseKey)?
        let `operator`: String
        let ascending: Bool

        var order: String { ascending ? "ASC" : "DESC" }
    }

    let segments: [Segment]
    /// Whether the rows come back in reverse display order (reading backwards from the cursor).
    let reversed: Bool

    /// The segments for `cursor`; `position` is the cursor row's value (`.null` for none) and key.
    init(_ cursor: PageCursor, descending: Bool, nullable: Bool, position: (value: SQLValue, key: BrowseKey)?) {
        let forward = !descending  // the index direction of display order
        func segment(_ nulls: Bool, _ ascending: Bool, _ op: String?) -> Segment {
            Segment(nulls: nulls, bound: op == nil ? nil : position, operator: op ?? "", ascending: ascending)
        }
        let onward = forward ? ">" : "<"
        let backward = forward ? "<" : ">"
        let inNulls = position?.value == .null
        var segments: [Segment]
        switch cursor {
        case .first:
            segments = [segment(false, forward, nil), segment(true, forward, nil)]
            reversed = false
        case .after, .from:
            var op = onward
            if case .from = cursor { op += "=" }
            segments = inNulls ? [segment(true, forward, op)] : [segment(false, forward, op), segment(true, forward, nil)]
            reversed = false
        case .last:
            segments = [segment(true, !forward, nil), segment(false, !forward, nil)]
            reversed = true
        case .before:
            segments = inNulls ? [segment(true, !forward, backward), segment(false, !forward, nil)] : [segment(false, !forward, backward)]
            reversed = true
        }
        self.segments = nullable ? segments : segments.filter { !$0.nulls }
    }
}

extension BrowseQuery {
    /// `SELECT … WHERE conditions AND <segment> ORDER BY column, key LIMIT n`, the row's value as
    /// `sort_value`. (`IS NOT NULL` only where the column may be NULL: SQLite then reads it as a range.)
    func sorted(conditions: [SQLCondition], column: String, nullable: Bool, _ segment: SortedWalk.Segment, limit: Int) -> BrowseStatement {
        let qualified = "\(tableName).\(column)"
        var range = segment.nulls || nullable ? [SQLCondition("\(qualified) IS \(segment.nulls ? "" : "NOT ")NULL")] : []
        if let bound = segment.bound {
            range.append(segment.nulls ? SQLCondition("\(key) \(segment.operator) ?", [bound.key.sqlValue])
                                       : SQLCondition("(\(qualified), \(key)) \(segment.operator) (?, ?)", [bound.value, bound.key.sqlValue]))
        }
        let all = conditions + range
        let sql = (conditions.isEmpty ? "" : SQLDialect.plannedPerValues)
            + "SELECT \(columns), \(key) AS browse_key, \(qualified) AS sort_value FROM \(tableName)"
            + (all.isEmpty ? "" : " WHERE " + all.map(\.sql).joined(separator: " AND ")) + " ORDER BY \(qualified) \(segment.order), \(key) \(segment.order) LIMIT ?"
        return BrowseStatement(sql: sql, parameters: all.flatMap(\.parameters) + [.integer(Int64(limit))], walksKeys: false)
    }
}

extension Browser {
    /// The rows of `query` sorted by `sort` from `cursor`, in the walk's order (reverse display
    /// order when `reversed`), at most `limit`. The query has no source or only narrow ones
    /// (`sortRefusal`), so every statement reads an index range or at most about
    /// `BrowseLimits.matchCountCap` rows per source.
    func sortedRows(_ query: BrowseQuery, _ sort: BrowseSort, column: String, cursor: PageCursor,
                    limit: Int) throws -> (rows: [SQLRow], reversed: Bool) {
        let walk = SortedWalk(cursor, descending: sort.descending, nullable: sort.nullable(query.table),
                              position: try position(query, column: column, cursor: cursor))
        var rows: [SQLRow] = []
        for segment in walk.segments where rows.count < limit {
            rows += try segmentRows(query, column: column, segment, limit: limit - rows.count)
        }
        return (rows, walk.reversed)
    }

    /// The statements of the first segment `sortedRows` runs from `cursor`, for plan checks.
    public func sortedStatements(_ table: BrowseTable, sort: BrowseSort, filter: BrowseFilter = BrowseFilter(),
                                 cursor: PageCursor, limit: Int) throws -> [(sql: String, parameters: [SQLValue])] {
        let query = try planned(BrowseQuery(table, filter, database.dialect))
        guard let column = sort.sqlColumn(table) else { return statements(table, filter: filter, cursor: cursor, limit: limit) }
        let walk = SortedWalk(cursor, descending: sort.descending, nullable: sort.nullable(table),
                              position: try position(query, column: column, cursor: cursor))
        guard let segment = walk.segments.first else { return [] }
        return segmentStatements(query, column: column, segment, limit: limit + 1).map { ($0.sql, $0.parameters) }
    }

    /// Why the planned `query` is not sorted by a column but walked by key: it has
    /// conditions but no index lookup, or a lookup matching more than `BrowseLimits.matchCountCap`
    /// rows, whose matches would all be read and sorted for every page. Nil: it sorts cheaply.
    func sortRefusal(_ query: BrowseQuery, _ sort: BrowseSort) throws -> String? {
        let cap = BrowseLimits.matchCountCap
        let reason = "shown by id, not by \(sort.column.rawValue): "
        if query.sources.isEmpty {
            guard !query.predicates.isEmpty else { return nil }
            return reason + "this search has no index lookup, so sorting would read every match; add an id or a name to sort"
        }
        // `planned` keeps lookups of up to `BrowseLimits.sortCap` matches (merged in key order);
        // sorting by a column for every page is held to the tighter cap.
        if try broad(query, cap: cap).contains(true) {
            return reason + "this search matches over \(cap) rows, too many to sort for each page; narrow it to sort"
        }
        return nil
    }

    /// The cursor row's value of `column` (`.null` for none) and its key; nil at either end.
    private func position(_ query: BrowseQuery, column: String, cursor: PageCursor) throws -> (value: SQLValue, key: BrowseKey)? {
        let key: BrowseKey
        switch cursor {
        case .first, .last: return nil
        case .after(let k), .before(let k), .from(let k): key = k
        }
        guard let row = try database.queryFirst("SELECT \(column) AS sort_value FROM \(query.tableName) WHERE \(query.key) = ?", [key.sqlValue]) else {
            throw StoreError(.notFound, "sorted \(query.table.rows): the row \(key) the page starts from is gone (removed meanwhile): reload the list (Ctrl-L)")
        }
        return (row["sort_value"], key)
    }

    /// One segment's rows: one statement without lookups; with them, SQLite runs one per lookup
    /// and merges them here, PostgreSQL one statement that unions them (as `matchingRows`).
    private func segmentRows(_ query: BrowseQuery, column: String, _ segment: SortedWalk.Segment, limit: Int) throws -> [SQLRow] {
        var rows: [SQLRow] = []
        for statement in segmentStatements(query, column: column, segment, limit: limit) {
            rows += try database.query(statement.sql, statement.parameters)
        }
        guard query.sources.count > 1 && isSQLite else { return rows }
        var seen = Set<BrowseKey>()
        rows = rows.filter { seen.insert(BrowseKey.read($0, textual: query.keyIsText)).inserted }
        rows.sort { a, b in
            let (x, y) = (Self.sortPosition(a, query), Self.sortPosition(b, query))
            return segment.ascending ? Self.precedes(x, y) : Self.precedes(y, x)
        }
        return Array(rows.prefix(limit))
    }

    private func segmentStatements(_ query: BrowseQuery, column: String, _ segment: SortedWalk.Segment, limit: Int) -> [BrowseStatement] {
        let nullable = BrowseSort.nullable(query.table, column: column)
        guard !query.sources.isEmpty else { return [query.sorted(conditions: query.predicates, column: column, nullable: nullable, segment, limit: limit)] }
        let each = query.sources.map { query.sorted(conditions: [$0] + query.predicates, column: column, nullable: nullable, segment, limit: limit) }
        if isSQLite || each.count == 1 { return each }
        let union = each.map { "(" + $0.sql.dropFirst(SQLDialect.plannedPerValues.count) + ")" }.joined(separator: " UNION ")
        return [BrowseStatement(sql: SQLDialect.plannedPerValues + "SELECT * FROM (\(union)) AS merged ORDER BY sort_value \(segment.order), browse_key \(segment.order) LIMIT ?",
                                parameters: each.flatMap(\.parameters) + [.integer(Int64(limit))], walksKeys: false)]
    }

    private static func sortPosition(_ row: SQLRow, _ query: BrowseQuery) -> (SQLValue, BrowseKey) {
        (row["sort_value"], BrowseKey.read(row, textual: query.keyIsText))
    }

    /// (value, key) order as SQLite's BINARY collation has it: text by UTF-8 bytes, numbers by value.
    private static func precedes(_ a: (SQLValue, BrowseKey), _ b: (SQLValue, BrowseKey)) -> Bool {
        switch (a.0, b.0) {
        case (.text(let x), .text(let y)) where x != y: return x.utf8.lexicographicallyPrecedes(y.utf8)
        case (.integer(let x), .integer(let y)) where x != y: return x < y
        default: return a.1 < b.1
        }
    }
}
