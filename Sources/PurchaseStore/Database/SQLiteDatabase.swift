import CSQLite
import Foundation

/// The embedded backend: one SQLite file in WAL mode with foreign keys on and a busy timeout.
/// Statements are prepared once and cached; write transactions start `IMMEDIATE`, so two writers
/// queue on the lock instead of failing halfway.
public final class SQLiteDatabase: SQLDatabase {
    let handle: OpaquePointer
    public let location: String
    public let dialect = SQLDialect.sqlite
    private var statements: [String: SQLiteStatement] = [:]
    /// The same statements by the address of their SQL text: a string literal keeps one address,
    /// so the usual look-up needs no hashing of the text (an equal text is still required).
    private var statementsByAddress: [Int: SQLiteStatement] = [:]
    private var transactionDepth = 0
    /// Audit entries kept to be appended together (`AuditLog.appendingTogether`), nil when
    /// entries are appended as they come.
    var keptAudit: [PendingAuditEntry]?

    /// The OS user running this process (SQLite has no users of its own): the owner of the
    /// process's effective user id, else `$USER`. Settable for fixtures that must not depend on
    /// who runs them.
    public var databaseUser: String? = SQLiteDatabase.processUser()

    static func processUser() -> String? {
        if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name { return "os:" + String(cString: name) }
        return ProcessInfo.processInfo.environment["USER"].map { "os:" + $0 }
    }
    /// Copies the write-ahead log into the file in the background (writing connections only).
    private(set) var checkpointer: SQLiteCheckpointer?

    /// How long a writer waits for another before giving up with `StoreError.busy`: the whole
    /// wait of one write transaction, retries included.
    public static let busyTimeoutMilliseconds: Int32 = 10_000

    /// Asked while this connection waits for another's lock: true gives up at once (the
    /// statement fails with `StoreError.busy`, nothing written). The console's Esc sets it.
    public var isCancelled: (@Sendable () -> Bool)? {
        get { waitState.isCancelled }
        set { waitState.isCancelled = newValue }
    }
    /// What the busy handler reads; kept in an object whose address SQLite holds.
    private let waitState = BusyWait()

    /// Opens (creating when `create`) the database at `path`. `immutable` (read-only only) tells
    /// SQLite nothing can change the file while it is open, so it needs no lock or shared-memory
    /// file: for a database in a folder this user may not write, where no writer is at work.
    public init(path: String, create: Bool = true, readOnly: Bool = false, immutable: Bool = false) throws {
        var db: OpaquePointer?
        var flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
            | SQLITE_OPEN_NOMUTEX
        var name = path
        if readOnly && immutable {
            let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%"))
            name = "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?immutable=1"
            flags |= SQLITE_OPEN_URI
        }
        let code = sqlite3_open_v2(name, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let detail = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw StoreError(.cannotOpen, "cannot open database \(path): \(detail)")
        }
        handle = db
        location = path
        BusyWait.install(on: db, waitState)
        sqlite3_extended_result_codes(db, 1)
        // Every stored property is set from here on: a throw runs deinit, which stops the
        // checkpointer, drops the statements and closes the connection (closing here too would
        // hand SQLite a connection it has already freed).
        if !readOnly {
            let mode = try retryingWhileBusy { try query("PRAGMA journal_mode=WAL", []).first?.string("journal_mode") }
            guard mode == "wal" else {
                throw StoreError(.cannotOpen, "database \(path): cannot switch to WAL (journal mode \(mode ?? "unknown"))")
            }
            try execute("PRAGMA synchronous=NORMAL", [])
            // A bigger page cache: each ledger operation touches ~20 pages, many of them the
            // same hot index pages.
            _ = try query("PRAGMA cache_size=-16384", [])
            // The log is copied back into the file on a thread of its own, not in COMMIT.
            replaceCheckpointer()
            // Statement and savepoint journals (a batch import's per-item savepoints) stay in
            // memory instead of spilling to temporary files; crash recovery never reads them.
            try execute("PRAGMA temp_store=MEMORY", [])
        }
        try execute("PRAGMA foreign_keys=ON", [])
        // Reading the schema catches a file that is not a database at all.
        _ = try query("SELECT count(*) AS n FROM sqlite_master", [])
    }

    /// Installs a checkpointer, stopping the one before (tests use small thresholds).
    /// `backgroundPages` 16,000 (a 64 MB log between copies): an import rewrites the same index
    /// pages in batch after batch, and each copy writes a page once however often the log holds
    /// it; from 4,000 to 16,000 a one-process batch import's CPU fell by a tenth (0.97 -> 0.86 s
    /// for 12,000 transactions, mean of 8 interleaved runs; 32,000 gained nothing more).
    func replaceCheckpointer(backgroundPages: Int32 = 16_000, inlinePages: Int32 = 64_000) {
        checkpointer?.stop()
        let replacement = SQLiteCheckpointer(path: location, backgroundPages: backgroundPages, inlinePages: inlinePages)
        replacement.install(on: handle)
        checkpointer = replacement
    }

