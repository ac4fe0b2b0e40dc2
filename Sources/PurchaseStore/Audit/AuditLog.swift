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
    /// Who the database says made the change (PostgreSQL's `session_user`, the OS user on
    /// SQLite): a name the client cannot choose. Nil on entries written before it was recorded.
    public var databaseUser: String? = nil
}

/// What `audit verify` found.
public struct AuditVerification: Sendable, Equatable {
    /// Entries checked.
    public let checked: Int
    /// The first problem ("entry 17 was altered", "entry 18 was removed"), nil when the chain holds.
    public let problem: String?
    /// The last entry of the chain as verified (sequence and hash): an anchor to keep outside
    /// the database and check later (`expecting:`), nil for an empty log.
    public var head: AuditAnchor? = nil
    public var isIntact: Bool { problem == nil }
}

/// An entry of the audit chain named by its sequence number and hash (`SEQ:HASH`), kept outside
/// the database: a log that was truncated and its head rewritten to match no longer holds it.
public struct AuditAnchor: Sendable, Equatable, CustomStringConvertible {
    public let seq: Int64
    public let hash: String

    public init(seq: Int64, hash: String) {
        self.seq = seq
        self.hash = hash
    }

    /// Parses `SEQ:HASH` (a positive sequence number, 64 lower-case hex digits).
    public init?(_ text: String) {
        let parts = text.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let seq = Int64(parts[0]), seq > 0, parts[1].count == 64,
              parts[1].utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        self.init(seq: seq, hash: String(parts[1]))
    }

    public var description: String { "\(seq):\(hash)" }
}

/// An audit entry waiting for its write transaction's commit (`AuditLog.appendAtCommit`).
struct PendingAuditEntry {
    /// `StoreDates.format` of the entry's date.
    let at: String
    let operatorName: String
    let action: String
    let target: String
    /// The details as stored (`JSONValue.serialized`), written when the entry is queued, so
    /// the commit's append (which holds the chain's lock) only hashes.
    let details: String
}

/// The append-only, hash-chained audit log. Each entry's hash covers its own fields and the hash
/// before it, so altering or removing an entry breaks every hash after it; the head row records
/// the last entry, so removing entries from the end is caught too.
public enum AuditLog {
    /// The hash before the first entry.
    public static let genesis = String(repeating: "0", count: 64)

