import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// Keys sampled from the scale database (at evenly spread rowids), for lookups and searches.
struct ScaleKeys {
    var customers: [String] = []
    var transactions: [String] = []
    var orders: [String] = []
    var originals: [String] = []

    init() {}

    /// `count` of each, read from the SQLite database by rowid.
    init(_ database: SQLDatabase, count: Int) throws {
        func sample(_ table: String, _ column: String, _ extra: String = "") throws -> [String] {
            let high = try database.queryFirst("SELECT max(rowid) AS n FROM \(table)", [])?.int("n") ?? 0
            guard high > 0 else { return [] }
            return try (0..<count).compactMap { index in
                let rowid = max(1, high * Int64(index * 2 + 1) / Int64(count * 2))
                return try database.queryFirst("SELECT \(column) AS k FROM \(table) WHERE rowid >= ? \(extra) ORDER BY rowid LIMIT 1",
                                               [.integer(rowid)])?.string("k")
            }
        }
        customers = try sample("customers", "customer_id")
        transactions = try sample("transactions", "transaction_id")
        orders = try sample("orders", "order_id")
        originals = try sample("transactions", "original_transaction_id", "AND original_transaction_id != transaction_id")
    }
}

/// Issue 30's scale benchmark (`receiptdesk bench --transactions N`, `--scale` for 10,000,000):
/// a database of N transactions shaped like real data (`ScaleCustomer`), built once with
/// `ScaleBuilder` and kept in `folder` for later runs; on it, on SQLite and (with a PostgreSQL
/// URL) on a `db copy` of it: the console's first screen, filter and page-downs and its peak
/// memory, the searches of `ScaleSearch`, the ledger's lookups, the copy's time, and the size
/// per million transactions with each index's share.
enum ScaleBench {
    static let names = ["scale"]
    /// The `--scale` size.
    static let fullScale = 10_000_000
    /// The default size of `--only scale` without `--transactions`.
    static let defaultTransactions = 1_000_000
    /// The most `--transactions` may ask for.
    static let maxTransactions = 50_000_000
    /// The kept databases' folder when none is given.
    static let defaultFolder = ".build/bench-scale"
    /// How many times each step is timed.
    struct Runs {
        var console = 25
        var search = 60
        var lookups = 500
        /// The bench's; a test of the row set may take fewer.
        static let standard = Runs()
    }

    /// The catalogue of the generated purchases.
    static let configuration = StoreConfiguration(
        bundleIds: ["com.example.app"],
        products: [
            "com.example.pro.monthly": CatalogueProduct(entitlement: "pro", type: .autoRenewable),
            "com.example.pro.yearly": CatalogueProduct(entitlement: "pro", type: .autoRenewable),
            "com.example.pro.lifetime": CatalogueProduct(entitlement: "pro", type: .nonConsumable),
            "com.example.coins.100": CatalogueProduct(entitlement: "coins", type: .consumable, units: 100),
        ],
        paidToFree: PaidToFreeRule(entitlement: "pro", beforeBuild: "42", beforeDate: nil))

    /// The kept database of `transactions` in `folder`, named by its size, the generator's
    /// version and a digest of the schema.
    static func path(transactions: Int, folder: String) -> String {
        let sql = PurchaseSchema.migrations.flatMap { $0.statements(.sqlite) } + [ScaleBuilder.generatorVersion]
        let digest = DigestAlgorithm.sha256.hash(Array(sql.joined(separator: ";\n").utf8)).hexString.prefix(12)
        return (folder as NSString).appendingPathComponent("scale-\(transactions)-\(ScaleBuilder.generatorVersion)-\(digest).sqlite")
    }

