import Foundation
import ReceiptCore

/// One row of the `entitlements` table as a refresh writes it: one source of one entitlement.
/// `computed_at` is left out: it records when the row's content last changed, not a refresh.
/// A class: a refresh hands each row through the calculation, the comparison with the stored
/// rows and the cache, and a struct of nine strings was copied (and destroyed) field by field
/// at each step, a tenth of a batch import's writing thread on SQLite.
final class EntitlementRow: Equatable, Sendable {
    /// What names a source among a customer's rows: a purchase by its transaction, a manual
    /// grant by its id, the paid-to-free rule by its entitlement alone.
    struct Key: Hashable {
        let entitlement: String
        let source: String
        let transactionId: String?
        let grantId: Int64?
    }

    let key: Key
    let startsAt: String?
    let endsAt: String?
    let units: Int64?
    let active: Bool
    let revoked: Bool
    let revokedBy: String?
    let reason: String
    let flags: String

    /// The row for one source of `state`.
    init(_ state: EntitlementState, _ source: EntitlementSource) {
        key = Key(entitlement: state.name, source: source.kind.rawValue, transactionId: source.transactionId, grantId: source.grantId)
        startsAt = source.starts.map(StoreDates.format)
        endsAt = source.ends.map(StoreDates.format)
        units = source.units
        active = source.isActive
        revoked = source.flags.contains { $0.hasPrefix("revoked") }
        revokedBy = source.flags.first { $0.hasPrefix("revoked by ") }.map { String($0.dropFirst("revoked by ".count)) }
        reason = source.reason
        flags = source.flags.joined(separator: ", ")
    }

    /// A row as stored: `selectColumns`, starting at column `first`.
    init(_ c: any SQLColumns, from first: Int = 0) {
        key = Key(entitlement: c.string(first) ?? "", source: c.string(first + 1) ?? "",
                  transactionId: c.string(first + 2), grantId: c.int(first + 3))
        startsAt = c.string(first + 4)
        endsAt = c.string(first + 5)
        units = c.int(first + 6)
        active = c.bool(first + 7)
        revoked = c.bool(first + 8)
        revokedBy = c.string(first + 9)
        reason = c.string(first + 10) ?? ""
        flags = c.string(first + 11) ?? ""
    }

    static func == (a: EntitlementRow, b: EntitlementRow) -> Bool {
        a === b || (a.key == b.key && a.startsAt == b.startsAt && a.endsAt == b.endsAt && a.units == b.units && a.active == b.active
                    && a.revoked == b.revoked && a.revokedBy == b.revokedBy && a.reason == b.reason && a.flags == b.flags)
    }

    /// Read by position (`init(_:from:)`): keep the two in the same order.
    static let selectColumns = """
        entitlement, source, transaction_id, grant_id, starts_at, ends_at, units, active, revoked, revoked_by, reason, flags
        """
}

/// Brings a customer's stored entitlement rows to a freshly computed set, writing only the rows
/// that differ: a refresh after one import adds that import's sources instead of rewriting every
/// row the customer has. The rows afterwards are exactly the computed ones.
struct EntitlementRowWriter {
    let database: SQLDatabase
    let customerId: String
    let now: Date

    /// The customer's rows as the database holds them.
    func storedRows() throws -> [EntitlementRow] {
        var rows: [EntitlementRow] = []
        try database.forEachRow("SELECT \(EntitlementRow.selectColumns) FROM entitlements WHERE customer_id = ?", [.text(customerId)]) {
            rows.append(EntitlementRow($0))
        }
        return rows
    }

    /// Brings the customer's rows from `stored` (what the database holds) to `rows`.
    func write(_ rows: [EntitlementRow], stored: [EntitlementRow]) throws {
        var existing: [EntitlementRow.Key: EntitlementRow] = [:]
        existing.reserveCapacity(stored.count)
        for row in stored where existing.updateValue(row, forKey: row.key) != nil {
            return try rewrite(rows)  // two stored rows share a key: only a rewrite can tell them apart
        }
        var seen = Set<EntitlementRow.Key>()
        seen.reserveCapacity(rows.count)
        for row in rows where !seen.insert(row.key).inserted { return try rewrite(rows) }
        for row in rows {
            switch existing.removeValue(forKey: row.key) {
            case nil: try insert(row)
            case let old? where old != row: try update(row)
            default: break
            }
        }
        for key in existing.keys { try database.executeLater("DELETE FROM entitlements WHERE \(Self.match(key))", Self.keyValues(customerId, key)) }
    }

    /// Deletes every row of the customer and inserts `rows`.
    func rewrite(_ rows: [EntitlementRow]) throws {
        try database.executeLater("DELETE FROM entitlements WHERE customer_id = ?", [.text(customerId)])
        for row in rows { try insert(row) }
    }

    private func insert(_ row: EntitlementRow) throws {
        try database.executeLater("""
            INSERT INTO entitlements (customer_id, entitlement, source, transaction_id, grant_id, starts_at, ends_at,
                                      units, active, revoked, revoked_by, reason, flags, computed_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(customerId), .text(row.key.entitlement), .text(row.key.source), .text(row.key.transactionId),
                  .integer(row.key.grantId), .text(row.startsAt), .text(row.endsAt), .integer(row.units), .bool(row.active),
                  .bool(row.revoked), .text(row.revokedBy), .text(row.reason), .text(row.flags), .date(now)])
    }

    private func update(_ row: EntitlementRow) throws {
        try database.executeLater("""
            UPDATE entitlements SET starts_at = ?, ends_at = ?, units = ?, active = ?, revoked = ?, revoked_by = ?,
                                    reason = ?, flags = ?, computed_at = ?
            WHERE \(Self.match(row.key))
            """, [.text(row.startsAt), .text(row.endsAt), .integer(row.units), .bool(row.active), .bool(row.revoked),
                  .text(row.revokedBy), .text(row.reason), .text(row.flags), .date(now)] + Self.keyValues(customerId, row.key))
    }

    /// The condition naming the row of `key` (`IS NULL` where the key has no value, so the SQL
    /// is the same on every backend).
    static func match(_ key: EntitlementRow.Key) -> String {
        "customer_id = ? AND entitlement = ? AND source = ? AND "
            + (key.transactionId == nil ? "transaction_id IS NULL" : "transaction_id = ?") + " AND "
            + (key.grantId == nil ? "grant_id IS NULL" : "grant_id = ?")
    }

    static func keyValues(_ customerId: String, _ key: EntitlementRow.Key) -> [SQLValue] {
        var values: [SQLValue] = [.text(customerId), .text(key.entitlement), .text(key.source)]
        if let transaction = key.transactionId { values.append(.text(transaction)) }
        if let grant = key.grantId { values.append(.integer(grant)) }
        return values
    }
}
