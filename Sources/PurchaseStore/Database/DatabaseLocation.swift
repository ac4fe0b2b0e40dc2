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

/// Opens a purchase database and brings its schema up to date.
public enum PurchaseDatabase {
    /// Opens the database at `location` (creating the file and its folder when `create`), migrated.
    /// A `postgres://` or `postgresql://` URL opens PostgreSQL instead (`PostgresDatabase`).
    public static func open(_ location: String, create: Bool = true) throws -> SQLDatabase {
        if PostgresDatabase.isURL(location) {
            return try PostgresDatabase.openPurchaseDatabase(url: location, create: create)
        }
        if create {
            let folder = (location as NSString).deletingLastPathComponent
            if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
                do {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                } catch {
                    throw StoreError(.cannotOpen, "cannot create the folder \(folder) for the database: \(error.localizedDescription)")
                }
            }
        } else if !FileManager.default.fileExists(atPath: location) {
            throw StoreError(.cannotOpen, "no database at \(location)")
        }
        let database = try SQLiteDatabase(path: location, create: create)
        try MigrationRunner.migrate(database)
        return database
    }
}
