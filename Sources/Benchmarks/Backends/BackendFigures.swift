import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// `receiptdesk db bench`'s figures: import throughput from 1 and 4 connections (threads in this
/// process) and the ledger lookups, on PostgreSQL beside SQLite; and the lookups on a copy of
/// the 1,000,000-transaction lookup database.
enum BackendFigures {
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
                LedgerBenchCases.say("backends: \(backend), importing from \(Plural.of(workers, "connection")), batches of \(batch)…", progress)
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
