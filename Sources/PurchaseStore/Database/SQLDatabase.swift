/// One connection to a purchase database, whatever the backend. SQL is written with `?`
/// placeholders in the portable subset both SQLite and PostgreSQL accept (`INSERT … ON CONFLICT
/// DO NOTHING`, `RETURNING`); what differs lives in `SQLDialect`, so the ledger never names a backend.
public protocol SQLDatabase: AnyObject {
    /// What the backend's SQL looks like where the two differ.
    var dialect: SQLDialect { get }
    /// A name for messages: the file path or the server address (never a password).
    var location: String { get }
    /// Who the database says this session is, recorded with every audit entry: PostgreSQL's
    /// `session_user` (the role that logged in, whatever role it set after), the OS user on SQLite.
    var databaseUser: String? { get }

    /// Runs a statement; returns the number of rows it changed.
    @discardableResult
    func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int

    /// Runs a query and returns every row.
    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow]

    /// Runs a query and hands `body` each row's columns, read by position (see `SQLColumns`).
    func forEachRow(_ sql: String, _ parameters: [SQLValue], _ body: (any SQLColumns) throws -> Void) throws

    /// Runs `body` in one write transaction: committed when it returns, rolled back when it throws
    /// (the body's error is the one reported; a failed rollback never hides it). Waits for other
    /// writers up to the busy timeout, then fails with `StoreError.busy`.
    func writeTransaction<T>(_ body: () throws -> T) throws -> T

    /// The row id the last insert on this connection got, where the backend tells it without a
    /// query (SQLite); nil elsewhere: read it back by a unique key instead.
    func lastInsertedRowID() -> Int64?

    /// Runs a write whose row count the caller does not need. A backend may hold it back and send
    /// it with the next statement of the same write transaction (PostgreSQL batch imports, see
    /// `PostgresWriteQueue`): its failure then fails that statement, or the commit, instead of
    /// this call. Elsewhere (SQLite) it runs at once.
    func executeLater(_ sql: String, _ parameters: [SQLValue]) throws
}

extension SQLDatabase {
    public func lastInsertedRowID() -> Int64? { nil }

    public var databaseUser: String? { nil }

    public func forEachRow(_ sql: String, _ parameters: [SQLValue], _ body: (any SQLColumns) throws -> Void) throws {
        for row in try query(sql, parameters) { try body(SQLRowColumns(row: row)) }
    }

    public func executeLater(_ sql: String, _ parameters: [SQLValue]) throws { try execute(sql, parameters) }

    /// Runs `body` inside a savepoint of the current write transaction: when it throws, only its
    /// own changes are undone and the error is rethrown. (Same SQL on SQLite and PostgreSQL.)
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        try execute("SAVEPOINT receiptdesk_item", [])
        do {
            let result = try body()
            try execute("RELEASE SAVEPOINT receiptdesk_item", [])
            return result
        } catch {
            // The body's error is what happened; undoing its changes must not replace it.
            _ = try? execute("ROLLBACK TO SAVEPOINT receiptdesk_item", [])
            _ = try? execute("RELEASE SAVEPOINT receiptdesk_item", [])
            throw error
        }
    }

    /// The first row of a query, if any.
    public func queryFirst(_ sql: String, _ parameters: [SQLValue]) throws -> SQLRow? {
        try query(sql, parameters).first
    }
}

/// The differences between backends that the schema and the ledger must know about.
public struct SQLDialect: Sendable {
    /// "sqlite" or "postgresql".
    public let name: String
    /// Column type for raw bytes.
    public let blobType: String
    /// Column definition of an auto-numbered 64-bit primary key.
    public let autoIncrementPrimaryKey: String
    /// Column type for a 64-bit integer (SQLite's INTEGER is 64-bit; PostgreSQL's is 32-bit).
    public let integerType: String
    /// Whether a write transaction excludes every other writer from its start (SQLite's `BEGIN
    /// IMMEDIATE`), so nothing can race it: a batch then needs a savepoint only around an item
    /// that fails halfway (see `PurchaseLedger.importBatch`).
    public var exclusiveWriteTransactions = false

    /// `count` placeholders for a list of values: "?, ?, ?".
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    public static let sqlite = SQLDialect(name: "sqlite", blobType: "BLOB",
                                          autoIncrementPrimaryKey: "INTEGER PRIMARY KEY AUTOINCREMENT", integerType: "INTEGER",
                                          exclusiveWriteTransactions: true)
}
