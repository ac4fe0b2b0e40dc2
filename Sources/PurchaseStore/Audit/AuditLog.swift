import Foundation
import ReceiptCore

/// One audit entry: who did what to what, chained to the entry before it.
public struct AuditEntry: Sendable, Equatable {
    public let seq: Int64
    public let at: Date
    public let operatorName: String
    public let action: String
    public let target: String
    /// JSON text with what changed.
    public let details: String
    public let previousHash: String
    public let hash: String
}

/// What `audit verify` found.
public struct AuditVerification: Sendable, Equatable {
    /// Entries checked.
    public let checked: Int
    /// The first problem ("entry 17 was altered", "entry 18 was removed"), nil when the chain holds.
    public let problem: String?
    public var isIntact: Bool { problem == nil }
}

/// The append-only, hash-chained audit log. Each entry's hash covers its own fields and the hash
/// before it, so altering or removing an entry breaks every hash after it; the head row records
/// the last entry, so removing entries from the end is caught too.
public enum AuditLog {
    /// The hash before the first entry.
    public static let genesis = String(repeating: "0", count: 64)

    /// SHA-256 over the length-prefixed fields and the previous hash, lower-case hex.
    public static func hash(seq: Int64, at: String, operatorName: String, action: String, target: String,
                            details: String, previousHash: String) -> String {
        let fields = [String(seq), at, operatorName, action, target, details, previousHash]
        var material: [UInt8] = []
        material.reserveCapacity(fields.reduce(0) { $0 + $1.utf8.count + 8 })
        for field in fields {
            material.append(contentsOf: String(field.utf8.count).utf8)
            material.append(UInt8(ascii: ":"))
            material.append(contentsOf: field.utf8)
        }
        return DigestAlgorithm.sha256.hash(material).hexString
    }

    /// Appends an entry. Must run inside the write transaction of the change it records, so the
    /// change and its entry land together; the writer lock (`lockAuditChain`) orders appends from
    /// every process.
    @discardableResult
    public static func append(_ database: SQLDatabase, at date: Date, operatorName: String, action: String,
                              target: String, details: JSONValue) throws -> AuditEntry {
        try database.lockAuditChain()
        let head = try database.queryFirst("SELECT seq, hash FROM audit_head WHERE id = 1", [])
        let seq = (head?.int("seq") ?? 0) + 1
        let previous = head?.string("hash") ?? genesis
        let at = StoreDates.format(date)
        let text = details.serialized()
        let hash = hash(seq: seq, at: at, operatorName: operatorName, action: action, target: target,
                        details: text, previousHash: previous)
        try database.execute("""
            INSERT INTO audit_log (seq, at, operator, action, target, details, prev_hash, hash)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.integer(seq), .text(at), .text(operatorName), .text(action), .text(target), .text(text),
                  .text(previous), .text(hash)])
        if head == nil {
            try database.execute("INSERT INTO audit_head (id, seq, hash) VALUES (1, ?, ?)", [.integer(seq), .text(hash)])
        } else {
            try database.execute("UPDATE audit_head SET seq = ?, hash = ? WHERE id = 1", [.integer(seq), .text(hash)])
        }
        return AuditEntry(seq: seq, at: date, operatorName: operatorName, action: action, target: target,
                          details: text, previousHash: previous, hash: hash)
    }

    /// Appends an entry when the open write transaction commits, for callers that need no entry
    /// back (the ledger). On PostgreSQL the append runs just before COMMIT, so writers hold the
    /// chain's lock only for the append and the commit; elsewhere (SQLite, whose write
    /// transaction is already exclusive), now. Same chain, same transaction as the change.
    public static func appendAtCommit(_ database: SQLDatabase, at date: Date, operatorName: String, action: String,
                                      target: String, details: JSONValue) throws {
        if let postgres = database as? PostgresDatabase, postgres.deferUntilCommit({
            try append(postgres, at: date, operatorName: operatorName, action: action, target: target, details: details)
        }) {
            return
        }
        try append(database, at: date, operatorName: operatorName, action: action, target: target, details: details)
    }

    /// Recomputes the whole chain, page by page, and names the first entry altered or removed.
    public static func verify(_ database: SQLDatabase) throws -> AuditVerification {
        var expectedSeq: Int64 = 1
        var previous = genesis
        var checked = 0
        let page = 5_000
        while true {
            let rows = try database.query("""
                SELECT seq, at, operator, action, target, details, prev_hash, hash FROM audit_log
                WHERE seq >= ? ORDER BY seq LIMIT ?
                """, [.integer(expectedSeq), .integer(Int64(page))])
            for row in rows {
                let seq = row.int("seq") ?? -1
                if seq != expectedSeq {
                    return AuditVerification(checked: checked, problem: "entry \(expectedSeq) was removed (the log jumps to \(seq))")
                }
                let stored = row.string("hash") ?? ""
                guard row.string("prev_hash") == previous else {
                    return AuditVerification(checked: checked,
                                             problem: "entry \(seq - 1) or \(seq) was altered: entry \(seq) does not follow entry \(seq - 1)")
                }
                let computed = hash(seq: seq, at: row.string("at") ?? "", operatorName: row.string("operator") ?? "",
                                    action: row.string("action") ?? "", target: row.string("target") ?? "",
                                    details: row.string("details") ?? "", previousHash: previous)
                guard computed == stored else {
                    return AuditVerification(checked: checked, problem: "entry \(seq) was altered: its hash does not match its content")
                }
                previous = stored
                expectedSeq += 1
                checked += 1
            }
            if rows.count < page { break }
        }
        let head = try database.queryFirst("SELECT seq, hash FROM audit_head WHERE id = 1", [])
        let headSeq = head?.int("seq") ?? 0
        if headSeq != expectedSeq - 1 || (head != nil && head?.string("hash") != previous) {
            if headSeq > expectedSeq - 1 {
                return AuditVerification(checked: checked, problem: "entry \(expectedSeq) was removed (the log should end at entry \(headSeq))")
            }
            return AuditVerification(checked: checked, problem: "the audit head was altered: it names entry \(headSeq), the log ends at \(expectedSeq - 1)")
        }
        return AuditVerification(checked: checked, problem: nil)
    }

    /// Entries newest first, optionally for one target, before `beforeSeq` (for paging).
    public static func entries(_ database: SQLDatabase, target: String? = nil, beforeSeq: Int64? = nil, limit: Int = 100) throws -> [AuditEntry] {
        var sql = "SELECT seq, at, operator, action, target, details, prev_hash, hash FROM audit_log WHERE seq < ?"
        var parameters: [SQLValue] = [.integer(beforeSeq ?? Int64.max)]
        if let target {
            sql += " AND target = ?"
            parameters.append(.text(target))
        }
        sql += " ORDER BY seq DESC LIMIT ?"
        parameters.append(.integer(Int64(limit)))
        return try database.query(sql, parameters).map { row in
            AuditEntry(seq: row.int("seq") ?? 0, at: row.date("at") ?? .distantPast, operatorName: row.string("operator") ?? "",
                       action: row.string("action") ?? "", target: row.string("target") ?? "", details: row.string("details") ?? "",
                       previousHash: row.string("prev_hash") ?? "", hash: row.string("hash") ?? "")
        }
    }
}
