import Foundation
import PurchaseStore
import ReceiptCore

/// What `receiptdesk bench` and `receiptdesk db bench` print: the JSON array of `--json`, or
/// the text lines.
public struct BenchOutput {
    public let json: JSONValue
    public let lines: [String]
    /// Checks that failed while measuring (every figure is in `lines` all the same).
    public var failures: [String] = []

    /// The error to end with after printing, when a check failed.
    public var failure: Error? { failures.isEmpty ? nil : BenchmarkError.ledger(failures.joined(separator: "; ")) }
}

/// The entry points of the command line's measuring commands: `bench`, `db bench` and the
/// `db bench-worker` processes the PostgreSQL bench starts. The command line parses the
/// arguments and prints; everything measured is here.
public enum BenchSuite {
    /// The most receipts `--receipts` may ask for (the import benchmark's).
    public static let maxReceipts = LedgerImportBench.receiptCount
    /// The most transactions `--transactions` may ask for, and what `--scale` asks for.
    public static let maxTransactions = ScaleBench.maxTransactions
    public static let scaleTransactions = ScaleBench.fullScale

    /// `receiptdesk bench`'s settings, parsed and checked by the command line.
    public struct Options {
        /// Where Apple's sample artefacts are (`Assets/Samples`).
        public var samples: String
        /// A substring of the names of the cases to run; all when nil.
        public var only: String?
        /// How long each rate case runs (a compared pair: 20 rounds of a tenth of it a side).
        public var seconds: Double
        /// A PostgreSQL URL for the backend figures, or nil.
        public var postgres: String?
        /// Receipts for the backend figures.
        public var receipts: Int
        /// Progress lines on standard error.
        public var progress: Bool
        /// With `--only serve`: instead of the throughput cases, the memory run under steady load
        /// for this many seconds (`ServeMemoryRun`).
        public var duration: Double?
        /// The scale benchmark's size (`--transactions N`, `--scale`): when set, only it runs.
        public var transactions: Int?
        /// Where the scale benchmark keeps its databases (`--keep DIR`).
        public var keep: String

        public init(samples: String, only: String?, seconds: Double, postgres: String?, receipts: Int, progress: Bool,
                    duration: Double? = nil, transactions: Int? = nil, keep: String? = nil) {
            self.samples = samples
            self.only = only
            self.seconds = seconds
            self.postgres = postgres
            self.receipts = receipts
            self.progress = progress
            self.duration = duration
            self.transactions = transactions
            self.keep = keep ?? ScaleBench.defaultFolder
        }

        /// Whether `only` picks the serve cases (`--only serve`).
        public var servesOnly: Bool { only.map { "serve".hasPrefix($0) || $0.hasPrefix("serve") } == true }
    }

    /// Runs the cases `options` select: the rate cases (compared pairs interleaved with their
    /// floors), then the ledger's, the console's and the search's figures, and with a PostgreSQL
    /// URL the backends'.
    public static func run(_ options: Options) throws -> BenchOutput {
        let only = options.only
        if let transactions = options.transactions ?? (only.map { "scale".contains($0) || $0.hasPrefix("scale") } == true ? ScaleBench.defaultTransactions : nil) {
            var report = LedgerBenchReport()
            let parts = try ScaleBench.Part.selected(by: options.transactions == nil ? nil : only)
            try ScaleBench.run(transactions: transactions, folder: options.keep, postgres: options.postgres, parts: parts, into: &report,
                               progress: options.progress)
            return BenchOutput(json: .array(report.figures.map(\.json)), lines: report.figures.map(\.line) + report.notes.map { "note: " + $0 },
                               failures: report.failures)
        }
        let postgresOnly = options.postgres != nil && only.map { "postgresql".contains($0) || "postgres".contains($0) } == true
        var results: [RateResult] = []
        if !postgresOnly {
            let (selected, floors) = try BenchCases.all(samples: options.samples, only: only)
            results = try RateRun.measure(selected, floors: floors, seconds: options.seconds, progress: options.progress)
        }
        let serveOnly = options.servesOnly
        var ledger = postgresOnly ? LedgerBenchReport() : serveOnly ? LedgerBenchReport() : try LedgerBenchCases.run(only: only, progress: options.progress)
        if serveOnly, let duration = options.duration {
            try ServeMemoryRun.run(seconds: duration, into: &ledger, progress: options.progress)
        } else if serveOnly {
            try ServeBench.run(into: &ledger, progress: options.progress, postgres: options.postgres)
        }
        if let postgres = options.postgres, !serveOnly {
            let searchOnly = only.map { "search".contains($0) || $0.hasPrefix("search") } == true
            if !searchOnly {
                let backends = try PostgresBench.run(url: postgres, receipts: options.receipts, runs: 500, progress: options.progress)
                ledger.figures += backends.figures
                ledger.notes += backends.notes
            }
            if only == nil || searchOnly || postgresOnly { try SearchBench.runPostgres(url: postgres, into: &ledger, progress: options.progress) }
        }
        // The searches, console and lookups on realistic data (issue 30), at the default size.
        if only == nil {
            try ScaleBench.run(transactions: ScaleBench.defaultTransactions, folder: options.keep, postgres: options.postgres, into: &ledger, progress: options.progress)
        }
        let width = results.map(\.name.count).max() ?? 0
        let rows = results.map { $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + String(format: "%12.0f ops/s", $0.opsPerSecond) }
        let lines = rows + results.compactMap(\.ratioLine) + BenchCases.decodeAim(results) + ledger.figures.map(\.line)
            + ledger.notes.map { "note: " + $0 }
        return BenchOutput(json: .array(results.map(\.json) + ledger.figures.map(\.json)), lines: lines, failures: ledger.failures)
    }

    /// `receiptdesk db bench`: import from 1 and 4 connections and the lookups on SQLite and on
    /// PostgreSQL at `postgresURL` (`receipts` receipts, `runs` lookups each), plus the lookups on
    /// each database of `lookupsOn` (copies of the 1,000,000-transaction lookup database).
    public static func backends(postgresURL: String, receipts: Int, runs: Int, lookupsOn: [String], progress: Bool) throws -> BenchOutput {
        var report = try BackendFigures.backendFigures(postgresURL: postgresURL, receipts: receipts, runs: runs, progress: progress)
        for location in lookupsOn { try BackendFigures.millionLookups(location, runs: runs, into: &report) }
        return BenchOutput(json: .array(report.figures.map(\.json)), lines: report.figures.map(\.line) + report.notes.map { "note: " + $0 })
    }

    /// The body of `receiptdesk db bench-worker` (one of the processes `bench --postgres` starts):
    /// builds its share of the receipts, says `ready`, waits for `go`, imports (one operation each
    /// with `batch` 1, else through `importStream` in batches of `batch`), says `done N`. Its
    /// receipts are those numbered `from` to `from + receipts - 1` that fall to `worker`.
    public static func importWorker(location: String, receipts: Int, worker: Int, workers: Int, batch: Int = 1, from: Int = 0) throws {
        try PostgresBench.worker(location: location, total: receipts, index: worker, count: workers, batch: batch, from: from)
    }
}
