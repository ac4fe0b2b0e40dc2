import Foundation
import PurchaseStore
import ReceiptCore

/// Measurements for `receiptdesk bench` that compare the backends: import throughput from one and
/// from several connections at once (each worker its own connection, as separate processes would
/// be), and the latency of the ledger's lookups. Backend-neutral: give it a way to open the
/// database under test.
public enum BackendBenchmark {
    /// What an import run measured.
    public struct ImportFigure: Sendable {
        public let workers: Int
        public let receipts: Int
        public let transactions: Int64
        public let seconds: Double
        public var transactionsPerSecond: Double { seconds > 0 ? Double(transactions) / seconds : 0 }
        public var receiptsPerSecond: Double { seconds > 0 ? Double(receipts) / seconds : 0 }
    }

    /// One lookup's latency over many runs.
    public struct LookupFigure: Sendable {
        public let name: String
        public let medianMilliseconds: Double
        public let p99Milliseconds: Double
    }

    /// Imports `receipts[i]` for `customer(i)`, spread over `workers` threads with a connection
    /// each (opened by `open`, already migrated), all starting together: one `importArtefact` each,
    /// or `importBatch` of `batch` receipts (one transaction, a savepoint each) when `batch` > 1.
    /// Fails when any import fails: a rate over failed work is no figure.
    public static func importThroughput(workers: Int, batch: Int = 1, receipts: [[UInt8]], customer: @escaping @Sendable (Int) -> String,
                                        open: @escaping @Sendable () throws -> SQLDatabase,
                                        configuration: StoreConfiguration, trust: TrustStore, now: Date) throws -> ImportFigure {
        let workers = max(1, workers)
        let ledgers = try (0..<workers).map { _ in
            PurchaseLedger(database: try open(), configuration: configuration,
                           verifier: ReceiptVerifier(trust: trust, configuration: configuration), clock: { now })
        }
        // Warm each verifier's chain cache: the first chain check is not what is measured.
        if let first = receipts.first {
            for ledger in ledgers { _ = ledger.verifier.verify(try ReceiptDecoder.decode(first)) }
        }
        let box = LedgerBox(ledgers)
        let results = ResultBox(workers)
        let group = DispatchGroup()
        let start = Date()
        for worker in 0..<workers {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                var recorded: Int64 = 0
                do {
                    let ledger = box.ledgers[worker]
                    let mine = Array(stride(from: worker, to: receipts.count, by: workers))
                    for start in stride(from: 0, to: mine.count, by: max(1, batch)) {
                        let indices = mine[start..<min(mine.count, start + max(1, batch))]
                        if batch <= 1, let index = indices.first {
                            let result = try ledger.importArtefact(receipts[index], customer: customer(index), source: "bench", operatorName: "bench-\(worker)")
                            recorded += Int64(result.transactions.count)
                            continue
                        }
                        let items = indices.map { PurchaseLedger.ImportItem(bytes: receipts[$0], customer: customer($0), source: "bench") }
                        for outcome in try ledger.importBatch(items, operatorName: "bench-\(worker)") {
                            recorded += Int64(try outcome.get().transactions.count)
                        }
                    }
                    results.set(worker, .success(recorded))
                } catch {
                    results.set(worker, .failure(error))
                }
            }
        }
        group.wait()
        let seconds = Date().timeIntervalSince(start)
        var transactions: Int64 = 0
        for outcome in results.values { transactions += try outcome.get() }
        return ImportFigure(workers: workers, receipts: receipts.count, transactions: transactions, seconds: seconds)
    }

    /// Times the lookups the console makes (a customer's summary, a transaction, an order, a
    /// renewal chain), `runs` times each after `warmUp` untimed ones, cycling through the keys given.
    public static func lookups(_ ledger: PurchaseLedger, customers: [String], transactions: [String], orders: [String],
                               originals: [String], runs: Int, warmUp: Int = 50) throws -> [LookupFigure] {
        let cases: [(String, [String], (String) throws -> Void)] = [
            ("customerSummary", customers, { _ = try ledger.customerSummary($0) }),
            ("transaction by id", transactions, { _ = try ledger.transaction($0) }),
            ("order by id", orders, { _ = try ledger.order($0) }),
            ("transactions by original transaction id", originals, {
                _ = try ledger.database.query("SELECT * FROM transactions WHERE original_transaction_id = ?", [.text($0)])
            }),
        ]
        return try cases.compactMap { name, keys, body in
            guard !keys.isEmpty else { return nil }
            var timings: [Double] = []
            timings.reserveCapacity(runs)
            for run in 0..<(warmUp + max(1, runs)) {
                let started = DispatchTime.now().uptimeNanoseconds
                try body(keys[run % keys.count])
                if run >= warmUp { timings.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000) }
            }
            timings.sort()
            return LookupFigure(name: name, medianMilliseconds: timings[timings.count / 2],
                                p99Milliseconds: timings[min(timings.count - 1, timings.count * 99 / 100)])
        }
    }
}

/// The ledgers of the workers, each used by one thread only.
private final class LedgerBox: @unchecked Sendable {
    let ledgers: [PurchaseLedger]
    init(_ ledgers: [PurchaseLedger]) { self.ledgers = ledgers }
}

/// Each worker's outcome, written by that worker's thread only and read after all joined.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [Result<Int64, Error>]
    init(_ count: Int) { outcomes = Array(repeating: .success(0), count: count) }
    func set(_ index: Int, _ outcome: Result<Int64, Error>) { lock.lock(); outcomes[index] = outcome; lock.unlock() }
    var values: [Result<Int64, Error>] { lock.lock(); defer { lock.unlock() }; return outcomes }
}