    /// SHA-256 over the length-prefixed fields and the previous hash, lower-case hex. The
    /// database user, when recorded, is one more field after them (entries written before it
    /// was recorded hash as they always did).
    public static func hash(seq: Int64, at: String, operatorName: String, action: String, target: String,
                            details: String, previousHash: String, databaseUser: String? = nil) -> String {
        var fields = [String(seq), at, operatorName, action, target, details, previousHash]
        if let databaseUser { fields.append("db:" + databaseUser) }
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
        let user = database.databaseUser
        let hash = hash(seq: seq, at: at, operatorName: operatorName, action: action, target: target,
                        details: text, previousHash: previous, databaseUser: user)
        try database.execute("""
            INSERT INTO audit_log (seq, at, operator, action, target, details, prev_hash, hash, db_user)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.integer(seq), .text(at), .text(operatorName), .text(action), .text(target), .text(text),
                  .text(previous), .text(hash), .text(user)])
        if head == nil {
            try database.execute("INSERT INTO audit_head (id, seq, hash) VALUES (1, ?, ?)", [.integer(seq), .text(hash)])
        } else {
            try database.execute("UPDATE audit_head SET seq = ?, hash = ? WHERE id = 1", [.integer(seq), .text(hash)])
        }
        return AuditEntry(seq: seq, at: date, operatorName: operatorName, action: action, target: target,
                          details: text, previousHash: previous, hash: hash, databaseUser: user)
    }

    /// Appends an entry when the open write transaction commits, for callers that need no entry
    /// back (the ledger). On PostgreSQL the append runs just before COMMIT, so writers hold the
    /// chain's lock only for the append and the commit; elsewhere (SQLite, whose write
    /// transaction is already exclusive), now. Same chain, same transaction as the change.
    /// The entries of one transaction (a batch import's hundred) are appended together: the head
    /// is read once, under the lock, and written once.
    public static func appendAtCommit(_ database: SQLDatabase, at date: Date, operatorName: String, action: String,
                                      target: String, details: JSONValue) throws {
        // Deferred only before the transaction holds the writer lock (taken by a savepoint, whose
        // undoing must not leave an entry for the commit to append).
        if let postgres = database as? PostgresDatabase, postgres.isInTransaction, !postgres.holdsWriterLock {
            if postgres.pendingAudit.isEmpty, !postgres.deferUntilCommit({ try appendPending(postgres) }) {
                try append(database, at: date, operatorName: operatorName, action: action, target: target, details: details)
                return
            }
            postgres.pendingAudit.append(PendingAuditEntry(at: StoreDates.format(date), operatorName: operatorName, action: action,
                                                           target: target, details: details.serialized()))
            return
        }
        if let sqlite = database as? SQLiteDatabase, sqlite.keptAudit != nil {
            sqlite.keptAudit?.append(PendingAuditEntry(at: StoreDates.format(date), operatorName: operatorName, action: action,
                                                       target: target, details: details.serialized()))
            return
        }
        try append(database, at: date, operatorName: operatorName, action: action, target: target, details: details)
    }

    /// Runs `body` inside the caller's SQLite write transaction, keeping the entries it appends
    /// (`appendAtCommit`), then appends them together as PostgreSQL does at its commit: one head
    /// read, the entries' inserts, one head update (a batch import's hundred entries cost 102
    /// statements, not 300). Nothing in `body` may roll back a savepoint: an entry it kept would
    /// outlive its change. When `body` throws, its entries are dropped with the transaction.
    /// Elsewhere (PostgreSQL defers its own appends to the commit) `body` simply runs.
    static func appendingTogether<T>(_ database: SQLDatabase, _ body: () throws -> T) throws -> T {
        guard let sqlite = database as? SQLiteDatabase, sqlite.keptAudit == nil else { return try body() }
        sqlite.keptAudit = []
        defer { sqlite.keptAudit = nil }
        let result = try body()
        try appendTogether(sqlite, sqlite.keptAudit ?? [])
        return result
    }

    /// Appends the entries `appendAtCommit` kept for the commit: one statement that reads the
    /// head, hashes and writes them on the server (`AuditChainOnServer`), queued after the lock
    /// with the transaction's other writes and sent with COMMIT when the transaction pipelines them.
    static func appendPending(_ database: PostgresDatabase) throws {
        let entries = database.pendingAudit
        database.pendingAudit = []
        guard !entries.isEmpty else { return }
        try database.lockAuditChain()
        try database.executeLater(AuditChainOnServer.sql, AuditChainOnServer.parameters(entries, user: database.databaseUser))
    }

    /// Appends `entries` in order: one head read after the lock, the entries' inserts and one
    /// head update.
    private static func appendTogether(_ database: SQLDatabase, _ entries: [PendingAuditEntry]) throws {
        guard !entries.isEmpty else { return }
        try database.lockAuditChain()
        let head = try database.queryFirst("SELECT seq, hash FROM audit_head WHERE id = 1", [])
        var seq = head?.int("seq") ?? 0
        var previous = head?.string("hash") ?? genesis
        let user = database.databaseUser
        for entry in entries {
            seq += 1
            let hash = hash(seq: seq, at: entry.at, operatorName: entry.operatorName, action: entry.action, target: entry.target,
                            details: entry.details, previousHash: previous, databaseUser: user)
            try database.executeLater("""
                INSERT INTO audit_log (seq, at, operator, action, target, details, prev_hash, hash, db_user)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.integer(seq), .text(entry.at), .text(entry.operatorName), .text(entry.action), .text(entry.target), .text(entry.details),
                      .text(previous), .text(hash), .text(user)])
            previous = hash
        }
        if head == nil {
            try database.executeLater("INSERT INTO audit_head (id, seq, hash) VALUES (1, ?, ?)", [.integer(seq), .text(previous)])
        } else {
            try database.executeLater("UPDATE audit_head SET seq = ?, hash = ? WHERE id = 1", [.integer(seq), .text(previous)])
        }
    }

    /// Recomputes the whole chain, page by page, and names the first entry altered or removed.
    /// Every row of the table is part of the check: a row outside the chain (a sequence number
    /// below 1, or past the head) is tampering. With `expecting`, the log must still hold that
    /// entry with that hash.
    public static func verify(_ database: SQLDatabase, expecting anchor: AuditAnchor? = nil) throws -> AuditVerification {
        if let outside = try database.queryFirst("SELECT seq, operator, action FROM audit_log WHERE seq < 1 ORDER BY seq LIMIT 1", []) {
            return AuditVerification(checked: 0, problem: "entry #\(outside.int("seq") ?? 0) (\(outside.string("action") ?? "?") by \(outside.string("operator") ?? "?")) lies outside the chain, which starts at entry 1: it was added by hand")
        }
        var expectedSeq: Int64 = 1
        var previous = genesis
        var checked = 0
        let page = 5_000
        while true {
            let rows = try database.query("""
                SELECT seq, at, operator, action, target, details, prev_hash, hash, db_user FROM audit_log
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
                                    details: row.string("details") ?? "", previousHash: previous, databaseUser: row.string("db_user"))
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
        let last = checked == 0 ? nil : AuditAnchor(seq: expectedSeq - 1, hash: previous)
        if let anchor {
            let held = try database.queryFirst("SELECT hash FROM audit_log WHERE seq = ?", [.integer(anchor.seq)])?.string("hash")
            guard held == anchor.hash else {
                let what = held == nil ? "no longer holds entry \(anchor.seq) (it ends at \(expectedSeq - 1))"
                                       : "holds another entry \(anchor.seq) than the anchor names"
                return AuditVerification(checked: checked, problem: "the log \(what): it was truncated or rewritten since the anchor \(anchor) was taken",
                                         head: last)
            }
        }
        return AuditVerification(checked: checked, problem: nil, head: last)
    }

    /// Entries newest first, optionally for one target, before `beforeSeq` (for paging).
    public static func entries(_ database: SQLDatabase, target: String? = nil, beforeSeq: Int64? = nil, limit: Int = 100) throws -> [AuditEntry] {
        var sql = "SELECT seq, at, operator, action, target, details, prev_hash, hash, db_user FROM audit_log WHERE seq < ?"
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
                       previousHash: row.string("prev_hash") ?? "", hash: row.string("hash") ?? "", databaseUser: row.string("db_user"))
        }
    }
}
