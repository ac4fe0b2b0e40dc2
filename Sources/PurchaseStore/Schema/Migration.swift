import Foundation

/// A named, forward-only schema change. Its statements are produced for a dialect, so the same
/// migration means the same schema on every backend.
public struct Migration: Sendable {
    public let name: String
    public let statements: @Sendable (SQLDialect) -> [String]

    public init(_ name: String, _ statements: @escaping @Sendable (SQLDialect) -> [String]) {
        self.name = name
        self.statements = statements
    }
}

/// Applies the migrations a database lacks, in order, each in its own transaction, and refuses a
/// database that a newer receiptdesk has migrated further. Several processes opening one new
/// database at once apply each migration exactly once.
public enum MigrationRunner {
    public static func migrate(_ database: SQLDatabase, _ migrations: [Migration] = PurchaseSchema.migrations, now: Date = Date()) throws {
        try database.writeTransaction { () throws -> Void in
            try database.execute("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    position INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, applied_at TEXT NOT NULL)
                """, [])
        }
        let known = try appliedCount(database, migrations)
        for (index, migration) in migrations.enumerated() where index >= known {
            try database.writeTransaction {
                // Another process may have applied it while this one waited for the lock.
                guard try appliedCount(database, migrations) == index else { return }
                for statement in migration.statements(database.dialect) { try database.execute(statement, []) }
                try database.execute("INSERT INTO schema_migrations (position, name, applied_at) VALUES (?, ?, ?)",
                                     [.integer(Int64(index + 1)), .text(migration.name), .date(now)])
            }
        }
    }

    /// Refuses a database whose schema is behind this receiptdesk (or ahead of it), without changing it.
    public static func requireCurrent(_ database: SQLDatabase, _ migrations: [Migration] = PurchaseSchema.migrations) throws {
        let applied = try appliedCount(database, migrations)
        guard applied == migrations.count else {
            throw StoreError(.cannotOpen, "database \(database.location): schema is behind (\(applied) of the \(migrations.count) migrations this receiptdesk needs): run `receiptdesk db migrate` (only db init and db migrate change the schema)")
        }
    }

    /// What a command that changes the ledger (but not the schema) does at open: a database with
    /// no receiptdesk tables yet is created whole when `create` allows it (every migration in one
    /// transaction, so another process opening it at the same moment sees no tables or all of
    /// them); any other is used as it is, and refused when its schema is behind or ahead. No DDL
    /// runs on an existing database, so a role with table rights only (`db roles`' operator and
    /// service) can work on it. Returns whether it created the schema.
    @discardableResult
    public static func createOrRequireCurrent(_ database: SQLDatabase, create: Bool, _ migrations: [Migration] = PurchaseSchema.migrations,
                                              now: Date = Date()) throws -> Bool {
        if try hasSchemaTable(database) {
            try requireCurrent(database, migrations)
            return false
        }
        guard create else { throw StoreError(.cannotOpen, "no receiptdesk database at \(database.location): it has no schema_migrations table") }
        let created = try database.writeTransaction { () throws -> Bool in
            // Another process may have created it while this one waited for the write lock.
            guard try !hasSchemaTable(database) else { return false }
            try database.execute("""
                CREATE TABLE schema_migrations (
                    position INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, applied_at TEXT NOT NULL)
                """, [])
            for (index, migration) in migrations.enumerated() {
                for statement in migration.statements(database.dialect) { try database.execute(statement, []) }
                try database.execute("INSERT INTO schema_migrations (position, name, applied_at) VALUES (?, ?, ?)",
                                     [.integer(Int64(index + 1)), .text(migration.name), .date(now)])
            }
            return true
        }
        if !created { try requireCurrent(database, migrations) }
        return created
    }

    /// Whether the database has receiptdesk's `schema_migrations` table (a read, no DDL).
    public static func hasSchemaTable(_ database: SQLDatabase) throws -> Bool {
        if database.dialect.name == "postgresql" {
            return try database.queryFirst("SELECT to_regclass('schema_migrations') IS NOT NULL AS found", [])?.bool("found") == true
        }
        return try database.queryFirst("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'", [])?
            .int("n") == 1
    }

    /// How many of `migrations` the database has, refusing one migrated further by a newer receiptdesk.
    private static func appliedCount(_ database: SQLDatabase, _ migrations: [Migration]) throws -> Int {
        let applied = try database.query("SELECT position, name FROM schema_migrations ORDER BY position", [])
        for row in applied {
            let position = Int(row.int("position") ?? -1)
            let name = row.string("name") ?? ""
            guard position >= 1, position <= migrations.count, migrations[position - 1].name == name else {
                throw StoreError(.schemaTooNew,
                                 "database \(database.location) was migrated by a newer receiptdesk (migration \(position) '\(name)' is unknown to this version): upgrade receiptdesk to open it")
            }
        }
        return applied.count
    }
}
