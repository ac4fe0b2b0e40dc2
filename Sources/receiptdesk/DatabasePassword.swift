import Foundation
import PurchaseStore

/// Where a PostgreSQL password may come from on the command line: `--db-password-file FILE`
/// (its first line), handed to libpq as a connection parameter and never printed. A password
/// written into `--db` shows in `ps` and in shell history: it still works, with a warning.
enum DatabasePassword {
    /// The warning for a password in `--db` (it names neither the password nor the URL).
    static let warning = "receiptdesk: warning: the password in --db shows in `ps` and in shell history; "
        + "put it in ~/.pgpass or the file PGPASSFILE names (libpq reads it), or give --db-password-file FILE"

    /// Takes `--db-password-file` out of `args` for the database `location` (the `--db`
    /// argument, or nil when it came from elsewhere), warns when the `--db` argument carries a
    /// password, and returns the file's password. A missing, unreadable or empty file, or one
    /// given for a SQLite database, is a usage error naming the file.
    static func take(_ args: inout Arguments, location: String, argument: String?) throws -> String? {
        let file = try args.value("--db-password-file")
        if let argument, PostgresDatabase.isURL(argument), PostgresDatabase.urlHasPassword(argument) {
            printError(warning)
        }
        guard let file else { return nil }
        guard PostgresDatabase.isURL(location) else {
            throw CommandFailure.usage("--db-password-file \(file): only a PostgreSQL database (--db postgres://…) takes a password")
        }
        return try read(file)
    }

    /// The first line of `path` (without its line end): the password.
    static func read(_ path: String) throws -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure.usage("--db-password-file \(path): no such file")
        }
        guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure.usage("--db-password-file \(path): cannot be read")
        }
        let firstLine = String(decoding: data, as: UTF8.self).split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first
        let password = firstLine.map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) } ?? ""
        guard !password.isEmpty else {
            throw CommandFailure.usage("--db-password-file \(path): is empty (its first line must be the password)")
        }
        return password
    }
}
