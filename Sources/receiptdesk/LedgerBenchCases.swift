import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// One figure of the ledger benchmarks, held to the aim of issue 3 where it has one. The unit is
/// part of the name, which is also the JSON `name` (the value goes in `opsPerSec`).
struct LedgerFigure {
    /// What the figure must reach.
    enum Aim { case atLeast(Double), below(Double), none }

    let name: String
    let value: Double
    let aim: Aim

    /// `name: value (aim …) ✓/✗`, like the ratio lines.
    var line: String {
        let number = "\(name): " + String(format: value >= 1_000 ? "%.0f" : "%.3f", value)
        switch aim {
        case .atLeast(let floor): return number + String(format: " (aim ≥ %g) ", floor) + (value >= floor ? "✓" : "✗")
        case .below(let ceiling): return number + String(format: " (aim < %g) ", ceiling) + (value < ceiling ? "✓" : "✗")
        case .none: return number
        }
    }

    /// The `{"name": …, "opsPerSec": …}` entry of `bench --json`.
    var json: JSONValue { .object([("name", .string(name)), ("opsPerSec", .double((value * 1_000).rounded() / 1_000))]) }
}

/// What the ledger benchmarks measured: figures, and notes on how (printed in text mode only).
struct LedgerBenchReport {
    var figures: [LedgerFigure] = []
    var notes: [String] = []
}

/// A ledger benchmark that could not run as designed (an input that did not verify, a query plan
/// that scans a table, a cached database that is not what the generator writes).
struct LedgerBenchFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { "ledger benchmark: \(message)" }
}

/// The fixed-size ledger benchmarks of issue 3: importing 10,000 generated receipts (transactions/s,
/// peak memory) and lookups on a generated database of 1,000,000 transactions (median and p99 ms).
/// Both are slow, so each runs once (not the ops/s loop); `--only` selects them by any of their
/// figure names (`--only ledger`, `--only import`, `--only lookup`).
enum LedgerBenchCases {
    /// The catalogue of the generated purchases (the same as the ledger tests').
    static let configuration = StoreConfiguration(
        bundleIds: ["com.example.app"],
        products: [
            "com.example.pro.monthly": CatalogueProduct(entitlement: "pro", type: .autoRenewable),
            "com.example.pro.lifetime": CatalogueProduct(entitlement: "pro", type: .nonConsumable),
            "com.example.coins.100": CatalogueProduct(entitlement: "coins", type: .consumable, units: 100),
        ],
        paidToFree: PaidToFreeRule(entitlement: "pro", beforeBuild: "42", beforeDate: nil))
    /// The ledger's fixed clock; every generated purchase lies before it.
    static let now = RFC3339.parse("2025-06-01T12:00:00Z") ?? Date(timeIntervalSince1970: 1_748_779_200)
    static let month: TimeInterval = 2_592_000

    /// Runs the ledger benchmarks `only` selects (all when nil).
    static func run(only: String?, progress: Bool) throws -> LedgerBenchReport {
        var report = LedgerBenchReport()
        func selected(_ names: [String]) -> Bool { only.map { wanted in names.contains { $0.contains(wanted) } } ?? true }
        if selected(LedgerImportBench.names) { try LedgerImportBench.run(into: &report, progress: progress) }
        if selected(LedgerLookupBench.names) { try LedgerLookupBench.run(into: &report, progress: progress) }
        if selected(ReverifyBench.names) { try ReverifyBench.run(into: &report, progress: progress) }
        if selected(ConsoleBench.names) { try ConsoleBench.run(into: &report, progress: progress) }
        if selected(SearchBench.names) { try SearchBench.run(into: &report, progress: progress) }
        return report
    }

    /// A progress line on standard error (text mode only).
    static func say(_ text: String, _ progress: Bool) { if progress { FileHandle.standardError.write(Data("  \(text)\n".utf8)) } }

    /// Fails the benchmark unless `condition` holds: a figure over wrong data is worse than none.
    static func expect(_ condition: Bool, _ problem: @autoclosure () -> String) throws {
        if !condition { throw LedgerBenchFailure(message: problem()) }
    }

    static func seconds(_ duration: Duration) -> Double {
        let (whole, attoseconds) = duration.components
        return Double(whole) + Double(attoseconds) / 1e18
    }

    /// `value` in decimal, zero-padded to `width` digits (stable, sortable ids).
    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

/// What Linux's /proc says about this process: the peak resident set size (`VmHWM`) and the
/// calling thread's time on a CPU and waiting for one (`schedstat`); nil elsewhere.
enum ProcessStats {
    /// Resets the peak RSS to the current RSS (`5` into /proc/self/clear_refs, Linux ≥ 4.0).
    static func resetPeakMemory() -> Bool {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return write(descriptor, "5", 1) == 1
    }

