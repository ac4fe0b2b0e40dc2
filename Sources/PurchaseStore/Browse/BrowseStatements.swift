import Foundation

/// One statement a list runs, and whether it only walks the key index from a cursor (no filter
/// condition: `ORDER BY key LIMIT n` reads n index entries, whatever the plan calls it).
struct BrowseStatement {
    let sql: String
    let parameters: [SQLValue]
    let walksKeys: Bool
}

/// A cursor turned into SQL: the comparison with the bound key (none at either end of the
/// list), the direction to read in, and whether the rows come back in reverse display order.
struct KeyStep {
    let `operator`: String
    let bound: BrowseKey?
    let ascending: Bool
    let reversed: Bool

    init(_ cursor: PageCursor, newestFirst: Bool) {
        // Written for oldest-first lists; a newest-first list mirrors every comparison.
        var op: String
        var bound: BrowseKey?
        var forward: Bool
        switch cursor {
        case .first: (op, bound, forward) = (">", nil, true)
        case .after(let key): (op, bound, forward) = (">", key, true)
        case .from(let key): (op, bound, forward) = (">=", key, true)
        case .last: (op, bound, forward) = ("<", nil, false)
        case .before(let key): (op, bound, forward) = ("<", key, false)
        }
        if newestFirst {
            let mirrored = ["<": ">", ">": "<", ">=": "<=", "<=": ">="]
            op = mirrored[op] ?? op
        }
        self.operator = op
        self.bound = bound
        self.ascending = forward != newestFirst
        self.reversed = !forward
    }

    /// The condition `key op bound`, or none at an end of the list.
    func condition(_ key: String) -> [SQLCondition] {
        bound.map { [SQLCondition("\(key) \(self.operator) ?", [$0.sqlValue])] } ?? []
    }

    var order: String { ascending ? "ASC" : "DESC" }
}

extension BrowseQuery {
    /// `SELECT … WHERE conditions AND key op ? ORDER BY key LIMIT n`.
    func keyed(conditions: [SQLCondition], _ step: KeyStep, limit: Int) -> BrowseStatement {
        select(conditions + step.condition(key), order: step.order, limit: limit, walksKeys: conditions.isEmpty)
    }

    /// The rows of one chunk of a bounded scan: keys past `from` (or from the cursor's bound on
    /// the first chunk) up to and including `through`, that meet the predicates.
    func chunkRows(_ step: KeyStep, from: BrowseKey?, through: BrowseKey, limit: Int) -> BrowseStatement {
        let start = from.map { [SQLCondition("\(key) \(step.ascending ? ">" : "<") ?", [$0.sqlValue])] } ?? step.condition(key)
        let end = SQLCondition("\(key) \(step.ascending ? "<=" : ">=") ?", [through.sqlValue])
        return select(predicates + start + [end], order: step.order, limit: limit, walksKeys: false)
    }

    /// The last key of the next chunk of a bounded scan (`chunk_end`) and how many keys it holds
    /// (`chunk_keys`): an index-only read of at most `keys` keys.
    func chunkEnd(_ step: KeyStep, from: BrowseKey?, keys: Int64 = BrowseLimits.scanChunk) -> BrowseStatement {
        let start = from.map { [SQLCondition("\(key) \(step.ascending ? ">" : "<") ?", [$0.sqlValue])] } ?? step.condition(key)
        let filter = start.isEmpty ? "" : " WHERE " + start.map(\.sql).joined(separator: " AND ")
        let sql = "SELECT \(step.ascending ? "max" : "min")(k) AS chunk_end, count(*) AS chunk_keys FROM (SELECT \(key) AS k FROM \(tableName)"
            + filter + " ORDER BY \(key) \(step.order) LIMIT ?) AS chunk"
        return BrowseStatement(sql: sql, parameters: start.flatMap(\.parameters) + [.integer(keys)], walksKeys: true)
    }

    private func select(_ conditions: [SQLCondition], order: String, limit: Int, walksKeys: Bool) -> BrowseStatement {
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.map(\.sql).joined(separator: " AND ")
        let sql = (walksKeys ? "" : SQLDialect.plannedPerValues)
            + "SELECT \(columns), \(key) AS browse_key FROM \(tableName)\(filter) ORDER BY \(key) \(order) LIMIT ?"
        return BrowseStatement(sql: sql, parameters: conditions.flatMap(\.parameters) + [.integer(Int64(limit))], walksKeys: walksKeys)
    }
}
