import Foundation
import ReceiptCore

/// How many rows each list holds, read without counting every row. On SQLite: `max(rowid)`, one
/// index step per table; the ledger never deletes from these tables, so the highest rowid is the
/// number of rows ever written (exact unless someone deleted rows by hand, then an over-estimate).
/// On PostgreSQL: an exact count up to `BrowseLimits.exactCount` rows, beyond that the planner's
/// estimate (`pg_class.reltuples`). Open conflicts are counted through `conflicts_by_status`,
/// which holds only the few open ones.
public struct BrowseCounts: Sendable, Equatable {
    public var rows: [BrowseTable: Int64]
    public var openConflicts: Int64
    /// When the newest artefact arrived (its receipt row: an import, a served purchase or
    /// notification); nil on an empty ledger. What "live: 3 s ago" is measured from.
    public var lastArrival: Date? = nil

    public init(rows: [BrowseTable: Int64] = [:], openConflicts: Int64 = 0) {
        self.rows = rows
        self.openConflicts = openConflicts
    }
}

/// One attempt to ask Apple, as recorded.
public struct VerificationAttemptRecord: Sendable, Equatable {
    public let attemptedAt: Date
    public let receiptId: Int64?
    public let endpoint: String
    public let environment: String?
    public let status: String?
    public let outcome: String
    public let detail: String?
    public let operatorName: String
}

/// A stored receipt with its raw bytes, for decoding in the detail pane.
public struct StoredReceipt: Sendable {
    public let record: ReceiptRecord
    public let raw: [UInt8]
    /// The environment Apple's last answer named (stored name).
    public let appleEnvironment: String?
    public let lastVerifiedAt: Date?
    /// The newest attempts to ask Apple about it (at most 5), newest first.
    public let attempts: [VerificationAttemptRecord]
    /// Apple's last judgement of the receipt ("valid" / "invalid"), nil before any.
    public var appleVerdict: String? = nil
    /// The line saying Apple's last answer contradicts the local verdict, nil when it does not.
    public var appleContradiction: String? = nil
    /// When its raw bytes were erased with the customer's personal data (nil: never).
    public var erasedAt: Date? = nil
    /// What the revocation check said when it was imported ("revocation: checked … good"), and
    /// its outcome ("good", "revoked", "notChecked"); nil when no check was asked for
    /// (`appStore.revocation` off).
    public var revocationAtImport: (summary: String, outcome: String)? = nil

    /// The revocation member of a stored verdict (`decoded_json`), when the import checked.
    static func revocation(inDecoded json: String?) -> (summary: String, outcome: String)? {
        guard let json, json.contains("\"revocation\""),
              let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let revocation = (object["verdict"] as? [String: Any])?["revocation"] as? [String: Any],
              let summary = revocation["summary"] as? String else { return nil }
        return (summary, revocation["outcome"] as? String ?? "notChecked")
    }
}

/// A manual revocation, for the customer timeline.
public struct RevocationRecord: Sendable, Equatable {
    public let entitlement: String
    public let revokedAt: Date
    public let revokedBy: String
    public let reason: String
}

extension Browser {
    /// The row counts of every list and the number of open conflicts.
    public func counts() throws -> BrowseCounts {
        var counts = BrowseCounts()
        for table in BrowseTable.allCases {
            let name = BrowseQuery(table, BrowseFilter()).tableName
            counts.rows[table] = try rowCount(name)
        }
        counts.openConflicts = try database.queryFirst("SELECT count(*) AS n FROM conflicts WHERE status = 'open'", [])?.int("n") ?? 0
        // The newest receipt by its key: one index step, whatever the table's size.
        counts.lastArrival = try database.queryFirst("SELECT imported_at FROM receipts ORDER BY receipt_id DESC LIMIT 1", [])?.date("imported_at")
        return counts
    }

    func rowCount(_ table: String) throws -> Int64 {
        if database.dialect.name == SQLDialect.sqlite.name {
            return try database.queryFirst("SELECT max(rowid) AS n FROM \(table)", [])?.int("n") ?? 0
        }
        let cap = BrowseLimits.exactCount
        let exact = try database.queryFirst("SELECT count(*) AS n FROM (SELECT 1 FROM \(table) LIMIT \(cap + 1)) AS capped", [])?.int("n") ?? 0
        guard exact > cap else { return exact }
        let estimate = try database.queryFirst("""
            SELECT reltuples::bigint AS n FROM pg_class
            WHERE relname = ? AND relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
            """, [.text(table)])?.int("n") ?? 0
        return max(exact, estimate)
    }

    /// One stored receipt with its bytes and newest attempts.
    public func receipt(_ receiptId: Int64) throws -> StoredReceipt? {
        guard let row = try database.queryFirst("""
            SELECT receipt_id, sha256, raw, format, environment, verdict, verdict_reason, source, customer_id, imported_at, imported_by,
                   apple_environment, last_verified_at, apple_verdict, apple_contradiction, decoded_json, erased_at
            FROM receipts WHERE receipt_id = ?
            """, [.integer(receiptId)]) else { return nil }
        let attempts = try database.query("""
            SELECT * FROM verification_attempts WHERE receipt_id = ? ORDER BY attempt_id DESC LIMIT 5
            """, [.integer(receiptId)]).map(Self.attempt)
        var stored = StoredReceipt(record: PurchaseLedger.receiptRecord(row), raw: row.blob("raw") ?? [],
                             appleEnvironment: row.string("apple_environment"), lastVerifiedAt: row.date("last_verified_at"),
                             attempts: attempts, appleVerdict: row.string("apple_verdict"),
                             appleContradiction: row.string("apple_contradiction"),
                             revocationAtImport: StoredReceipt.revocation(inDecoded: row.string("decoded_json")))
        stored.erasedAt = row.date("erased_at")
        return stored
    }

