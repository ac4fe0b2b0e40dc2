import Foundation
import ReceiptCore

/// What `DatabaseCopy.copy` moved and found when it checked the target.
public struct DatabaseCopyReport: Sendable {
    /// One table: rows in the source, rows in the target afterwards, and whether the contents
    /// (an order-independent digest of every row) agree.
    public struct Table: Sendable, Equatable {
        public let name: String
        public let sourceRows: Int64
        public let targetRows: Int64
        public let contentsMatch: Bool
        public var isIdentical: Bool { sourceRows == targetRows && contentsMatch }
    }

    public let source: String
    public let target: String
    public let tables: [Table]
    /// The target's audit chain, verified after the copy.
    public let audit: AuditVerification
    /// Whether the target's audit head names the same last entry and hash as the source's.
    public let auditHeadMatches: Bool
    public internal(set) var seconds: Double
    /// Why a verified copy into PostgreSQL could not be vacuumed and analysed (the copy stands;
    /// autovacuum will do it later), nil when it was.
    public internal(set) var unsettled: String? = nil
    /// Where the time went: each step of the copy and its seconds, in order.
    public internal(set) var phases: [(name: String, seconds: Double)] = []

    /// True when every table arrived whole and the audit chain verifies.
    public var isVerified: Bool { tables.allSatisfy(\.isIdentical) && audit.isIntact && auditHeadMatches }
    public var rowsCopied: Int64 { tables.reduce(0) { $0 + $1.targetRows } }
}

/// Moves a whole purchase database between two `SQLDatabase`s (SQLite → PostgreSQL, back, or
/// between two of a kind) and proves it arrived: every table's row count and contents, and the
/// audit hash chain, are checked on the target afterwards.
///
/// Both databases must be migrated to the same schema (open them with `PurchaseDatabase.open`);
/// the target must hold no ledger rows. The source is read inside one snapshot for the whole
/// copy and its verification (a read transaction on SQLite, REPEATABLE READ on PostgreSQL): both
/// see the same state of it, other operators go on working meanwhile, and a change they make
/// can never make a correct copy look wrong. The target is written in one transaction (all or
/// nothing).
/// Primary keys are copied as they are, and the target's id counters continue after them.
public enum DatabaseCopy {
    /// The tables, parents before children (foreign keys), and the columns rows are paged by.
    static let tables: [(name: String, order: [String])] = [
        ("customers", ["customer_id"]), ("orders", ["order_id"]), ("receipts", ["receipt_id"]),
        ("transactions", ["transaction_id"]), ("conflicts", ["conflict_id"]), ("grants", ["grant_id"]),
        ("revocations", ["revocation_id"]), ("entitlements", []), ("verification_attempts", ["attempt_id"]),
        ("notifications", ["notification_uuid"]), ("apple_orders", ["transaction_id"]),
        ("reverifications", ["reverification_id"]), ("transfers", ["transfer_id"]), ("arrivals", ["arrival_id"]),
    ] + AppleStateSchema.copiedTables + CustomerNotesSchema.copiedTables + [
        ("audit_log", ["seq"]), ("audit_head", ["id"]),
    ]
    /// Auto-numbered keys whose counters must continue after the copied ids (PostgreSQL).
    static let identities: [(table: String, column: String)] = [
        ("receipts", "receipt_id"), ("conflicts", "conflict_id"), ("grants", "grant_id"),
        ("revocations", "revocation_id"), ("verification_attempts", "attempt_id"),
        ("reverifications", "reverification_id"), ("transfers", "transfer_id"), ("arrivals", "arrival_id"),
    ] + AppleStateSchema.identities + [("customer_notes", "note_id")]
    static let pageSize = 500

