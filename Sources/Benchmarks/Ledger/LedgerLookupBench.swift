import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

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
                throw BenchmarkError.ledger("a full table scan (\(scan)) instead of an index search in: \(sql)")
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
            throw BenchmarkError.ledger("cannot move \(partial) to \(path): \(String(cString: strerror(errno)))")
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
        guard let receiptId else { throw BenchmarkError.ledger("storing a generated receipt returned no id") }
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