    /// One conflict by number.
    public func conflict(_ conflictId: Int64) throws -> ConflictRecord? {
        try database.queryFirst("SELECT \(PurchaseLedger.conflictColumns) FROM conflicts k WHERE k.conflict_id = ?", [.integer(conflictId)])
            .map(PurchaseLedger.conflictRecord)
    }

    /// One audit entry by sequence number.
    public func auditEntry(_ seq: Int64) throws -> AuditEntry? {
        try database.queryFirst("SELECT * FROM audit_log WHERE seq = ?", [.integer(seq)]).map(Self.auditEntry)
    }

    /// Whether the customer exists.
    public func customerExists(_ customerId: String) throws -> Bool {
        try database.queryFirst("SELECT 1 AS found FROM customers WHERE customer_id = ?", [.text(customerId)]) != nil
    }

    /// The newest attempts to ask Apple about any receipt of the customer (at most `limit`), newest first.
    public func verificationAttempts(customer customerId: String, limit: Int = 100) throws -> [VerificationAttemptRecord] {
        try database.query("""
            SELECT * FROM verification_attempts WHERE receipt_id IN (SELECT receipt_id FROM receipts WHERE customer_id = ?)
            ORDER BY attempt_id DESC LIMIT ?
            """, [.text(customerId), .integer(Int64(limit))]).map(Self.attempt)
    }

    /// The customer's manual revocations, oldest first.
    public func revocations(customer customerId: String) throws -> [RevocationRecord] {
        try database.query("SELECT * FROM revocations WHERE customer_id = ? ORDER BY revocation_id", [.text(customerId)]).map { row in
            RevocationRecord(entitlement: row.string("entitlement") ?? "", revokedAt: row.date("revoked_at") ?? .distantPast,
                             revokedBy: row.string("revoked_by") ?? "", reason: row.string("reason") ?? "")
        }
    }

    static func attempt(_ row: SQLRow) -> VerificationAttemptRecord {
        VerificationAttemptRecord(attemptedAt: row.date("attempted_at") ?? .distantPast, receiptId: row.int("receipt_id"),
                                  endpoint: row.string("endpoint") ?? "", environment: row.string("environment"),
                                  status: row.string("status"), outcome: row.string("outcome") ?? "", detail: row.string("detail"),
                                  operatorName: row.string("operator") ?? "")
    }

    /// `EXPLAIN QUERY PLAN` of every statement the lists run for `filter` (each tab, first page
    /// and a page after a key) plus the per-row and detail lookups: the plan lines that read a
    /// whole table or index instead of searching one (`SCAN …`; the scan of a bounded
    /// subquery's own result, `SCAN (subquery-N)`, `SCAN capped`, `SCAN chunk`, reads no
    /// table; a plain walk of the key index from a cursor, `ORDER BY key LIMIT n`, reads n
    /// entries; a full-text MATCH on the name search table is a lookup); empty when none. SQLite only.
    public func fullScans(filter: BrowseFilter) throws -> [String] {
        guard database.dialect.name == SQLDialect.sqlite.name else {
            throw StoreError(.invalidRequest, "query plans are checked on SQLite only, not on \(database.dialect.name)")
        }
        var statements: [(sql: String, parameters: [SQLValue])] = []
        for table in BrowseTable.allCases {
            let keys: [BrowseKey] = BrowseQuery(table, filter).keyIsText ? ["1000", "9000"] : [1, 100]
            for cursor in [PageCursor.first, .after(keys[0]), .before(keys[1]), .last] {
                statements += browseStatements(table, filter: filter, cursor: cursor, limit: 20).filter { !$0.walksKeys }
                    .map { ($0.sql, $0.parameters) }
            }
        }
        let id: [SQLValue] = [.text("x")]
        statements += [
            ("SELECT count(*) AS n FROM (SELECT 1 FROM transactions WHERE customer_id = ? LIMIT 1000) AS capped", id),
            ("SELECT DISTINCT entitlement FROM entitlements WHERE customer_id = ? AND active = 1", id),
            ("SELECT environment FROM receipts WHERE customer_id = ? ORDER BY receipt_id DESC LIMIT 50", id),
            ("SELECT 1 FROM transactions WHERE customer_id = ? AND environment != 'Production' LIMIT 1", id),
            ("SELECT count(*) AS n FROM conflicts WHERE (claimant_customer_id = ? OR owner_customer_id = ?) AND status = 'open'", id + id),
            ("SELECT 1 FROM conflicts WHERE transaction_id = ? AND status = 'open' LIMIT 1", id),
            ("SELECT count(*) AS n FROM conflicts WHERE status = 'open'", []),
            ("SELECT * FROM verification_attempts WHERE receipt_id IN (SELECT receipt_id FROM receipts WHERE customer_id = ?) ORDER BY attempt_id DESC LIMIT 100", id),
            ("SELECT * FROM revocations WHERE customer_id = ? ORDER BY revocation_id", id),
        ]
        var scans: [String] = []
        for statement in statements {
            let plan = try database.query("EXPLAIN QUERY PLAN " + statement.sql, statement.parameters).compactMap { $0.string("detail") }
            // A full-text MATCH on the search table is an index lookup ("VIRTUAL TABLE INDEX 0:M…").
            for line in plan where line.hasPrefix("SCAN ") && !["SCAN CONSTANT", "SCAN (subquery", "SCAN capped", "SCAN chunk"].contains(where: line.hasPrefix)
                && !(line.hasPrefix("SCAN customer_search VIRTUAL TABLE INDEX") && line.contains(":M")) {
                scans.append("\(line) in: \(statement.sql)")
            }
        }
        return scans
    }
}
