import Foundation
import PurchaseStore
import AppStoreAPI
import ReceiptCore
import StoreSimulator

/// Issue 4's benchmark: re-verifying 1,000 receipts against the simulator with 20 ms of injected
/// latency, at concurrency 8 against 1 (aim ≥ 6× faster), checking that neither run writes
/// anything twice.
enum ReverifyBench {
    static let names = ["reverify 1,000 receipts"]
    static let receipts = 1_000

    static func run(into report: inout LedgerBenchReport, progress: Bool) throws {
        LedgerBenchCases.say("reverify: minting and importing \(receipts) receipts…", progress)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-reverify-bench-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort: it is a temporary folder
        let authority = try TestCertificateAuthority.shared()
        let state = SimulatorState(authority: authority, bundleId: "com.example.app")
        let database = try PurchaseDatabase.open(folder.appendingPathComponent("purchases.sqlite").path)
        let ledger = PurchaseLedger(database: database, configuration: LedgerBenchCases.configuration,
                                    verifier: ReceiptVerifier(trust: authority.trustStore(), expectedBundleIds: ["com.example.app"]),
                                    clock: { LedgerBenchCases.now })
        var ids: [Int64] = []
        for index in 0..<receipts {
            let bought = LedgerBenchCases.now.addingTimeInterval(-Double(40 + index % 200) * 86_400)
            let minted = try state.mintUnifiedReceipt(environment: .production, purchases: [
                SimulatedPurchase(productId: "com.example.pro.monthly", type: .autoRenewable, purchaseDate: bought,
                                  expiresDate: bought.addingTimeInterval(LedgerBenchCases.month)),
            ], account: "rv-\(index)", originalAppVersion: "50")
            if let original = minted.transactions.first?.transactionId {
                _ = try state.renew(originalTransactionId: original, purchaseDate: bought.addingTimeInterval(LedgerBenchCases.month),
                                    expiresDate: bought.addingTimeInterval(2 * LedgerBenchCases.month))
            }
            let result = try ledger.importArtefact(Array(minted.base64.utf8), customer: "rv-\(index)", source: "bench", operatorName: "bench")
            if let id = result.receiptId { ids.append(id) }
        }
        let simulator = try AppStoreSimulator(state: state)
        try simulator.start()
        defer { simulator.stop() }
        simulator.faults.latency = 0.02
        let client = try VerifyReceiptClient(endpoints: .rooted(at: simulator.baseURL), transport: URLSessionTransport(), sharedSecret: nil,
                                             retry: RetryPolicy(maxAttempts: 2), timeout: .clamped(seconds: 10))
        let reverifier = Reverifier(lock: LedgerLock(ledger), service: AppleService(api: .verifyReceipt, verifyReceipt: client, serverAPI: nil,
                                                                                     label: "simulator"), operatorName: "bench")
        var seconds: [Int: Double] = [:]
        let batch = ids
        for concurrency in [1, 8] {
            LedgerBenchCases.say("reverify: \(receipts) receipts at concurrency \(concurrency), 20 ms latency…", progress)
            simulator.faults.resetCounters()
            let clock = ContinuousClock()
            let start = clock.now
            let reports = blockingAwait { await reverifier.reverify(batch, concurrency: concurrency) }
            seconds[concurrency] = LedgerBenchCases.seconds(clock.now - start)
            try LedgerBenchCases.expect(reports.count == batch.count && reports.allSatisfy { $0.outcome == .verified },
                                        "not every receipt re-verified at concurrency \(concurrency)")
            try LedgerBenchCases.expect(simulator.faults.maxInFlight <= concurrency,
                                        "\(simulator.faults.maxInFlight) requests in flight at concurrency \(concurrency)")
        }
        let transactions = try database.queryFirst("SELECT count(*) AS n FROM transactions", [])?.int("n") ?? 0
        try LedgerBenchCases.expect(transactions == Int64(2 * receipts),
                                    "\(transactions) transactions after two runs; expected \(2 * receipts) (originals + renewals, none twice)")
        let serial = seconds[1] ?? 0, parallel = seconds[8] ?? 1
        report.figures.append(LedgerFigure(name: "reverify 1,000 receipts, 20 ms latency, concurrency 1, s", value: serial, aim: .none))
        report.figures.append(LedgerFigure(name: "reverify 1,000 receipts, 20 ms latency, concurrency 8, s", value: parallel, aim: .none))
        report.figures.append(LedgerFigure(name: "reverify 1,000 receipts, speed-up of concurrency 8 over 1, ×",
                                           value: parallel > 0 ? serial / parallel : 0, aim: .atLeast(6)))
        report.notes.append("reverify: no duplicate writes (\(transactions) transactions after both runs)")
    }
}
