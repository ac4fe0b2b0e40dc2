import Foundation

/// The rows an operator acts on, and the column naming each.
public enum GuardedTable: String, Sendable, CaseIterable {
    case customers, orders, transactions, grants, conflicts

    /// The primary key column.
    var keyColumn: String {
        switch self {
        case .customers: return "customer_id"
        case .orders: return "order_id"
        case .transactions: return "transaction_id"
        case .grants: return "grant_id"
        case .conflicts: return "conflict_id"
        }
    }

    /// Whether the table carries a `version` column that every ledger update bumps.
    var isVersioned: Bool { self == .customers || self == .orders || self == .transactions }

    /// The singular noun for messages ("order ORD-1 changed …").
    var noun: String {
        switch self {
        case .customers: return "customer"
        case .orders: return "order"
        case .transactions: return "transaction"
        case .grants: return "grant"
        case .conflicts: return "conflict"
        }
    }

    func keyValue(_ key: String) -> SQLValue {
        switch self {
        case .grants, .conflicts: return Int64(key).map(SQLValue.integer) ?? .text(key)
        default: return .text(key)
        }
    }
}

/// One row as an operator saw it when they chose an action: the table, the key, the row's
/// `version` where the table has one, and every column value.
public struct RowSnapshot: Sendable, Equatable {
    public let table: GuardedTable
    public let key: String
    /// The `version` column (customers, orders, transactions); nil on other tables.
    public let version: Int64?
    /// Every column of the row, by name.
    public let values: [String: SQLValue]
}

/// One column that differs between what the operator saw and what the row holds now.
public struct ColumnChange: Sendable, Equatable, CustomStringConvertible {
    public let column: String
    public let before: SQLValue
    public let after: SQLValue

    public var description: String { "\(column) \(Self.show(before)) → \(Self.show(after))" }

    static func show(_ value: SQLValue) -> String {
        switch value {
        case .null: return "–"
        case .integer(let number): return String(number)
        case .real(let number): return String(number)
        case .text(let text): return text.count > 40 ? String(text.prefix(40)) + "…" : text
        case .blob(let bytes): return "\(bytes.count) bytes"
        }
    }
}

/// Optimistic concurrency for operator actions, on every backend: read a `RowSnapshot` when the
/// operator picks a row, then run the action through `perform(unchanged:)`. Inside the action's
/// write transaction each snapshot is compared with the row as it is now (its `version`, or all
/// of its columns on tables without one); if someone else changed it meanwhile the action is
/// refused with what changed, and nothing is written.
///
///     let seen = try RowGuard.snapshot(db, .orders, key: "ORD-1")   // when the screen showed it
///     try RowGuard.perform(db, unchanged: [seen]) {                 // when the operator confirms
///         try ledger.recordFailedPayment("ORD-1", reason: r, operatorName: me)
///     }
///
/// The ledger operation nests in the guard's transaction (both backends nest write transactions),
/// so the check and the change commit together.
public enum RowGuard {
    /// The row as it is now; nil when there is no such row.
    public static func snapshot(_ database: SQLDatabase, _ table: GuardedTable, key: String) throws -> RowSnapshot? {
        guard let row = try database.queryFirst("SELECT * FROM \(table.rawValue) WHERE \(table.keyColumn) = ?", [table.keyValue(key)]) else {
            return nil
        }
        var values: [String: SQLValue] = [:]
        for (column, value) in zip(row.columns, row.values) { values[column] = value }
        return RowSnapshot(table: table, key: key, version: table.isVersioned ? row.int("version") : nil, values: values)
    }

    /// What changed in the row since `snapshot`: nil when nothing did, an empty list when the row
    /// is gone, else the columns that differ (the version included).
    public static func changes(_ database: SQLDatabase, since snapshot: RowSnapshot) throws -> [ColumnChange]? {
        guard let now = try self.snapshot(database, snapshot.table, key: snapshot.key) else { return [] }
        if let version = snapshot.version, now.version == version { return nil }
        let differing = Set(snapshot.values.keys).union(now.values.keys).sorted().compactMap { column -> ColumnChange? in
            let before = snapshot.values[column] ?? .null
            let after = now.values[column] ?? .null
            return before == after ? nil : ColumnChange(column: column, before: before, after: after)
        }
        return differing.isEmpty ? nil : differing
    }

    /// Refuses (`StoreError.invalidRequest`) when the row changed since `snapshot`, naming what
    /// changed. Call it inside the write transaction of the action it guards.
    public static func expectUnchanged(_ database: SQLDatabase, _ snapshot: RowSnapshot) throws {
        guard let changes = try changes(database, since: snapshot) else { return }
        let row = "\(snapshot.table.noun) \(snapshot.key)"
        guard !changes.isEmpty else {
            throw StoreError(.invalidRequest, "\(row) was removed by someone else since you looked at it: nothing was done")
        }
        let shown = changes.filter { $0.column != "version" && $0.column != "updated_at" }
        let what = (shown.isEmpty ? changes : shown).prefix(6).map(\.description).joined(separator: ", ")
        throw StoreError(.invalidRequest,
                         "\(row) was changed by someone else since you looked at it (\(what)): nothing was done; look at it again and repeat the action if it still applies")
    }

    /// Runs `action` in one write transaction after checking that none of `snapshots` changed.
    public static func perform<T>(_ database: SQLDatabase, unchanged snapshots: [RowSnapshot], _ action: () throws -> T) throws -> T {
        try database.writeTransaction {
            for snapshot in snapshots { try expectUnchanged(database, snapshot) }
            return try action()
        }
    }
}
