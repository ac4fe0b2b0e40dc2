import Foundation

/// Opening a PostgreSQL database as the purchase database: its schema brought up to date (or
/// only checked), and the change feed's triggers installed.
extension PostgresDatabase {
    /// Opens the purchase database at `url`: connects, migrates (several processes at once
    /// included: migrations run under the writer lock) and installs the change triggers. With
    /// `create` false, a database without receiptdesk's tables is refused instead of set up.
    /// `migrating` false: an existing schema is only checked, never changed (no DDL, so a role
    /// with table rights only can open it); a database without receiptdesk's tables is created
    /// whole, with its change triggers, when `create` allows it.
    public static func openPurchaseDatabase(url: String, create: Bool, migrating: Bool = true, password: String? = nil) throws -> PostgresDatabase {
        let database = try PostgresDatabase(url: url, password: password)
        database.exclusiveWrites = true  // several processes opening a new database at once migrate it once
        defer { database.exclusiveWrites = false }
        if !create, try !MigrationRunner.hasSchemaTable(database) {
            throw StoreError(.cannotOpen, "no receiptdesk database at \(database.location): it has no schema_migrations table")
        }
        if migrating {
            try MigrationRunner.migrate(database)
            try PostgresChangeFeed.install(database)
        } else if try MigrationRunner.createOrRequireCurrent(database, create: create) {
            try PostgresChangeFeed.install(database)
        }
        return database
    }
}