    /// Copies everything from `source` into the empty `target` and verifies it. `progress` hears
    /// each table as it is done (name, rows).
    public static func copy(from source: SQLDatabase, to target: SQLDatabase,
                            progress: ((String, Int64) -> Void)? = nil) throws -> DatabaseCopyReport {
        let start = Date()
        guard source !== target, sameName(source) != sameName(target) else {
            throw StoreError(.invalidInput, "the source and the target are the same database (\(source.location))")
        }
        try requireSameSchema(source, target)
        var phases = PhaseClock()
        var counts: [String: Int64] = [:]
        // Each table's digest, worked out as its rows were read (when the source is SQLite).
        var streamed: [String: RowDigest] = [:]
        var report: [DatabaseCopyReport.Table] = []
        var heads: (source: [SQLValue?]?, target: [SQLValue?]?) = (nil, nil)
        var targetAudit = AuditVerification(checked: 0, problem: nil)
        try snapshot(source) {
            // The chain is checked in the very state that is copied.
            let sourceAudit = try AuditLog.verify(source)
            guard sourceAudit.isIntact else {
                throw StoreError(.auditBroken, "the audit log of \(source.location) does not verify (\(sourceAudit.problem ?? "")): not copied; run `receiptdesk audit --verify` there")
            }
            phases.lap("verifying the source's audit chain")
            try target.writeTransaction {
                counts = [:]
                streamed = [:]
                try (target as? PostgresDatabase)?.lockWriters()
                for (table, _) in tables {
                    let rows = try count(target, table)
                    guard rows == 0 else {
                        throw StoreError(.invalidRequest, "\(target.location) already holds data (\(table): \(Plural.of(rows, "row"))): copy only into a new, empty database")
                    }
                }
                let postgres = target as? PostgresDatabase
                try postgres?.setChangeTriggers(enabled: false)
                // Rows first, then the indexes and keys built over them all at once (same transaction).
                let setAside = try postgres.map { try PostgresBulkLoad.setAside(tables.map(\.name), in: $0) }
                for (table, order) in tables {
                    if let postgres, let sqlite = source as? SQLiteDatabase {
                        (counts[table], streamed[table]) = try copyTable(table, from: sqlite, to: postgres)
                    } else {
                        counts[table] = try copyTable(table, order: order, from: source, to: target)
                    }
                    progress?(table, counts[table] ?? 0)
                }
                phases.lap("copying the rows")
                if let postgres, let setAside {
                    try setAside.restore(tables.map(\.name), in: postgres)
                    phases.lap("building indexes and checking keys")
                }
                if let postgres { try continueIdentities(postgres) }
                try postgres?.setChangeTriggers(enabled: true)
            }
            phases.lap("committing")
            // Verified while the source is still held: the state that was copied is the one compared.
            let compared: [(RowDigest, RowDigest)]
            let known = tables.compactMap { streamed[$0.name] }
            if let postgres = target as? PostgresDatabase, known.count == tables.count {
                // The source was digested as it was read: the target's rows and its audit chain
                // are read back on two sessions at once.
                let (found, audit) = try TargetCheck.run(tables, rows: counts, on: postgres)
                compared = Array(zip(known, found))
                targetAudit = audit
            } else {
                let (sourceDigests, targetDigests) = try sideBySide({ try tables.map { try digest($0, in: source) } },
                                                                    { try tables.map { try digest($0, in: target) } })
                compared = Array(zip(sourceDigests, targetDigests))
                targetAudit = try AuditLog.verify(target)
            }
            for ((table, _), (sourceDigest, targetDigest)) in zip(tables, compared) {
                report.append(.init(name: table, sourceRows: sourceDigest.rows, targetRows: targetDigest.rows,
                                    contentsMatch: sourceDigest == targetDigest))
            }
            let head = "SELECT seq, hash FROM audit_head WHERE id = 1"
            heads = (try source.queryFirst(head, []).map { [$0["seq"], $0["hash"]] }, try target.queryFirst(head, []).map { [$0["seq"], $0["hash"]] })
            phases.lap("comparing every row and verifying the target's audit chain")
        }
        var copy = DatabaseCopyReport(source: source.location, target: target.location, tables: report, audit: targetAudit,
                                      auditHeadMatches: heads.source == heads.target, seconds: 0)
        if copy.isVerified, let postgres = target as? PostgresDatabase {
            copy.unsettled = settle(postgres)
            phases.lap("vacuuming and analysing")
        }
        copy.seconds = Date().timeIntervalSince(start)
        copy.phases = phases.laps
        return copy
    }

    /// `table`'s digest: worked out by PostgreSQL where it can (`ServerRowDigest`), else read.
    static func digest(_ table: (name: String, order: [String]), in database: SQLDatabase) throws -> RowDigest {
        try (database as? PostgresDatabase).flatMap { try ServerRowDigest.of(table.name, in: $0) }
            ?? RowDigest.of(table.name, order: table.order, in: database)
    }

    /// Runs `first` and `second` at once, on two threads (each with a database session of its
    /// own), so the pair takes as long as the slower one; both results, or the first one's error.
    static func sideBySide<A, B>(_ first: () throws -> A, _ second: () throws -> B) throws -> (A, B) {
        return try withoutActuallyEscaping(first) { first in
            try withoutActuallyEscaping(second) { second in
                let jobs = SideBySideJobs(first, second)
                DispatchQueue.concurrentPerform(iterations: 2) { index in
                    if index == 0 { jobs.a = Result { try jobs.first() } } else { jobs.b = Result { try jobs.second() } }
                }
                guard let a = jobs.a, let b = jobs.b else { throw StoreError(.sql, "db copy: a verification thread did not finish") }
                return (try a.get(), try b.get())
            }
        }
    }