    /// The peak RSS in MiB.
    static func peakMegabytes() -> Double? { statusMegabytes("VmHWM:") }

    /// The current RSS in MiB.
    static func residentMegabytes() -> Double? { statusMegabytes("VmRSS:") }

    /// A kB field of /proc/self/status, in MiB.
    private static func statusMegabytes(_ field: String) -> Double? {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field) }
        return line?.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Double($0) }.map { $0 / 1024 }
    }

    static func threadSeconds() -> (running: Double, waiting: Double)? {
        let text = (try? String(contentsOfFile: "/proc/thread-self/schedstat", encoding: .utf8)) ?? ""
        let fields = text.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        return fields.count >= 2 ? (fields[0] / 1e9, fields[1] / 1e9) : nil
    }
}

/// Lookups on a generated database of 1,000,000 transactions (100,000 customers of 10 transactions,
/// a small receipt each, an order for every second one), written through the real schema and cached
/// in the temp folder under a name keyed by the schema version. No `ANALYZE` is run: the planner
/// sees what a production database that never ran it would.
enum LedgerLookupBench {
    static let customerCount = 100_000
    static let perCustomer = 10
    static let runs = 1_000
    /// Bump when the generated content changes, so a stale cache is not reused.
    static let generatorVersion = "gen2"
    static let firstTransaction = 4_000_000_000_000
    static let lookups = ["customerSummary", "transaction by id", "order by id", "transactions by original transaction id"]
    static var names: [String] {
        ["ledger lookups on 1,000,000 transactions"] + lookups.flatMap { [figureName($0, "median"), figureName($0, "p99")] }
    }

