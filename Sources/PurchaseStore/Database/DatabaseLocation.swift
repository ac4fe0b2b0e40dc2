import Foundation

/// Where the purchase database lives: `--db PATH`, else `$RECEIPTDESK_DB`, else the XDG data
/// directory (`$XDG_DATA_HOME/receiptdesk/purchases.sqlite`, default `~/.local/share/…`).
public enum DatabaseLocation {
    public static func resolve(argument: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let argument, !argument.isEmpty { return argument }
        if let fromEnvironment = environment["RECEIPTDESK_DB"], !fromEnvironment.isEmpty { return fromEnvironment }
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return dataHome + "/receiptdesk/purchases.sqlite"
    }
}

/// Opens a purchase database: for writing (created when asked, its schema brought up to date) or
/// for reading (read-only, never created, migrated or converted, and without any write lock).
public enum PurchaseDatabase {
    /// Opens the database at `location` (creating the file and its folder when `create`), migrated.
    /// A `postgres://` or `postgresql://` URL opens PostgreSQL instead (`PostgresDatabase`). An
    /// existing SQLite file that is not a receiptdesk database is refused before anything in it
    /// changes (not even its journal mode). `password` is for PostgreSQL (see `PostgresDatabase`).
    /// `migrating` false (the commands that change the ledger, not the schema): an existing
    /// database is never migrated, only checked (`MigrationRunner.createOrRequireCurrent`); a
    /// new one is still created whole when `create`.
    public static func open(_ location: String, create: Bool = true, migrating: Bool = true, password: String? = nil) throws -> SQLDatabase {
        if PostgresDatabase.isURL(location) {
            return try PostgresDatabase.openPurchaseDatabase(url: location, create: create, migrating: migrating, password: password)
        }
        try refuseSpecialFile(location)
        if FileManager.default.fileExists(atPath: location) {
            try refuseForeignFile(location)
        } else if create {
            let folder = (location as NSString).deletingLastPathComponent
            if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
                do {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                } catch {
                    throw StoreError(.cannotOpen, "cannot create the folder \(folder) for the database: \(error.localizedDescription)")
                }
            }
        } else {
            throw StoreError(.cannotOpen, "no database at \(location)")
        }
        let database = try SQLiteDatabase(path: location, create: create)
        if migrating {
            try MigrationRunner.migrate(database)
        } else {
            try MigrationRunner.createOrRequireCurrent(database, create: create)
        }
        return database
    }

    /// How many schema migrations the existing database at `location` has (0 without receiptdesk's
    /// tables), read without changing anything.
    public static func appliedMigrationCount(_ location: String, password: String? = nil) throws -> Int64 {
        let database: SQLDatabase
        if PostgresDatabase.isURL(location) {
            database = try PostgresDatabase(url: location, readOnly: true, password: password)
        } else {
            try refuseSpecialFile(location)
            guard FileManager.default.fileExists(atPath: location) else { throw StoreError(.cannotOpen, "no database at \(location)") }
            try refuseForeignFile(location)
            database = try SQLiteDatabase(path: location, create: false, readOnly: true, immutable: needsImmutableOpen(location))
        }
        guard try MigrationRunner.hasSchemaTable(database) else { return 0 }
        return try database.queryFirst("SELECT count(*) AS n FROM schema_migrations", [])?.int("n") ?? 0
    }

    /// Opens the database for reading only: it must exist and be fully migrated (readers never
    /// migrate: `receiptdesk db init` does). A SQLite file is opened read-only (a file the user
    /// may only read opens), a PostgreSQL session is made read-only (`default_transaction_read_only`,
    /// kept across reconnects). No write lock is taken, so a writer never makes a reader wait.
    public static func openForReading(_ location: String, password: String? = nil) throws -> SQLDatabase {
        let database: SQLDatabase
        if PostgresDatabase.isURL(location) {
            let postgres = try PostgresDatabase(url: location, readOnly: true, password: password)
            guard try postgres.queryFirst("SELECT to_regclass('schema_migrations') IS NOT NULL AS found", [])?.bool("found") == true else {
                throw StoreError(.cannotOpen, "no receiptdesk database at \(postgres.location): it has no schema_migrations table")
            }
            database = postgres
        } else {
            try refuseSpecialFile(location)
            guard FileManager.default.fileExists(atPath: location) else { throw StoreError(.cannotOpen, "no database at \(location)") }
            try refuseForeignFile(location)
            database = try SQLiteDatabase(path: location, create: false, readOnly: true, immutable: needsImmutableOpen(location))
        }
        try MigrationRunner.requireCurrent(database)
        return database
    }

    /// Whether a read-only open needs `immutable`: the folder may not be written by this user
    /// and holds no `-shm` file, so SQLite could not make the one a WAL database needs (and no
    /// writer is at work there, or it would have made it).
    static func needsImmutableOpen(_ location: String) -> Bool {
        let folder = (location as NSString).deletingLastPathComponent
        return access(folder.isEmpty ? "." : folder, W_OK) != 0 && !FileManager.default.fileExists(atPath: location + "-shm")
    }

    /// Refuses a path that exists but is not a regular file (`/dev/null`, a folder, a pipe)
    /// before SQLite touches it.
    static func refuseSpecialFile(_ location: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: location, isDirectory: &isDirectory) else { return }
        let type = (try? FileManager.default.attributesOfItem(atPath: location)[.type] as? FileAttributeType) ?? nil  // unreadable: SQLite says why
        guard !isDirectory.boolValue, type == nil || type == .typeRegular else {
            throw StoreError(.cannotOpen, "\(location) is not a regular file: give --db the path of a database file")
        }
    }

    /// Refuses an existing SQLite file that holds tables but no `schema_migrations`: somebody
    /// else's database, opened read-only to look, so that nothing in it changes.
    static func refuseForeignFile(_ location: String) throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: location)[.size] as? Int) ?? nil  // unreadable: SQLite says why
        guard size != 0 else { return }  // an empty file becomes a new database
        let probe = try SQLiteDatabase(path: location, create: false, readOnly: true, immutable: needsImmutableOpen(location))
        let tables = try probe.query("SELECT name FROM sqlite_master WHERE type = 'table'", []).compactMap { $0.string("name") }
        guard tables.isEmpty || tables.contains("schema_migrations") else {
            throw StoreError(.cannotOpen, "\(location) is not a receiptdesk database (it holds \(tables.count) other table\(tables.count == 1 ? "" : "s"), no schema_migrations): nothing was changed")
        }
    }
}