    /// Brings the copy to the state queries expect of a settled database: planner statistics,
    /// and every page marked visible to all, so index-only scans answer from the index (a page
    /// still unmarked sends them to the table). Left to autovacuum, this happens a minute later,
    /// taking a core from the first operators' lookups. After the source's snapshot is let go:
    /// on the same server, it would keep the new rows from counting as visible to all. Nil when
    /// done, else why not (the copy stands either way).
    private static func settle(_ target: PostgresDatabase) -> String? {
        do {
            _ = try target.connection.executeScript("VACUUM (ANALYZE) " + tables.map(\.name).joined(separator: ", "))
            return nil
        } catch let failure as PostgresFailure {
            return failure.message
        } catch {
            return "\(error)"
        }
    }

    /// Times the steps of a copy, one after another.
    struct PhaseClock {
        private var last = Date()
        private(set) var laps: [(name: String, seconds: Double)] = []

        /// Ends the step under way, named `name`.
        mutating func lap(_ name: String) {
            let now = Date()
            laps.append((name, now.timeIntervalSince(last)))
            last = now
        }
    }

    /// Runs `body` with every read of `database` in one consistent snapshot, taking no write lock.
    static func snapshot<T>(_ database: SQLDatabase, _ body: () throws -> T) throws -> T {
        if let sqlite = database as? SQLiteDatabase { return try sqlite.readTransaction(body) }
        return try database.writeTransaction {
            try database.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", [])
            return try body()
        }
    }

    /// Empties every ledger table of `target` (children before parents) in one transaction, so a
    /// copy that did not verify leaves nothing a re-run would refuse.
    public static func empty(_ target: SQLDatabase) throws {
        try target.writeTransaction {
            try (target as? PostgresDatabase)?.lockWriters()
            for (table, _) in tables.reversed() { try target.execute("DELETE FROM \(table)", []) }
            // SQLite's search table follows customers by triggers on insert and update only.
            if target.dialect.name == SQLDialect.sqlite.name { try target.execute("DELETE FROM customer_search", []) }
        }
    }

