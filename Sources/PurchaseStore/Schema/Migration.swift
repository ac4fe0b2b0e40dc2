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
            throw StoreError(.cannotOpen, "database \(database.location) has \(applied) of the \(migrations.count) schema migrations this receiptdesk needs; commands that only read never migrate: run `receiptdesk db init` (or any command that writes) first")
        }
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
