import Foundation

/// Every row of a table that belongs to one thing (a customer's grants, a customer's
/// transactions) as an operator saw them: rows added, removed or changed later mean that
/// what the operator decided on is no longer what the database holds.
public struct RowSetSnapshot: Sendable, Equatable {
    public let table: GuardedTable
    /// The column the rows are selected by and its value (`customer_id` = `alice`).
    public let column: String
    public let value: String
    /// The rows by key.
    public let rows: [String: RowSnapshot]
}

extension RowGuard {
    /// The rows of `table` whose `column` equals `value`, as they are now.
    public static func snapshot(_ database: SQLDatabase, _ table: GuardedTable, where column: String, equals value: String) throws -> RowSetSnapshot {
        var rows: [String: RowSnapshot] = [:]
        for row in try database.query("SELECT * FROM \(table.rawValue) WHERE \(column) = ?", [.text(value)]) {
            guard let key = row.string(table.keyColumn) else { continue }
            var values: [String: SQLValue] = [:]
            for (name, cell) in zip(row.columns, row.values) { values[name] = cell }
            rows[key] = RowSnapshot(table: table, key: key, version: table.isVersioned ? row.int("version") : nil, values: values)
        }
        return RowSetSnapshot(table: table, column: column, value: value, rows: rows)
    }

    /// What differs between `snapshot` and the rows now, one phrase per row ("grant 4 added",
    /// "transaction 1000 changed (customer_id alice → bob)"); empty when nothing did.
    public static func changes(_ database: SQLDatabase, since snapshot: RowSetSnapshot) throws -> [String] {
        let now = try self.snapshot(database, snapshot.table, where: snapshot.column, equals: snapshot.value)
        var phrases: [String] = []
        let noun = snapshot.table.noun
        for key in Set(snapshot.rows.keys).union(now.rows.keys).sorted() {
            switch (snapshot.rows[key], now.rows[key]) {
            case (nil, .some): phrases.append("\(noun) \(key) added")
            case (.some, nil): phrases.append("\(noun) \(key) gone")
            case (let before?, let after?):
                if let version = before.version, after.version == version { continue }
                let differing = before.values.keys.sorted().compactMap { column -> ColumnChange? in
                    let (old, new) = (before.values[column] ?? .null, after.values[column] ?? .null)
                    return old == new || column == "version" || column == "updated_at" ? nil : ColumnChange(column: column, before: old, after: new)
                }
                if !differing.isEmpty {
                    phrases.append("\(noun) \(key): " + differing.prefix(3).map(\.description).joined(separator: ", "))
                }
            case (nil, nil): continue
            }
        }
        return phrases
    }

    /// Refuses (`StoreError.invalidRequest`) when rows were added to, removed from or changed in
    /// the set since `snapshot`, naming them. Call it inside the write transaction of the action.
    public static func expectUnchanged(_ database: SQLDatabase, _ snapshot: RowSetSnapshot) throws {
        let phrases = try changes(database, since: snapshot)
        guard !phrases.isEmpty else { return }
        let shown = phrases.prefix(4).joined(separator: "; ") + (phrases.count > 4 ? "; \(phrases.count - 4) more" : "")
        throw StoreError(.invalidRequest,
                         "the \(snapshot.table.rawValue) of \(snapshot.column.replacingOccurrences(of: "_id", with: "")) \(snapshot.value) were changed by someone else since you looked (\(shown)): nothing was done; look again and repeat the action if it still applies")
    }

    /// Runs `action` in one write transaction after checking that none of `rows` and none of
    /// `sets` changed.
    public static func perform<T>(_ database: SQLDatabase, unchanged rows: [RowSnapshot], sets: [RowSetSnapshot],
                                  _ action: () throws -> T) throws -> T {
        try database.writeTransaction {
            for snapshot in rows { try expectUnchanged(database, snapshot) }
            for snapshot in sets { try expectUnchanged(database, snapshot) }
            return try action()
        }
    }
}