    /// What tells two databases apart: the server location, or the SQLite file's real path.
    private static func sameName(_ database: SQLDatabase) -> String {
        guard database.dialect.name == "sqlite" else { return database.dialect.name + ":" + database.location }
        return "sqlite:" + URL(fileURLWithPath: database.location).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// The tables of a database, by name.
    static func tableNames(_ database: SQLDatabase) throws -> [String] {
        let sql = database.dialect.name == "postgresql"
            ? "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
            : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        return try database.query(sql, []).compactMap { $0.string("name") }
    }

    private static func requireSameSchema(_ source: SQLDatabase, _ target: SQLDatabase) throws {
        // A table this version does not know would be left behind: refuse rather than copy part.
        let known = Set(tables.map(\.name) + ["schema_migrations"]).union(SearchSchema.derivedTables)
        let unknown = try tableNames(source).filter { !known.contains($0) }.sorted()
        guard unknown.isEmpty else {
            throw StoreError(.schemaTooNew, "\(source.location) has tables this receiptdesk cannot copy (\(unknown.joined(separator: ", "))): use the receiptdesk that made them")
        }
        let sql = "SELECT name FROM schema_migrations ORDER BY position"
        let sourceMigrations = try source.query(sql, []).compactMap { $0.string("name") }
        let targetMigrations = try target.query(sql, []).compactMap { $0.string("name") }
        guard sourceMigrations == targetMigrations else {
            throw StoreError(.schemaTooNew, "the source has migrations [\(sourceMigrations.joined(separator: ", "))] and the target [\(targetMigrations.joined(separator: ", "))]: open both with the same receiptdesk")
        }
    }

    static func count(_ database: SQLDatabase, _ table: String) throws -> Int64 {
        try database.queryFirst("SELECT count(*) AS n FROM \(table)", [])?.int("n") ?? 0
    }

    /// Copies one table page by page (keyset paging on its key, or customer by customer for
    /// `entitlements`, which has none): into PostgreSQL with one COPY, elsewhere with multi-row
    /// INSERTs; returns the rows copied.
    private static func copyTable(_ table: String, order: [String], from source: SQLDatabase, to target: SQLDatabase) throws -> Int64 {
        if let postgres = target as? PostgresDatabase { return try copyTable(table, order: order, from: source, to: postgres) }
        var copied: Int64 = 0
        try RowPager.forEachPage(table, order: order, in: source, pageSize: pageSize) { rows in
            guard let columns = rows.first?.columns else { return }
            let tuple = "(" + SQLDialect.placeholders(columns.count) + ")"
            let perStatement = max(1, 900 / max(1, columns.count))
            var index = 0
            while index < rows.count {
                let chunk = rows[index..<min(rows.count, index + perStatement)]
                let sql = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
                    + Array(repeating: tuple, count: chunk.count).joined(separator: ", ")
                try target.execute(sql, chunk.flatMap(\.values))
                index += chunk.count
            }
            copied += Int64(rows.count)
        }
        return copied
    }

    /// `copyTable` into PostgreSQL: the pages stream into one `COPY … FROM STDIN`, which stores
    /// all or none of them (less work for the server than the same rows as INSERT statements).
    private static func copyTable(_ table: String, order: [String], from source: SQLDatabase, to target: PostgresDatabase) throws -> Int64 {
        var stream: PostgresCopyStream?
        var sent: Int64 = 0
        do {
            try RowPager.forEachPage(table, order: order, in: source, pageSize: pageSize) { rows in
                guard let columns = rows.first?.columns else { return }
                if stream == nil { stream = try target.beginCopy(into: table, columns: columns) }
                guard let copy = stream, copy.columns == columns else {
                    throw StoreError(.invalidRequest, "\(table) changed its columns while it was copied: run the copy again")
                }
                for row in rows { try copy.send(row.values) }
                sent += Int64(rows.count)
            }
            let stored = Int64(try stream?.finish() ?? 0)
            guard stored == sent else {
                throw StoreError(.sql, "PostgreSQL at \(target.location) stored \(Plural.of(stored, "row")) of \(table), \(sent) \(sent == 1 ? "was" : "were") sent")
            }
            return stored
        } catch {
            stream?.abandon(because: "the copy of \(table) failed")
            throw error
        }
    }

    /// `copyTable` from SQLite into PostgreSQL, the fast way: one scan of the table in its
    /// storage order (one statement in the read snapshot, no paging: nothing is sorted or looked
    /// up), each row encoded for COPY straight from SQLite's buffers and added to the table's
    /// digest on the way, so the source need not be read again to be compared. Returns the rows
    /// copied and their digest.
    private static func copyTable(_ table: String, from source: SQLiteDatabase, to target: PostgresDatabase) throws -> (Int64, RowDigest) {
        var stream: PostgresCopyStream?
        var sent: Int64 = 0
        var digest = RowDigest()
        var material: [UInt8] = []
        var byName: [(index: Int, name: [UInt8])] = []
        do {
            try source.forEachCellRow("SELECT * FROM \(table)") { columns, row in
                if stream == nil {
                    stream = try target.beginCopy(into: table, columns: columns)
                    byName = RowDigest.byName(columns)
                }
                guard let copy = stream else { return }
                try copy.send(row)
                try digest.add(row, byName: byName, material: &material)
                sent += 1
            }
            let stored = Int64(try stream?.finish() ?? 0)
            guard stored == sent else {
                throw StoreError(.sql, "PostgreSQL at \(target.location) stored \(Plural.of(stored, "row")) of \(table), \(sent) \(sent == 1 ? "was" : "were") sent")
            }
            return (stored, digest)
        } catch {
            stream?.abandon(because: "the copy of \(table) failed")
            throw error
        }
    }

    /// Moves each identity counter past the largest copied id, so new rows get new ids.
    private static func continueIdentities(_ database: PostgresDatabase) throws {
        for (table, column) in identities {
            try database.execute("""
                SELECT setval(pg_get_serial_sequence('\(table)', '\(column)'), coalesce(max(\(column)), 0) + 1, false) AS v FROM \(table)
                """, [])
        }
    }
}

/// `DatabaseCopy.sideBySide`'s two jobs and what they found (each slot written by its thread
/// only, read after both threads are done).
private final class SideBySideJobs<A, B>: @unchecked Sendable {
    let first: () throws -> A
    let second: () throws -> B
    var a: Result<A, Error>?
    var b: Result<B, Error>?

    init(_ first: @escaping () throws -> A, _ second: @escaping () throws -> B) {
        self.first = first
        self.second = second
    }
}