    static func figureName(_ lookup: String, _ statistic: String) -> String { "ledger lookup \(lookup) on 1,000,000 transactions, \(statistic) ms" }
    static func customerId(_ index: Int) -> String { "customer-" + LedgerBenchCases.padded(index, 6) }
    static let firstNames = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Dennis",
                             "Hedy", "John", "Radia", "Tim", "Katherine", "Claude", "Sophie", "Niklaus", "Annie", "Linus"]
    static let lastNames = ["Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Hamilton", "Ritchie",
                            "Lamarr", "McCarthy", "Perlman", "Berners-Lee", "Johnson", "Shannon", "Wilson", "Wirth", "Easley", "Torvalds",
                            "Nakamura", "García", "Müller", "Okafor", "Lindqvist"]
    /// Customer `index`'s display name and email (every pair of names about 200 times over).
    static func contact(_ index: Int) -> (String, String) {
        let first = firstNames[index % firstNames.count]
        let last = lastNames[(index / firstNames.count) % lastNames.count]
        let local = "\(first).\(last)".lowercased().replacingOccurrences(of: "ü", with: "ue").replacingOccurrences(of: "í", with: "i")
        return ("\(first) \(last)", "\(local).\(index)@example.com")
    }
    static func orderId(_ index: Int) -> String { "order-" + LedgerBenchCases.padded(index, 6) }
    static func transactionId(_ index: Int) -> String { String(firstTransaction + index) }

    /// The cached database in the temp folder, keyed by the schema version: the last migration's
    /// name and a digest of every migration's SQL and the generator's version.
    static var cachePath: String {
        let sql = PurchaseSchema.migrations.flatMap { $0.statements(.sqlite) } + [generatorVersion]
        let digest = DigestAlgorithm.sha256.hash(Array(sql.joined(separator: ";\n").utf8)).hexString.prefix(12)
        let version = "\(PurchaseSchema.migrations.last?.name ?? "empty")-\(digest)"
        let safe = String(version.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" })
        return (NSTemporaryDirectory() as NSString).appendingPathComponent("receiptdesk-bench-1M-\(safe).sqlite")
    }

    /// The generated 1,000,000-transaction database (made on the first run, then reused), opened
    /// and checked to hold what the generator writes.
    static func openGenerated(into report: inout LedgerBenchReport, progress: Bool) throws -> SQLDatabase {
        let path = cachePath
        if FileManager.default.fileExists(atPath: path) {
            report.notes.append("reused the cached 1,000,000-transaction database \(path)")
        } else {
            LedgerBenchCases.say("generating 1,000,000 transactions into \(path) (first run only)…", progress)
            let clock = ContinuousClock()
            let start = clock.now
            try generate(path, progress: progress)
            report.notes.append(String(format: "generated %@ in %.1f s", path, LedgerBenchCases.seconds(clock.now - start)))
        }
        let database = try PurchaseDatabase.open(path, create: false)
        let customers = try database.queryFirst("SELECT count(*) AS n FROM customers", [])?.int("n") ?? 0
        try LedgerBenchCases.expect(customers == Int64(customerCount), "\(path) holds \(customers) customers, not \(customerCount): delete it")
        return database
    }

    static func run(into report: inout LedgerBenchReport, progress: Bool) throws {
        let database = try openGenerated(into: &report, progress: progress)
        report.notes.append("ledger lookups: \(try checkPlans(database)) queries, each an index SEARCH, no SCAN (EXPLAIN QUERY PLAN)")
        let now = LedgerBenchCases.now
        let ledger = PurchaseLedger(database: database, configuration: LedgerBenchCases.configuration,
                                    verifier: ReceiptVerifier(trust: try TestCertificateAuthority.shared().trustStore()), clock: { now })
        var random = SplitMix64(seed: 0x5EED)
        func any(_ count: Int) -> Int { Int.random(in: 0..<count, using: &random) }
        LedgerBenchCases.say("ledger lookups: \(runs) of each lookup…", progress)
        let timings = [
            try sample {
                let customer = any(customerCount)
                let summary = try ledger.customerSummary(customerId(customer))
                try LedgerBenchCases.expect(summary.transactions.count == perCustomer && summary.orders.count == 1 - customer % 2,
                                            "customer \(customer) has \(summary.transactions.count) transactions")
            },
            try sample {
                let id = transactionId(any(customerCount * perCustomer))
                try LedgerBenchCases.expect(try ledger.transaction(id) != nil, "transaction \(id) not found")
            },
            try sample {
                let id = orderId(any(customerCount / 2) * 2)
                try LedgerBenchCases.expect(try ledger.order(id) != nil, "order \(id) not found")
            },
            try sample {
                let original = transactionId(any(customerCount) * perCustomer)
                let chain = try database.query(originalTransactionSQL, [.text(original)])
                try LedgerBenchCases.expect(chain.count == 6, "original transaction \(original) has \(chain.count) renewals, not 6")
            },
        ]
        for (lookup, sorted) in zip(lookups, timings) {
            let median = (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
            let p99 = sorted[max(0, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
            report.figures.append(LedgerFigure(name: figureName(lookup, "median"), value: median, aim: .below(5)))
            report.figures.append(LedgerFigure(name: figureName(lookup, "p99"), value: p99, aim: .none))
        }
    }

    static let originalTransactionSQL = "SELECT * FROM transactions WHERE original_transaction_id = ?"

    /// Runs `body` 50 times to warm up, then `runs` times, each timed; milliseconds, sorted.
    static func sample(runs: Int = runs, _ body: () throws -> Void) throws -> [Double] {
        for _ in 0..<min(50, runs) { try body() }
        let clock = ContinuousClock()
        let milliseconds = try (0..<runs).map { _ in
            let start = clock.now
            try body()
            return LedgerBenchCases.seconds(clock.now - start) * 1_000
        }
        return milliseconds.sorted()
    }

    /// `EXPLAIN QUERY PLAN` of every query the lookups run (their WHERE and ORDER BY as the ledger
    /// writes them): fails when one scans a table instead of searching an index. Returns how many.
    static func checkPlans(_ database: SQLDatabase) throws -> Int {
        let byCustomer = [  // customerSummary, with the entitlement input it computes
            "customers WHERE customer_id = ?", "orders WHERE customer_id = ? ORDER BY created_at, order_id",
            "transactions WHERE customer_id = ? ORDER BY purchase_date, transaction_id", "transactions WHERE customer_id = ?",
            "receipts WHERE customer_id = ? ORDER BY receipt_id", "grants WHERE customer_id = ? ORDER BY grant_id",
            "grants WHERE customer_id = ?", "revocations WHERE customer_id = ?",
            "receipts WHERE customer_id = ? AND verdict = 'valid' AND (original_app_version IS NOT NULL OR original_purchase_date IS NOT NULL) ORDER BY receipt_id DESC LIMIT 1",
        ].map { ("SELECT * FROM " + $0, [SQLValue.text(customerId(1))]) }
        let queries = byCustomer + [
            ("SELECT * FROM conflicts WHERE claimant_customer_id = ? OR owner_customer_id = ? ORDER BY conflict_id",
             [.text(customerId(1)), .text(customerId(1))]),
            ("SELECT * FROM transactions WHERE transaction_id = ?", [.text(transactionId(0))]),
            ("SELECT * FROM orders WHERE order_id = ?", [.text(orderId(0))]),
            (originalTransactionSQL, [.text(transactionId(0))]),
        ]
        for (sql, parameters) in queries {
            let plan = try database.query("EXPLAIN QUERY PLAN " + sql, parameters).compactMap { $0.string("detail") }
            if let scan = plan.first(where: { $0.hasPrefix("SCAN ") && !$0.hasPrefix("SCAN CONSTANT") }) {
                throw LedgerBenchFailure(message: "a full table scan (\(scan)) instead of an index search in: \(sql)")
            }
        }
        return queries.count
    }

    /// Writes the database at `path + ".partial"` and renames it into place, so an interrupted run
    /// never leaves a half-written cache.
    static func generate(_ path: String, progress: Bool) throws {
        let partial = path + ".partial"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: partial + suffix) }  // an interrupted run's
        try populate(partial, progress: progress)
        guard rename(partial, path) == 0 else {
            throw LedgerBenchFailure(message: "cannot move \(partial) to \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// The rows, 10,000 customers a write transaction; the connection closes (checkpointed) on return.
    private static func populate(_ path: String, progress: Bool) throws {
        let database = try PurchaseDatabase.open(path)
        try database.execute("PRAGMA synchronous=OFF", [])
        try database.execute("PRAGMA cache_size=-65536", [])
        for first in stride(from: 0, to: customerCount, by: 10_000) {
            try database.writeTransaction {
                for customer in first..<min(first + 10_000, customerCount) { try insertCustomer(customer, database) }
            }
            LedgerBenchCases.say("ledger lookups: \((first + 10_000) * perCustomer) transactions written", progress)
        }
        _ = try database.query("PRAGMA wal_checkpoint(TRUNCATE)", [])
    }

    /// One customer: their receipt, a paid order for every second one, six monthly renewals of one
    /// subscription, a lifetime unlock (bound to the order) and three coin packs.
    private static func insertCustomer(_ index: Int, _ database: SQLDatabase) throws {
        let customer = customerId(index)
        let joined = Date(timeIntervalSince1970: 1_672_531_200 + Double(index) * 300)  // from 2023-01-01, 5 minutes apart
        let (name, email) = contact(index)
        try database.execute("INSERT INTO customers (customer_id, is_tester, created_at, updated_at, display_name, email) VALUES (?, 0, ?, ?, ?, ?)",
                             [.text(customer), .date(joined), .date(joined), .text(name), .text(email)])
        let raw = Array("bench receipt \(index) ".utf8) + [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 200)
        let receiptId = try database.queryFirst("""
            INSERT INTO receipts (sha256, raw, format, environment, verdict, verdict_reason, decoded_json, bundle_id,
                                  original_app_version, original_purchase_date, source, customer_id, imported_at, imported_by)
            VALUES (?, ?, 'unified', 'Production', 'valid', 'signature verified', ?, 'com.example.app', '50', ?, 'bench', ?, ?, 'bench')
            RETURNING receipt_id
            """, [.text(DigestAlgorithm.sha256.hash(raw).hexString), .blob(raw), .text("{\"format\":\"unified\",\"customer\":\"\(customer)\"}"),
                  .date(joined), .text(customer), .date(joined)])?.int("receipt_id")
        guard let receiptId else { throw LedgerBenchFailure(message: "storing a generated receipt returned no id") }
        let base = index * perCustomer
        let order: String? = index % 2 == 0 ? orderId(index) : nil
        if let order {
            try database.execute("""
                INSERT INTO orders (order_id, customer_id, product_id, created_at, status, transaction_id)
                VALUES (?, ?, 'com.example.pro.lifetime', ?, 'paid', ?)
                """, [.text(order), .text(customer), .date(joined.addingTimeInterval(3_600)), .text(transactionId(base + 6))])
        }
        for offset in 0..<perCustomer {
            let id = transactionId(base + offset)
            let renewal = offset < 6
            let (product, type) = renewal ? ("com.example.pro.monthly", ProductType.autoRenewable)
                : offset == 6 ? ("com.example.pro.lifetime", .nonConsumable) : ("com.example.coins.100", .consumable)
            let bought = joined.addingTimeInterval(renewal ? Double(offset) * LedgerBenchCases.month : 3_660 + Double(offset) * 86_400)
            let bound = offset == 6 ? order : nil
            try database.execute("""
                INSERT INTO transactions (transaction_id, original_transaction_id, product_id, product_type, customer_id, order_id,
                                          binding, environment, purchase_date, expires_date, quantity, web_order_line_item_id,
                                          first_receipt_id, recorded_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, 'Production', ?, ?, 1, ?, ?, ?)
                """, [.text(id), .text(renewal ? transactionId(base) : id), .text(product), .text(type.rawValue), .text(customer),
                      .text(bound), .text(bound == nil ? "unbound" : "single-pending-order"), .date(bought),
                      .date(renewal ? bought.addingTimeInterval(LedgerBenchCases.month) : nil), .text(renewal ? id : nil),
                      .integer(receiptId), .date(bought)])
        }
    }
}

/// A small seeded generator, so every run looks up the same ids.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
