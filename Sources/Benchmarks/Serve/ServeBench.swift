import Foundation
import HTTPService
import LiveService
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// `receiptdesk bench --only serve`: the live service over loopback on SQLite, at 1, 8 and 64
/// concurrent clients (each a kept-alive connection): notifications/s and purchases/s with p50 and
/// p99 latency, and purchases against `import` of the same artefacts from one process (batches
/// of 100), the two measured one after the other on fresh databases. Aims (issue 28): at 64
/// clients ≥ 3,000 notifications/s with p99 < 50 ms; purchases ≥ 50% of the batched import.
enum ServeBench {
    static let names = ["serve", "serve notifications", "serve purchases"]
    static let clientCounts = [1, 8, 64]
    static let notificationCount = 3_000
    static let purchaseCount = 2_000

    static func run(into report: inout LedgerBenchReport, progress: Bool, postgres: String? = nil) throws {
        let authority = try TestCertificateAuthority.shared()
        let state = SimulatorState(authority: authority, bundleId: "com.example.app")
        LedgerBenchCases.say("serve: minting \(notificationCount) notifications and \(purchaseCount) purchases", progress)
        // One subscriber per 30 notifications, each renewed month after month; sent renewal day
        // by renewal day (every subscriber's first renewal, then every second one…), as Apple
        // sends a shop's renewals: requests in flight at once are about different subscribers.
        var receipts: [(String, [UInt8])] = []
        var bySubscriber: [[[UInt8]]] = []
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        for subscriber in 0..<(notificationCount / 30) {
            let purchase = SimulatedPurchase(productId: "com.example.pro.monthly", type: .autoRenewable, purchaseDate: start,
                                             expiresDate: start.addingTimeInterval(LedgerBenchCases.month))
            let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [purchase], account: "s\(subscriber)")
            receipts.append(("s\(subscriber)", Array(receipt.base64.utf8)))
            guard let original = receipt.transactions.first?.transactionId else { throw BenchmarkError.ledger("serve: a receipt without a transaction") }
            bySubscriber.append(try (1...30).map { month in
                let bought = start.addingTimeInterval(Double(month) * LedgerBenchCases.month)
                let minted = try state.renewAndNotify(originalTransactionId: original, purchaseDate: bought,
                                                      expiresDate: bought.addingTimeInterval(LedgerBenchCases.month))
                return Array(minted.body.utf8)
            })
        }
        let notifications = (0..<30).flatMap { month in bySubscriber.map { $0[month] } }
        let purchases = try (0..<purchaseCount).map { index -> [UInt8] in
            let payload = TransactionPayload(transactionId: String(3_000_000_000_000_000 + index), bundleId: "com.example.app",
                                             productId: "com.example.coins.100", type: "Consumable", purchaseDate: start,
                                             signedDate: start, environment: "Production")
            return Array(try JWSBuilder(authority: authority).signedTransaction(payload).utf8)
        }
        var importRate = 0.0
        if let postgres {
            // PostgreSQL: the notifications aim (≥ 2,000/s at 64 clients).
            for clients in clientCounts {
                let notified = try measure(authority: authority, clients: clients, setup: receipts, bodies: notifications,
                                           path: "/v1/apple/notifications", postgres: postgres, progress: progress)
                report.figures.append(LedgerFigure(name: "serve notifications/s, PostgreSQL, \(clients) clients", value: notified.rate,
                                                   aim: clients == 64 ? .atLeast(2_000) : .none))
                report.figures.append(LedgerFigure(name: "serve notification p99 ms, PostgreSQL, \(clients) clients", value: notified.p99, aim: .none))
                cost(notified, "notification", "PostgreSQL", clients, into: &report)
                let bought = try measure(authority: authority, clients: clients, setup: [], bodies: purchaseBodies(purchases),
                                         path: "/v1/purchases", postgres: postgres, progress: progress)
                report.figures.append(LedgerFigure(name: "serve purchases/s, PostgreSQL, \(clients) clients", value: bought.rate, aim: .none))
            }
        }
        for clients in clientCounts {
            let notified = try measure(authority: authority, clients: clients, setup: receipts, bodies: notifications, path: "/v1/apple/notifications",
                                       progress: progress)
            report.figures.append(LedgerFigure(name: "serve notifications/s, SQLite, \(clients) clients", value: notified.rate,
                                               aim: clients == 64 ? .atLeast(3_000) : .none))
            report.figures.append(LedgerFigure(name: "serve notification p50 ms, \(clients) clients", value: notified.p50, aim: .none))
            report.figures.append(LedgerFigure(name: "serve notification p99 ms, \(clients) clients", value: notified.p99,
                                               aim: clients == 64 ? .below(50) : .none))
            cost(notified, "notification", "SQLite", clients, into: &report)
            let bought = try measure(authority: authority, clients: clients, setup: [], bodies: purchaseBodies(purchases),
                                     path: "/v1/purchases", progress: progress)
            importRate = try batchedImport(authority: authority, purchases: purchases)
            report.figures.append(LedgerFigure(name: "serve purchases/s, SQLite, \(clients) clients", value: bought.rate,
                                               aim: clients == 64 ? .atLeast(0.5 * importRate) : .none))
            report.figures.append(LedgerFigure(name: "serve purchase p99 ms, \(clients) clients", value: bought.p99, aim: .none))
        }
        report.figures.append(LedgerFigure(name: "import of the same purchases, one process, batches of 100, transactions/s", value: importRate, aim: .none))
        report.notes.append("serve: \(postgres == nil ? "SQLite only (--postgres URL adds PostgreSQL)" : "SQLite and PostgreSQL"); the 10-minute memory run: --duration 600; \(notificationCount) renewals of \(notificationCount / 30) subscriptions (sent renewal day by renewal day) and \(purchaseCount) consumable purchases per client count, each client a kept-alive connection; peak memory \(String(format: "%.0f", ProcessStats.peakMegabytes() ?? 0)) MB")
    }

    /// Where a run's time went, at 64 clients: the writer's share of the wall time and the CPU
    /// per request (writer thread; whole process, clients included).
    static func cost(_ measured: Measured, _ what: String, _ backend: String, _ clients: Int, into report: inout LedgerBenchReport) {
        guard clients == 64 else { return }
        report.figures.append(LedgerFigure(name: "serve \(what) writer busy share of wall, \(backend), 64 clients", value: measured.writerBusyShare, aim: .none))
        report.figures.append(LedgerFigure(name: "serve \(what) writer CPU µs each, \(backend), 64 clients", value: measured.writerCPUMicroseconds, aim: .none))
        report.figures.append(LedgerFigure(name: "serve \(what) process CPU µs each (service + clients), \(backend), 64 clients",
                                           value: measured.processCPUMicroseconds, aim: .none))
    }

    /// Each signed transaction as the body of a purchase request (500 customers).
    static func purchaseBodies(_ purchases: [[UInt8]]) -> [[UInt8]] {
        purchases.enumerated().map { index, jws in
            Array("{\"customer\":\"c\(index % 500)\",\"signedTransactions\":[\"".utf8) + jws + Array("\"]}".utf8)
        }
    }

    struct Measured {
        let rate: Double
        let p50: Double
        let p99: Double
        /// The writer's busy wall time as a share of the run (near 1: the writer limits).
        let writerBusyShare: Double
        /// CPU per request: the writer's thread, and the whole process (service and clients).
        let writerCPUMicroseconds: Double
        let processCPUMicroseconds: Double
    }

    /// Posts `bodies` from `clients` connections to a fresh served ledger (after importing `setup`
    /// directly), every answer checked 200; the rate over the whole and the latency percentiles.
    static func measure(authority: TestCertificateAuthority, clients: Int, setup: [(String, [UInt8])], bodies: [[UInt8]], path: String,
                        postgres: String? = nil, progress: Bool) throws -> Measured {
        let scratch = try BenchScratch(postgresURL: postgres ?? "")
        defer { scratch.remove() }
        let location = try scratch.newDatabase(postgres == nil ? "sqlite" : "postgresql")
        func open() throws -> SQLDatabase {
            postgres == nil ? try SQLiteDatabase(path: location) : try PostgresDatabase(url: location)
        }
        try MigrationRunner.migrate(try open())
        func ledger() throws -> PurchaseLedger {
            PurchaseLedger(database: try open(), configuration: LedgerBenchCases.configuration,
                           verifier: ReceiptVerifier(trust: authority.trustStore(), expectedBundleIds: ["com.example.app"]))
        }
        let writer = try ledger()
        for (customer, receipt) in setup { _ = try writer.importArtefact(receipt, customer: customer, source: "bench", operatorName: "bench") }
        return try BenchServer.serving(writer: writer, reader: try ledger(), scratch: scratch) { server, token in
            LedgerBenchCases.say("serve: \(bodies.count) × \(path) from \(clients) clients", progress)
            let latencies = Latencies()
            let failure = FailureBox()
            let (began, cpuBefore) = (ContinuousClock.now, LedgerImportBench.processCPUSeconds())
            // One thread per client (concurrentPerform would run only as many at once as there are cores).
            let finished = DispatchSemaphore(value: 0)
            for client in 0..<clients {
                Thread {
                    defer { finished.signal() }
                    do {
                        let connection = try BenchHTTPClient(port: server.port)
                        for index in stride(from: client, to: bodies.count, by: clients) {
                            let sent = ContinuousClock.now
                            let status = try connection.post(path, body: bodies[index], headers: "Authorization: Bearer \(token)\r\n")
                            guard status == 200 else { throw BenchmarkError.ledger("serve: \(path) answered \(status)") }
                            latencies.add(LedgerBenchCases.seconds(ContinuousClock.now - sent) * 1000)
                        }
                    } catch {
                        failure.set(error)
                    }
                }.start()
            }
            for _ in 0..<clients { finished.wait() }
            let elapsed = LedgerBenchCases.seconds(ContinuousClock.now - began)
            let processCPU = LedgerImportBench.processCPUSeconds() - cpuBefore
            if let error = failure.error { throw error }
            let writerSeconds = server.metrics.writerSeconds
            let sorted = latencies.all.sorted()
            try LedgerBenchCases.expect(sorted.count == bodies.count, "serve: \(sorted.count) of \(bodies.count) answered")
            let count = Double(bodies.count)
            return Measured(rate: count / elapsed, p50: sorted[sorted.count / 2], p99: sorted[min(sorted.count - 1, sorted.count * 99 / 100)],
                            writerBusyShare: writerSeconds.busy / elapsed, writerCPUMicroseconds: writerSeconds.cpu / count * 1e6,
                            processCPUMicroseconds: processCPU / count * 1e6)
        }
    }

    /// `import` of the purchases from one process in batches of 100 (importStream): transactions/s.
    static func batchedImport(authority: TestCertificateAuthority, purchases: [[UInt8]]) throws -> Double {
        let scratch = try BenchScratch(postgresURL: "")
        defer { scratch.remove() }
        let location = try scratch.newDatabase("sqlite")
        let database = try SQLiteDatabase(path: location)
        try MigrationRunner.migrate(database)
        let ledger = PurchaseLedger(database: database, configuration: LedgerBenchCases.configuration,
                                    verifier: ReceiptVerifier(trust: authority.trustStore(), expectedBundleIds: ["com.example.app"]))
        let began = ContinuousClock.now
        var failed = 0
        try ledger.importStream(count: purchases.count, batchSize: 100, operatorName: "bench", item: { index in
            PurchaseLedger.ImportItem(bytes: purchases[index], customer: "c\(index % 500)", source: "bench")
        }, report: { _, outcome in if case .failure = outcome { failed += 1 } })
        try LedgerBenchCases.expect(failed == 0, "serve: \(failed) imports failed")
        return Double(purchases.count) / LedgerBenchCases.seconds(ContinuousClock.now - began)
    }

    final class Latencies: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Double] = []
        func add(_ value: Double) { lock.withLock { values.append(value) } }
        var all: [Double] { lock.withLock { values } }
    }

    final class FailureBox: @unchecked Sendable {
        private let lock = NSLock()
        private var first: Error?
        func set(_ error: Error) { lock.withLock { if first == nil { first = error } } }
        var error: Error? { lock.withLock { first } }
    }
}
