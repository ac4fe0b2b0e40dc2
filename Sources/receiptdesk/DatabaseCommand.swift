import Benchmarks
import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk db init [--db PATH|URL] [--db-password-file FILE]`: creates the database when it is missing and brings its
/// schema up to date, saying which it did (what a team runs once before the first import).
/// `receiptdesk db copy --from SOURCE --to TARGET [--json]`: moves a whole purchase database
/// between a SQLite file and a PostgreSQL URL (either direction, or two of a kind) and verifies
/// it arrived: row counts and contents of every table, and the audit chain.
/// `receiptdesk db bench --postgres URL [--receipts N] [--runs N] [--lookups-on DB]... [--json]`:
/// import throughput from 1 and 4 connections and the ledger lookups, on PostgreSQL beside
/// SQLite; `--lookups-on` also times the lookups on a copy of the 1,000,000-transaction lookup
/// benchmark database (`receiptdesk db copy --from <its cache> --to URL` makes one).
enum DatabaseCommand {
    static let usage = """
        usage: receiptdesk db init [--db PATH|URL] [--db-password-file FILE]
               receiptdesk db migrate [--db PATH|URL] [--db-password-file FILE]
               receiptdesk db roles [--db URL] [--db-password-file FILE] [--prefix NAME]
               receiptdesk db copy --from SOURCE --to TARGET [--json]
               receiptdesk db bench --postgres URL [--receipts N] [--runs N] [--lookups-on DB]... [--json]
        SOURCE and TARGET are SQLite paths or postgres:// URLs; give passwords through PGPASSWORD or
        ~/.pgpass (an argument is visible to every user of the machine)
        """

    static func run(_ arguments: [String]) throws -> ExitStatus {
        guard let command = arguments.first else { throw CommandFailure.usage(usage) }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "init": return try initialise(rest)
        case "migrate": return try migrate(rest)
        case "roles": return try roles(rest)
        case "copy": return try copy(rest)
        case "bench": return try bench(rest)
        case "bench-worker": return try benchWorker(rest)  // started by the benchmark, not documented
        default: throw CommandFailure.usage("unknown db command '\(command)'\n\(usage)")
        }
    }

    /// `--db PATH|URL` (else `RECEIPTDESK_DB`, else the default) and `--db-password-file FILE`.
    static func databaseOptions(_ args: inout Arguments) throws -> (location: String, password: String?) {
        let argument = try args.value("--db")
        let location = DatabaseLocation.resolve(argument: argument)
        return (location, try DatabasePassword.take(&args, location: location, argument: argument))
    }

    // MARK: init

    static func initialise(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let (location, password) = try databaseOptions(&args)
        _ = try args.finish(maxPositionals: 0)
        let isFile = !PostgresDatabase.isURL(location)
        let existed = !isFile || FileManager.default.fileExists(atPath: location)
        let database = try PurchaseDatabase.open(location, create: true, password: password)
        let applied = try database.queryFirst("SELECT count(*) AS n FROM schema_migrations", [])?.int("n") ?? 0
        print("\(existed ? "database" : "created a new purchase database at") \(database.location): schema up to date (\(Plural.of(applied, "migration")))")
        return .ok
    }

    /// `db migrate`: brings an existing database's schema up to date (the only command besides
    /// `db init` that changes it; run it as the database's owner role), saying what it applied.
    static func migrate(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let (location, password) = try databaseOptions(&args)
        _ = try args.finish(maxPositionals: 0)
        if !PostgresDatabase.isURL(location) && !FileManager.default.fileExists(atPath: location) {
            throw StoreOptions.missing(location)
        }
        let before = try PurchaseDatabase.appliedMigrationCount(location, password: password)
        let database = try PurchaseDatabase.open(location, create: false, password: password)
        let applied = try database.queryFirst("SELECT count(*) AS n FROM schema_migrations", [])?.int("n") ?? 0
        let added = applied - before
        print("database \(database.location): schema up to date (\(Plural.of(applied, "migration"))\(added > 0 ? ", \(added) applied now" : ", nothing to apply"))")
        return .ok
    }

    /// `db roles`: creates the least-privilege group roles on a PostgreSQL database and grants
    /// their rights (see `DatabaseRoles`); run it as a superuser after db init and after db migrate.
    static func roles(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let (location, password) = try databaseOptions(&args)
        let prefix = try args.value("--prefix") ?? "receiptdesk"
        _ = try args.finish(maxPositionals: 0)
        guard PostgresDatabase.isURL(location) else {
            throw CommandFailure.usage("db roles is for PostgreSQL (--db postgres://…): a SQLite file's rights are its file permissions, and its audit records the OS user")
        }
        let roles: DatabaseRoles
        do { roles = try DatabaseRoles(prefix: prefix) } catch let error as StoreError { throw CommandFailure.usage(error.reason) }
        let database = try PostgresDatabase.openPurchaseDatabase(url: location, create: false, migrating: false, password: password)
        for line in try roles.apply(on: database) { print(line) }
        print("make each login a member of one: GRANT \(roles.operatorRole) TO alice;  (\(roles.reader), \(roles.operatorRole), \(roles.service), \(roles.owner))")
        return .ok
    }

    // MARK: copy

    static func copy(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        guard let from = try args.value("--from") else { throw CommandFailure.usage("db copy needs --from SOURCE\n\(usage)") }
        guard let to = try args.value("--to") else { throw CommandFailure.usage("db copy needs --to TARGET\n\(usage)") }
        let json = args.flag("--json")
        _ = try args.finish(maxPositionals: 0)
        let source = try PurchaseDatabase.open(from, create: false)
        // A SQLite target this command creates is removed again if the copy fails.
        let createdFile = !PostgresDatabase.isURL(to) && !FileManager.default.fileExists(atPath: to)
        let report: DatabaseCopyReport
        do {
            let target = try PurchaseDatabase.open(to, create: true)
            report = try DatabaseCopy.copy(from: source, to: target) { table, rows in
                if !json { printError("  copied \(table): \(Plural.of(rows, "row"))") }
            }
            // A copy that did not verify is not left for anyone to use, nor in a re-run's way.
            if !report.isVerified {
                if createdFile {
                    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: to + suffix) }  // ours
                } else {
                    try DatabaseCopy.empty(target)
                }
            }
        } catch {
            if createdFile {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: to + suffix) }  // best effort: ours, and empty
            }
            throw error
        }
        if json {
            print(JSONValue.object([
                ("source", .string(report.source)), ("target", .string(report.target)), ("verified", .bool(report.isVerified)),
                ("rows", .int(report.rowsCopied)), ("seconds", .double((report.seconds * 1_000).rounded() / 1_000)),
                ("vacuumFailed", .string(report.unsettled)),
                ("steps", .array(report.phases.map { step in
                    .object([("name", .string(step.name)), ("seconds", .double((step.seconds * 1_000).rounded() / 1_000))])
                })),
                ("tables", .array(report.tables.map { table in
                    .object([("name", .string(table.name)), ("source", .int(table.sourceRows)), ("target", .int(table.targetRows)),
                             ("contentsMatch", .bool(table.contentsMatch))])
                })),
                ("audit", .object([("intact", .bool(report.audit.isIntact)), ("checked", .int(Int64(report.audit.checked))),
                                   ("problem", .string(report.audit.problem)), ("headMatchesSource", .bool(report.auditHeadMatches))])),
            ]).serialized())
        } else {
            print("copied \(report.source) → \(report.target): \(Plural.of(report.rowsCopied, "row")) in \(String(format: "%.2f", report.seconds)) s")
            let width = report.tables.map(\.name.count).max() ?? 0
            for table in report.tables {
                let mark = table.isIdentical ? "✓" : (table.contentsMatch ? "✗ row count differs" : "✗ contents differ")
                print("  \(table.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(table.sourceRows) → \(table.targetRows)  \(mark)")
            }
            if let problem = report.audit.problem {
                print("audit chain BROKEN on the target after \(report.audit.checked) good entries: \(problem)")
            } else {
                print("audit chain intact on the target: \(Plural.of(report.audit.checked, "entry", "entries"))"
                      + (report.auditHeadMatches ? ", ending where the source's ends" : ", but its head differs from the source's"))
            }
            if !report.isVerified { print("the copy does NOT match the source: the target was \(createdFile ? "removed" : "emptied"); copy again") }
            if let unsettled = report.unsettled {
                print("note: the copy could not be vacuumed and analysed (\(unsettled)): its first lookups may be slow until autovacuum runs, or run VACUUM ANALYZE")
            }
        }
        return report.isVerified ? .ok : .verificationFailed
    }

    // MARK: bench

    static func bench(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        guard let url = try args.value("--postgres") else { throw CommandFailure.usage("db bench needs --postgres URL\n\(usage)") }
        let receipts = try args.value("--receipts").map { text -> Int in
            guard let value = Int(text), value >= 10, value <= BenchSuite.maxReceipts else {
                throw CommandFailure.usage("--receipts \(text) is not between 10 and \(BenchSuite.maxReceipts)")
            }
            return value
        } ?? 2_000
        let runs = try args.value("--runs").map { text -> Int in
            guard let value = Int(text), value >= 10, value <= 100_000 else { throw CommandFailure.usage("--runs \(text) is not between 10 and 100000") }
            return value
        } ?? 500
        let lookupDatabases = try args.values("--lookups-on")
        let json = args.flag("--json")
        _ = try args.finish(maxPositionals: 0)
        let output = try BenchSuite.backends(postgresURL: url, receipts: receipts, runs: runs, lookupsOn: lookupDatabases, progress: !json)
        print(json ? output.json.serialized() : output.lines.joined(separator: "\n"))
        return .ok
    }

    /// `receiptdesk db bench-worker --db LOCATION --receipts N --worker K --workers W [--batch B] [--from F]`: one of the
    /// importing processes of `bench --postgres` (the body is `BenchSuite.importWorker`).
    static func benchWorker(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        guard let location = try args.value("--db"), let total = try args.value("--receipts").flatMap({ Int($0) }),
              let index = try args.value("--worker").flatMap({ Int($0) }), let count = try args.value("--workers").flatMap({ Int($0) }),
              count > 0, index >= 0, index < count else {
            throw CommandFailure.usage("usage: receiptdesk db bench-worker --db LOCATION --receipts N --worker K --workers W [--batch B] [--from F]")
        }
        let batch = try args.value("--batch").map { text -> Int in
            guard let value = Int(text), value >= 1, value <= 10_000 else { throw CommandFailure.usage("--batch \(text) is not between 1 and 10000") }
            return value
        } ?? 1
        let from = try args.value("--from").map { text -> Int in
            guard let value = Int(text), value >= 0, value <= 100_000_000 else { throw CommandFailure.usage("--from \(text) is not between 0 and 100000000") }
            return value
        } ?? 0
        _ = try args.finish(maxPositionals: 0)
        try BenchSuite.importWorker(location: location, receipts: total, worker: index, workers: count, batch: batch, from: from)
        return .ok
    }
}
