import Foundation
import HTTPService
import LiveService
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// `receiptdesk bench --only serve --duration SECONDS`: the aim "memory flat over a 10-minute run
/// (< 150 MB)". serve runs in this process on a fresh SQLite ledger (as the throughput cases do)
/// while 64 clients, each a kept-alive connection, post without pause, in turn, a consumable
/// purchase and a DID_RENEW of one of 1,000 subscriptions, each artefact new (a transaction id
/// and a notificationUUID never sent before, signed by the client as it goes), for SECONDS.
/// Resident memory (VmRSS) is read before the load and every 30 s; the process holds server and
/// clients alike, so the reading before the load is printed too.
enum ServeMemoryRun {
    static let clients = 64
    static let subscribers = 1_000
    static let customers = 5_000
    static let sampleEvery: Double = 30

    static func run(seconds: Double, into report: inout LedgerBenchReport, progress: Bool) throws {
        let authority = try TestCertificateAuthority.shared()
        let scratch = try BenchScratch(postgresURL: "")
        defer { scratch.remove() }
        let location = try scratch.newDatabase("sqlite")
        try MigrationRunner.migrate(try SQLiteDatabase(path: location))
        func ledger() throws -> PurchaseLedger {
            PurchaseLedger(database: try SQLiteDatabase(path: location), configuration: LedgerBenchCases.configuration,
                           verifier: ReceiptVerifier(trust: authority.trustStore(), expectedBundleIds: ["com.example.app"]))
        }
        let writer = try ledger()
        let load = Load(builder: JWSBuilder(authority: authority))
        LedgerBenchCases.say("serve memory: importing \(subscribers) subscriptions", progress)
        var failed = 0
        try writer.importStream(count: subscribers, batchSize: 100, operatorName: "bench", item: { index in
            PurchaseLedger.ImportItem(bytes: try load.subscription(index), customer: "s\(index)", source: "bench")
        }, report: { _, outcome in if case .failure = outcome { failed += 1 } })
        try LedgerBenchCases.expect(failed == 0, "serve memory: \(failed) subscriptions failed to import")

        try BenchServer.serving(writer: writer, reader: try ledger(), scratch: scratch) { server, token in
            _ = ProcessStats.resetPeakMemory()  // the setup's garbage handed back; the peak from here on
            var trace = MemoryTrace(beforeLoad: ProcessStats.residentMegabytes() ?? 0)
            LedgerBenchCases.say(String(format: "serve memory: %.1f MB before the load; %d clients for %.0f s", trace.beforeLoad, clients, seconds), progress)
            let began = ContinuousClock.now
            let deadline = began + .milliseconds(Int64(seconds * 1000))
            let finished = DispatchSemaphore(value: 0)
            for client in 0..<clients {
                Thread {
                    defer { finished.signal() }
                    load.drive(client: client, port: server.port, token: token, until: deadline)
                }.start()
            }
            // A reading every 30 s of the load, and one at its end if that falls between two.
            var next = sampleEvery
            while true {
                let elapsed = LedgerBenchCases.seconds(ContinuousClock.now - began)
                let due = min(next, seconds)
                if elapsed < due {
                    usleep(useconds_t(min(1.0, due - elapsed) * 1_000_000))
                    if load.failure != nil { break }
                    continue
                }
                let sample = MemoryTrace.Sample(second: due, megabytes: ProcessStats.residentMegabytes() ?? 0)
                trace.samples.append(sample)
                LedgerBenchCases.say(String(format: "serve memory: %.0f s: %.1f MB, %d requests answered", sample.second, sample.megabytes,
                                            load.answered), progress)
                if due >= seconds { break }
                next += sampleEvery
            }
            for _ in 0..<clients { finished.wait() }
            if let failure = load.failure { throw failure }
            trace.peak = ProcessStats.peakMegabytes()
            let elapsed = LedgerBenchCases.seconds(ContinuousClock.now - began)
            report.figures += trace.figures
            report.figures.append(LedgerFigure(name: "serve requests/s under the memory run's load", value: Double(load.answered) / elapsed, aim: .none))
            let verdict = trace.meetsAim ? "✓" : "✗"
            report.notes.append("serve memory: \(clients) clients, a purchase then a renewal each in turn, every artefact new, "
                                + String(format: "%.0f s on SQLite, %d requests answered, RSS every %.0f s; ", elapsed, load.answered, sampleEvery)
                                + String(format: "aim: every reading and the peak < %.0f MB, the last minute's highest less than %.0f MB ", MemoryTrace.ceiling, MemoryTrace.allowedGrowth)
                                + "above the first minute's (flat; said from a run of 120 s or more) \(verdict)")
        }
    }