    static func label(_ transactions: Int) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.groupingSeparator = ","
        formatter.usesGroupingSeparator = true
        return formatter.string(from: NSNumber(value: transactions)) ?? String(transactions)
    }

    /// The steps measured on each backend; `--transactions N --only NAME` picks the steps whose
    /// name starts with NAME (the database is built first when it is not kept yet; the copy to
    /// PostgreSQL always runs when a URL is given, since the other steps measure it).
    enum Part: String, CaseIterable, Sendable {
        case console, search, lookups, size

        /// Every part when `only` is nil or names the scale benchmark itself, else the parts it
        /// names; an error naming the parts when it names none.
        static func selected(by only: String?) throws -> Set<Part> {
            guard let only, !"scale".hasPrefix(only), !only.hasPrefix("scale") else { return Set(allCases) }
            let picked = Set(allCases.filter { $0.rawValue.hasPrefix(only) })
            guard !picked.isEmpty else {
                throw BenchmarkError(.usage, "--only \(only) with --transactions names no step of the scale benchmark (\(allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return picked
        }
    }

    /// The figures for `transactions` transactions: SQLite's, then PostgreSQL's at `postgres`.
    static func run(transactions: Int, folder: String, postgres: String?, parts: Set<Part> = Set(Part.allCases), runs: Runs = .standard,
                    into report: inout LedgerBenchReport, progress: Bool) throws {
        let path = path(transactions: transactions, folder: folder)
        let scale = "scale \(label(transactions)) transactions, "
        if FileManager.default.fileExists(atPath: path) {
            report.notes.append("scale: reused the kept database \(path)")
        } else {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            LedgerBenchCases.say("scale: building \(label(transactions)) transactions into \(path) (kept for later runs)…", progress)
            let clock = ContinuousClock()
            let start = clock.now
            try ScaleBuilder.build(path, transactions: transactions, progress: progress)
            let seconds = LedgerBenchCases.seconds(clock.now - start)
            report.figures.append(LedgerFigure(name: scale + "SQLite: building the database, s", value: seconds, aim: .none))
            report.notes.append(String(format: "scale: built %@ in %.0f s (%.0f transactions/s with their customers, receipts, orders, states and audit entries; 10,000,000 would take about %.0f min at that rate)",
                                       path, seconds, Double(transactions) / max(seconds, 0.001), seconds * Double(fullScale) / Double(transactions) / 60))
        }
        let database = try PurchaseDatabase.open(path, create: false)
        let stored = try database.queryFirst("SELECT count(*) AS n FROM transactions", [])?.int("n") ?? 0
        try LedgerBenchCases.expect(stored == Int64(transactions), "\(path) holds \(stored) transactions, not \(transactions): delete it")
        let customers = try database.queryFirst("SELECT count(*) AS n FROM customers", [])?.int("n") ?? 0
        let receipts = try database.queryFirst("SELECT count(*) AS n FROM receipts", [])?.int("n") ?? 0
        let audit = try database.queryFirst("SELECT count(*) AS n FROM audit_log", [])?.int("n") ?? 0
        report.notes.append("scale: \(label(transactions)) transactions of \(label(Int(customers))) customers, \(label(Int(receipts))) receipts, \(label(Int(audit))) audit entries (names in 7 scripts, 15% without one; ids cust-NNNN, UUIDs and numeric; 16-digit Apple ids)")
        let keys = try ScaleKeys(database, count: 200)
        try measure(database, keys: keys, prefix: scale + "SQLite: ", parts: parts, runs: runs, into: &report, progress: progress)
        if parts.contains(.size) { try StorageCost.figures(database, transactions: transactions, prefix: scale + "SQLite: ", into: &report) }
        guard let postgres else { return }
        let scratch = try BenchScratch(postgresURL: postgres)
        defer { scratch.remove() }
        let target = try PurchaseDatabase.open(try scratch.newDatabase("postgresql"))
        LedgerBenchCases.say("scale: db copy of \(label(transactions)) transactions to PostgreSQL…", progress)
        let copy = try DatabaseCopy.copy(from: database, to: target)
        try LedgerBenchCases.expect(copy.isVerified, "the copy to PostgreSQL does not verify")
        report.notes.append("scale: db copy's steps: " + copy.phases.map { String(format: "%@ %.1f s", $0.name, $0.seconds) }.joined(separator: ", "))
        // The aim is 10 minutes for 10,000,000 transactions: 60 s per million.
        report.figures.append(LedgerFigure(name: scale + "PostgreSQL: db copy from SQLite (verified), s", value: copy.seconds,
                                           aim: .below(60 * Double(transactions) / 1_000_000)))
        try measure(target, keys: keys, prefix: scale + "PostgreSQL: ", parts: parts, runs: runs, into: &report, progress: progress)
        if parts.contains(.size) { try StorageCost.figures(target, transactions: transactions, prefix: scale + "PostgreSQL: ", into: &report) }
    }

    /// The console, the searches and the lookups on `database`.
    static func measure(_ database: SQLDatabase, keys: ScaleKeys, prefix: String, parts: Set<Part>, runs: Runs, into report: inout LedgerBenchReport,
                        progress: Bool) throws {
        let now = LedgerBenchCases.now
        let ledger = PurchaseLedger(database: database, configuration: configuration,
                                    verifier: ReceiptVerifier(trust: try TestCertificateAuthority.shared().trustStore()), clock: { now })
        if parts.contains(.console) {
            LedgerBenchCases.say("\(prefix)console…", progress)
            _ = ProcessStats.resetPeakMemory()
            for figure in try ConsoleBenchmark.measure(ledger: ledger, runs: runs.console, clock: { now }) where !figure.name.contains("paste") {
                report.figures.append(LedgerFigure(name: prefix + figure.name, value: figure.value, aim: ConsoleBench.aim(figure.name),
                                                   floorName: figure.ratio == nil ? nil : ConsoleBenchmark.floorName, ratio: figure.ratio))
            }
        }
        if parts.contains(.search) {
            LedgerBenchCases.say("\(prefix)search, \(runs.search) of each…", progress)
            try ScaleSearch.measure(database, keys: keys, runs: runs.search, prefix: prefix, into: &report)
        }
        guard parts.contains(.lookups) else { return }
        LedgerBenchCases.say("\(prefix)lookups, \(runs.lookups) of each…", progress)
        for figure in try BackendBenchmark.lookups(ledger, customers: keys.customers, transactions: keys.transactions, orders: keys.orders,
                                                   originals: keys.originals, runs: runs.lookups, warmUp: min(50, runs.lookups)) {
            report.figures.append(LedgerFigure(name: prefix + "lookup \(figure.name), median ms", value: figure.medianMilliseconds, aim: .below(5)))
            report.figures.append(LedgerFigure(name: prefix + "lookup \(figure.name), p99 ms", value: figure.p99Milliseconds, aim: .none))
        }
    }
}