    deinit {
        checkpointer?.stop()
        sqlite3_wal_hook(handle, nil, nil)
        statementsByAddress.removeAll()
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    @discardableResult
    public func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int {
        let statement = try prepared(sql)
        try statement.bind(parameters)
        while try statement.step() {}
        sqlite3_reset(statement.handle)
        return Int(sqlite3_changes(handle))
    }

    public func query(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow] {
        let statement = try prepared(sql)
        try statement.bind(parameters)
        var rows: [SQLRow] = []
        let columns = statement.columns
        while try statement.step() { rows.append(statement.row(columns: columns)) }
        sqlite3_reset(statement.handle)
        return rows
    }

    public func forEachRow(_ sql: String, _ parameters: [SQLValue], _ body: (any SQLColumns) throws -> Void) throws {
        let statement = try prepared(sql)
        try statement.bind(parameters)
        defer { sqlite3_reset(statement.handle) }
        let columns = SQLiteColumns(handle: statement.handle)
        while try statement.step() { try body(columns) }
    }

    public func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        if transactionDepth > 0 {
            return try body()  // already inside this connection's transaction: one unit of work
        }
        try begin()
        let locked = DispatchTime.now().uptimeNanoseconds
        transactionDepth += 1
        defer {
            transactionDepth -= 1
            SQLiteLockWaits.heldNanoseconds.add(DispatchTime.now().uptimeNanoseconds &- locked, ordering: .relaxed)
        }
        let result: T
        do {
            result = try body()
        } catch {
            // The body's error is what happened; a failing rollback must not replace it.
            if sqlite3_get_autocommit(handle) == 0 { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            throw error
        }
        do {
            try execute("COMMIT", [])
        } catch {
            if sqlite3_get_autocommit(handle) == 0 { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            throw error
        }
        return result
    }

    /// Runs `body` in one read transaction: every query in it sees the database as it was at the
    /// first (a WAL snapshot), while other connections go on writing. Takes no write lock.
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        if transactionDepth > 0 { return try body() }
        try execute("BEGIN DEFERRED", [])
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        do {
            let result = try body()
            try execute("COMMIT", [])
            return result
        } catch {
            // The body's error is what happened; ending the read must not replace it.
            if sqlite3_get_autocommit(handle) == 0 { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            throw error
        }
    }

    /// Runs `body` again while SQLite reports busy without waiting (switching to WAL while another
    /// process opens the same new file), for up to the busy timeout.
    private func retryingWhileBusy<T>(_ body: () throws -> T) throws -> T {
        let deadline = Date().addingTimeInterval(Double(SQLiteDatabase.busyTimeoutMilliseconds) / 1000)
        while true {
            do {
                return try body()
            } catch let error as StoreError where error.code == .busy && Date() < deadline {
                usleep(20_000)
            }
        }
    }

    private func begin() throws {
        // The busy handler makes BEGIN IMMEDIATE wait; a few retries cover the rare SQLITE_BUSY it
        // still returns at once, all within the one stated bound, and none once cancelled.
        let deadline = Date().addingTimeInterval(Double(SQLiteDatabase.busyTimeoutMilliseconds) / 1000)
        var attempt = 0
        while true {
            do {
                try execute("BEGIN IMMEDIATE", [])
                return
            } catch let error as StoreError where error.code == .busy && attempt < 3 && Date() < deadline && isCancelled?() != true {
                attempt += 1
                usleep(useconds_t(20_000 * attempt))
            }
        }
    }

    /// `PRAGMA data_version`: changes whenever another connection commits (not this one).
    public func dataVersion() throws -> Int64? {
        try queryFirst("PRAGMA data_version", [])?.int("data_version")
    }

    /// How many rows this connection has inserted, updated or deleted since it opened (SQLite's
    /// `total_changes`, triggers included; a rolled-back change still counts): unchanged means this
    /// connection changed nothing in between.
    public func totalChanges() -> Int64 { sqlite3_total_changes64(handle) }

    /// `PRAGMA integrity_check`: "ok", or the first problems SQLite found.
    public func integrityCheck() throws -> [String] {
        try query("PRAGMA integrity_check", []).compactMap { $0.string("integrity_check") }
    }

    private func prepared(_ sql: String) throws -> SQLiteStatement {
        let address = sql.utf8.withContiguousStorageIfAvailable { Int(bitPattern: $0.baseAddress) } ?? 0
        if let cached = statementsByAddress[address], cached.sql == sql { return cached }
        if let cached = statements[sql] {
            statementsByAddress[address] = cached
            return cached
        }
        let statement = try SQLiteStatement(self, sql: sql)
        if statements.count > 256 {
            statements.removeAll()
            statementsByAddress.removeAll()
        }
        statements[sql] = statement
        statementsByAddress[address] = statement
        return statement
    }

    /// The rowid of the last row this connection inserted (`INTEGER PRIMARY KEY` columns are it).
    public func lastInsertedRowID() -> Int64? { sqlite3_last_insert_rowid(handle) }

    /// A `StoreError` for a SQLite result code, with SQLite's message.
    func error(_ code: Int32, _ doing: String) -> StoreError {
        let message = String(cString: sqlite3_errmsg(handle))
        switch code & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED:
            return StoreError(.busy, "database \(location) is busy: another receiptdesk is writing to it; try again")
        case SQLITE_CONSTRAINT: return StoreError(.constraint, "\(doing): \(message)")
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return StoreError(.corrupt, "database \(location) is damaged or not a receiptdesk database: \(message)")
        case SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM, SQLITE_IOERR, SQLITE_FULL:
            return StoreError(.cannotOpen, "database \(location): \(message)")
        default: return StoreError(.sql, "\(doing): \(message)")
        }
    }
}