    /// The clients' work: artefacts signed as they go, each answer checked 200, the first
    /// failure kept (and every client stops at it).
    final class Load: @unchecked Sendable {  // every mutable field is behind the lock
        let builder: JWSBuilder
        private let lock = NSLock()
        private var count = 0
        private var firstFailure: Error?
        private let start = Date(timeIntervalSince1970: 1_700_000_000)

        init(builder: JWSBuilder) { self.builder = builder }

        var answered: Int { lock.withLock { count } }
        var failure: Error? { lock.withLock { firstFailure } }

        /// Subscription `index`'s first purchase (its original transaction).
        func subscription(_ index: Int) throws -> [UInt8] {
            let payload = TransactionPayload(transactionId: String(5_000_000_000_000_000 + index), bundleId: "com.example.app",
                                             productId: "com.example.pro.monthly", type: "Auto-Renewable Subscription", purchaseDate: start,
                                             expiresDate: start.addingTimeInterval(LedgerBenchCases.month), signedDate: start, environment: "Production")
            return Array(try builder.signedTransaction(payload).utf8)
        }

        /// Posts in turn until `deadline` or the first failure anywhere.
        func drive(client: Int, port: Int, token: String, until deadline: ContinuousClock.Instant) {
            do {
                let connection = try BenchHTTPClient(port: port)
                var turn = 0
                while ContinuousClock.now < deadline && failure == nil {
                    let serial = client * 100_000_000 + turn
                    let (path, body) = turn % 2 == 0 ? ("/v1/purchases", try purchase(serial)) : ("/v1/apple/notifications", try renewal(serial))
                    let status = try connection.post(path, body: body, headers: "Authorization: Bearer \(token)\r\n")
                    guard status == 200 else { throw BenchmarkError.ledger("serve memory: \(path) answered \(status)") }
                    lock.withLock { count += 1 }
                    turn += 1
                }
            } catch {
                lock.withLock { if firstFailure == nil { firstFailure = error } }
            }
        }

        /// A pack of coins never bought before, for one of the customers.
        private func purchase(_ serial: Int) throws -> [UInt8] {
            let payload = TransactionPayload(transactionId: String(3_000_000_000_000_000 + serial), bundleId: "com.example.app",
                                             productId: "com.example.coins.100", type: "Consumable", purchaseDate: start,
                                             signedDate: start, environment: "Production")
            let jws = try builder.signedTransaction(payload)
            return Array("{\"customer\":\"c\(serial % ServeMemoryRun.customers)\",\"signedTransactions\":[\"\(jws)\"]}".utf8)
        }

        /// Apple's DID_RENEW of one of the subscriptions: a new period, a new notificationUUID.
        private func renewal(_ serial: Int) throws -> [UInt8] {
            let original = String(5_000_000_000_000_000 + serial % ServeMemoryRun.subscribers)
            // Periods an hour apart within the first year: every date stays inside the test authority's validity.
            let bought = start.addingTimeInterval(Double(serial % 8_000) * 3_600)
            let transaction = TransactionPayload(transactionId: String(4_000_000_000_000_000 + serial), originalTransactionId: original,
                                                 bundleId: "com.example.app", productId: "com.example.pro.monthly",
                                                 type: "Auto-Renewable Subscription", purchaseDate: bought, originalPurchaseDate: start,
                                                 expiresDate: bought.addingTimeInterval(LedgerBenchCases.month), signedDate: bought,
                                                 environment: "Production")
            let notification = NotificationPayload(notificationType: "DID_RENEW", notificationUUID: UUID().uuidString.lowercased(), signedDate: bought,
                                                   data: NotificationData(bundleId: "com.example.app", environment: "Production",
                                                                          signedTransactionInfo: .payload(transaction), status: 1))
            return Array(try builder.notificationBody(notification).utf8)
        }
    }
}
