import Foundation
import PurchaseStore

/// What an operator saw before confirming a change: the rows the change acts on, read when its
/// preview was built. Applying it re-reads them inside the change's write transaction
/// (`RowGuard`), so a change another operator made meanwhile refuses the action with what
/// changed instead of it being applied blindly.
struct ChangeGuard {
    let rows: [RowSnapshot]
    let sets: [RowSetSnapshot]

    /// No rows to watch (an import: recording a receipt is idempotent).
    static let none = ChangeGuard(rows: [], sets: [])

    /// The rows `change` decides on, as they are now.
    static func snapshot(_ change: PendingChange, database: SQLDatabase) throws -> ChangeGuard {
        var rows: [RowSnapshot] = []
        var sets: [RowSetSnapshot] = []
        func customer(_ id: String) throws {
            if let row = try RowGuard.snapshot(database, .customers, key: id) { rows.append(row) }
            sets.append(try RowGuard.snapshot(database, .grants, where: "customer_id", equals: id))
            sets.append(try RowGuard.snapshot(database, .transactions, where: "customer_id", equals: id))
        }
        switch change {
        case .grant(let id, _, _, _), .revoke(let id, _, _), .erase(let id, _):
            try customer(id)
        case .restore(let id, let from, let transactionIds, _, _, _):
            try customer(id)
            if let from { try customer(from) }
            for transaction in transactionIds {
                if let row = try RowGuard.snapshot(database, .transactions, key: transaction) { rows.append(row) }
            }
        case .resolve(let conflictId, _, _):
            if let conflict = try RowGuard.snapshot(database, .conflicts, key: String(conflictId)) {
                rows.append(conflict)
                if case .text(let transaction)? = conflict.values["transaction_id"],
                   let row = try RowGuard.snapshot(database, .transactions, key: transaction) {
                    rows.append(row)
                }
            }
        // A note decides on nothing (two at once are two notes); a batch decides on each customer
        // again under its lock and leaves out whoever was granted meanwhile.
        // Re-verifying records Apple's answer whatever changed meanwhile.
        case .importArtefact, .apple, .note, .grantBatch, .reverify:
            return .none
        case .many(let changes):
            for change in changes {
                let each = try snapshot(change, database: database)
                rows += each.rows
                sets += each.sets
            }
        }
        return ChangeGuard(rows: rows, sets: sets)
    }

    /// Runs `action` in one write transaction if nothing this guard watches changed.
    func perform<T>(_ database: SQLDatabase, _ action: () throws -> T) throws -> T {
        try RowGuard.perform(database, unchanged: rows, sets: sets, action)
    }
}
