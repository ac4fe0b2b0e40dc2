import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// `receiptdesk db init [--db PATH|URL]`: creates the database when it is missing and brings its
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
        usage: receiptdesk db init [--db PATH|URL]
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
        case "copy": return try copy(rest)
        case "bench": return try bench(rest)
        case "bench-worker": return try PostgresBench.worker(rest)  // started by the benchmark, not documented
        default: throw CommandFailure.usage("unknown db command '\(command)'\n\(usage)")
        }
    }

    // MARK: init

    static func initialise(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let location = DatabaseLocation.resolve(argument: try args.value("--db"))
        _ = try args.finish(maxPositionals: 0)
        let isFile = !PostgresDatabase.isURL(location)
        let existed = !isFile || FileManager.default.fileExists(atPath: location)
        let database = try PurchaseDatabase.open(location, create: true)
        let applied = try database.queryFirst("SELECT count(*) AS n FROM schema_migrations", [])?.int("n") ?? 0
        print("\(existed ? "database" : "created a new purchase database at") \(database.location): schema up to date (\(applied) migrations)")
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
                if !json { printError("  copied \(table): \(rows) rows") }
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
                ("tables", .array(report.tables.map { table in
                    .object([("name", .string(table.name)), ("source", .int(table.sourceRows)), ("target", .int(table.targetRows)),
                             ("contentsMatch", .bool(table.contentsMatch))])
                })),
                ("audit", .object([("intact", .bool(report.audit.isIntact)), ("checked", .int(Int64(report.audit.checked))),
                                   ("problem", .string(report.audit.problem)), ("headMatchesSource", .bool(report.auditHeadMatches))])),
            ]).serialized())
        } else {
            print("copied \(report.source) → \(report.target): \(report.rowsCopied) rows in \(String(format: "%.2f", report.seconds)) s")
            let width = report.tables.map(\.name.count).max() ?? 0
            for table in report.tables {
                let mark = table.isIdentical ? "✓" : (table.contentsMatch ? "✗ row count differs" : "✗ contents differ")
                print("  \(table.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(table.sourceRows) → \(table.targetRows)  \(mark)")
            }
            if let problem = report.audit.problem {
                print("audit chain BROKEN on the target after \(report.audit.checked) good entries: \(problem)")
            } else {
                print("audit chain intact on the target: \(report.audit.checked) entries"
                      + (report.auditHeadMatches ? ", ending where the source's ends" : ", but its head differs from the source's"))
            }
            if !report.isVerified { print("the copy does NOT match the source: the target was \(createdFile ? "removed" : "emptied"); copy again") }
        }
        return report.isVerified ? .ok : .verificationFailed
    }

    // MARK: bench

    static func bench(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        guard let url = try args.value("--postgres") else { throw CommandFailure.usage("db bench needs --postgres URL\n\(usage)") }
        let receipts = try args.value("--receipts").map { text -> Int in
            guard let value = Int(text), value >= 10, value <= LedgerImportBench.receiptCount else {
                throw CommandFailure.usage("--receipts \(text) is not between 10 and \(LedgerImportBench.receiptCount)")
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
        var report = try backendFigures(postgresURL: url, receipts: receipts, runs: runs, progress: !json)
        for location in lookupDatabases { try millionLookups(location, runs: runs, into: &report) }
        if json {
            print(JSONValue.array(report.figures.map(\.json)).serialized())
        } else {
            print((report.figures.map(\.line) + report.notes.map { "note: " + $0 }).joined(separator: "\n"))
        }
        return .ok
    }

    /// The backend figures for `receiptdesk bench`: for SQLite and for PostgreSQL at `postgresURL`
    /// (in a temporary schema, dropped afterwards), `receipts` generated receipts of 3
    /// transactions imported from 1 and from 4 connections into fresh databases (one operation
    /// each, then in batches of 100), and the ledger lookups (`runs` each) on the first database.
    static func backendFigures(postgresURL: String, receipts count: Int, runs: Int, progress: Bool) throws -> LedgerBenchReport {
        var report = LedgerBenchReport()
        let authority = try TestCertificateAuthority.shared()
        LedgerBenchCases.say("backends: building \(count) receipts…", progress)
        let receipts = try (0..<count).map { try LedgerImportBench.receipt($0, authority) }
        let scratch = try BenchScratch(postgresURL: postgresURL)
        defer { scratch.remove() }
        for backend in ["sqlite", "postgresql"] {
            var single: Double = 0
            for (workers, batch) in [(1, 1), (4, 1), (1, 100), (4, 100)] {
                let location = try scratch.newDatabase(backend)
                _ = try PurchaseDatabase.open(location)  // migrated once, before timing
                LedgerBenchCases.say("backends: \(backend), importing from \(workers) connection(s), batches of \(batch)…", progress)
                let figure = try BackendBenchmark.importThroughput(
                    workers: workers, batch: batch, receipts: receipts, customer: { LedgerImportBench.customerId($0 % LedgerImportBench.customerCount) },
                    open: { try PurchaseDatabase.open(location) }, configuration: LedgerBenchCases.configuration,
                    trust: authority.trustStore(), now: LedgerBenchCases.now)
                try LedgerBenchCases.expect(figure.transactions == Int64(count * LedgerImportBench.purchasesPerReceipt),
                                            "\(backend): \(figure.transactions) transactions recorded, not \(count * 3)")
                let how = batch > 1 ? "batches of \(batch)" : "one operation each"
                let name = "\(backend) import from \(workers) connection\(workers == 1 ? "" : "s"), \(how), transactions/s"
                report.figures.append(LedgerFigure(name: name, value: figure.transactionsPerSecond, aim: .none))
                if workers == 1 {
                    single = figure.transactionsPerSecond
                    if batch == 1 { try lookups(location, backend: backend, count: count, runs: runs, into: &report) }
                } else if single > 0 {
                    report.figures.append(LedgerFigure(name: "\(backend) import, \(how), \(workers) connections ÷ 1 connection",
                                                       value: figure.transactionsPerSecond / single, aim: .atLeast(2)))
                }
            }
        }
        report.notes.append("backends: \(count) receipts × 3 transactions, one importArtefact each or importBatch of 100; workers are threads with a connection each; PostgreSQL writers queue only for the audit append at commit and per customer (batches, which use savepoints, one at a time), SQLite's on its one write lock; receiptdesk bench --postgres URL measures separate processes")
        return report
    }

    /// The lookups of `LedgerLookupBench` (random keys of its generator) on `location`, a copy of
    /// its 1,000,000-transaction database on either backend.
    static func millionLookups(_ location: String, runs: Int, into report: inout LedgerBenchReport) throws {
        let database = try PurchaseDatabase.open(location, create: false)
        let customers = try database.queryFirst("SELECT count(*) AS n FROM customers", [])?.int("n") ?? 0
        try LedgerBenchCases.expect(customers == Int64(LedgerLookupBench.customerCount),
                                    "\(database.location) holds \(customers) customers, not the lookup benchmark's \(LedgerLookupBench.customerCount)")
        let ledger = PurchaseLedger(database: database, configuration: LedgerBenchCases.configuration,
                                    verifier: ReceiptVerifier(trust: try TestCertificateAuthority.shared().trustStore()))
        var random = SplitMix64(seed: 0x5EED)
        func keys(_ count: Int, _ name: (Int) -> String) -> [String] { (0..<1_000).map { _ in name(Int.random(in: 0..<count, using: &random)) } }
        let count = LedgerLookupBench.customerCount
        let per = LedgerLookupBench.perCustomer
        let figures = try BackendBenchmark.lookups(
            ledger, customers: keys(count, LedgerLookupBench.customerId),
            transactions: keys(count * per, LedgerLookupBench.transactionId),
            orders: keys(count / 2) { LedgerLookupBench.orderId($0 * 2) },
            originals: keys(count) { LedgerLookupBench.transactionId($0 * per) }, runs: runs)
        for figure in figures {
            report.figures.append(LedgerFigure(name: "\(database.dialect.name) lookup \(figure.name) on 1,000,000 transactions, median ms",
                                               value: figure.medianMilliseconds, aim: .below(5)))
            report.figures.append(LedgerFigure(name: "\(database.dialect.name) lookup \(figure.name) on 1,000,000 transactions, p99 ms",
                                               value: figure.p99Milliseconds, aim: .none))
        }
    }

    static func lookups(_ location: String, backend: String, count: Int, runs: Int, into report: inout LedgerBenchReport) throws {
        let ledger = PurchaseLedger(database: try PurchaseDatabase.open(location), configuration: LedgerBenchCases.configuration,
                                    verifier: ReceiptVerifier(trust: try TestCertificateAuthority.shared().trustStore()))
        let customers = (0..<min(count, LedgerImportBench.customerCount)).map(LedgerImportBench.customerId)
        let transactions = (0..<count).map { String(3_000_000_000_000 + $0 * LedgerImportBench.purchasesPerReceipt + 1) }
        let originals = (0..<min(count, LedgerImportBench.customerCount)).map { String(3_000_000_000_000 + $0 * LedgerImportBench.purchasesPerReceipt) }
        let figures = try BackendBenchmark.lookups(ledger, customers: customers, transactions: transactions,
                                                   orders: (0..<100).map { "order-\($0)" }, originals: originals, runs: runs)
        for figure in figures {
            report.figures.append(LedgerFigure(name: "\(backend) lookup \(figure.name) on \(count * 3) transactions, median ms",
                                               value: figure.medianMilliseconds, aim: .below(5)))
            report.figures.append(LedgerFigure(name: "\(backend) lookup \(figure.name) on \(count * 3) transactions, p99 ms",
                                               value: figure.p99Milliseconds, aim: .none))
        }
    }
}

/// Fresh databases for the backend benchmark: files in a temporary folder, schemas on the server.
final class BenchScratch {
    let folder: URL
    let postgresURL: String
    private var schemas: [String] = []

    init(postgresURL: String) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-bench-backends-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.postgresURL = postgresURL
    }

    func newDatabase(_ backend: String) throws -> String {
        let name = "receiptdesk_bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        guard backend == "postgresql" else { return folder.appendingPathComponent("\(name).sqlite").path }
        try PostgresDatabase(url: postgresURL).execute("CREATE SCHEMA \(name)", [])
        schemas.append(name)
        return postgresURL + (postgresURL.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(name)"
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)  // best effort: a leftover temp folder is harmless
        guard !schemas.isEmpty, let server = try? PostgresDatabase(url: postgresURL) else { return }  // best effort, as above
        for schema in schemas { _ = try? server.execute("DROP SCHEMA \(schema) CASCADE", []) }  // best effort, as above
    }
}
