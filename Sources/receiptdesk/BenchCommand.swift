import Benchmarks
import Foundation
import PurchaseStore

/// `receiptdesk bench [--json] [--seconds S] [--samples DIR] [--only SUBSTRING] [--postgres URL [--receipts N]]
/// [--transactions N | --scale] [--keep DIR]`, `receiptdesk bench --only serve --duration SECONDS`:
/// ops/s of decoding and verifying each format, beside OpenSSL's bare RSA-2048 and P-256 verify
/// through the same library as the floor; then the ledger's fixed-size figures
/// (`LedgerBenchCases`: import transactions/s, peak memory, lookup ms on 1,000,000
/// transactions). With `--postgres URL` (a server where it may create and drop a schema;
/// passwords from PGPASSWORD or ~/.pgpass), also import throughput from 1 and 4 processes and
/// the lookups on PostgreSQL beside SQLite (`PostgresBench`, N receipts, default 2,000); with
/// `--only postgres` nothing else. The two verify rates are measured interleaved with their
/// floors (20 alternating rounds) and carry the median per-round ratio and its spread.
/// `--only serve --duration SECONDS` runs serve under steady load from 64 clients for that long
/// instead of its throughput cases, printing resident memory every 30 s against the aim (< 150 MB, flat).
/// With `--transactions N` (`--scale`: 10,000,000) only the scale benchmark runs, on a realistic
/// database of N transactions kept in `--keep DIR` (default .build/bench-scale).
/// Parsing only: the cases are `Benchmarks.BenchSuite`'s.
enum BenchCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let json = args.flag("--json")
        let secondsText = try args.value("--seconds")
        let samples = try args.value("--samples") ?? "Assets/Samples"
        let only = try args.value("--only")
        let postgres = try args.value("--postgres")
        let durationText = try args.value("--duration")
        let receiptCount = try args.value("--receipts").map { text -> Int in
            guard let value = Int(text), value >= 10, value <= BenchSuite.maxReceipts else {
                throw CommandFailure.usage("--receipts \(text) is not between 10 and \(BenchSuite.maxReceipts)")
            }
            return value
        } ?? 2_000
        let scale = args.flag("--scale")
        let keep = try args.value("--keep")
        var transactions = try args.value("--transactions").map { text -> Int in
            guard let value = Int(text), value >= 1_000, value <= BenchSuite.maxTransactions else {
                throw CommandFailure.usage("--transactions \(text) is not between 1000 and \(BenchSuite.maxTransactions)")
            }
            return value
        }
        if scale {
            guard transactions == nil else { throw CommandFailure.usage("--scale is --transactions \(BenchSuite.scaleTransactions): give one of them") }
            transactions = BenchSuite.scaleTransactions
        }
        _ = try args.finish(maxPositionals: 0)
        if let postgres, !PostgresDatabase.isURL(postgres) {
            throw CommandFailure.usage("--postgres \(postgres) is not a postgres:// or postgresql:// URL")
        }
        let seconds = try secondsText.map { text -> Double in
            guard let value = Double(text), value > 0, value <= 60 else { throw CommandFailure.usage("--seconds \(text) is not between 0 and 60") }
            return value
        } ?? 1.0
        let duration = try durationText.map { text -> Double in
            guard let value = Double(text), value >= 30, value <= 86_400 else {
                throw CommandFailure.usage("--duration \(text) is not a number of seconds between 30 and 86400")
            }
            return value
        }
        let options = BenchSuite.Options(samples: samples, only: only, seconds: seconds, postgres: postgres, receipts: receiptCount,
                                         progress: !json, duration: duration, transactions: transactions, keep: keep)
        if duration != nil, !options.servesOnly || postgres != nil {
            throw CommandFailure.usage("--duration is for the serve memory run on SQLite: `receiptdesk bench --only serve --duration SECONDS` (no --postgres)")
        }
        #if DEBUG
        if !json { printError("note: this is a debug build; `make bench` measures the release build") }
        #endif
        let output = try BenchSuite.run(options)
        if json {
            print(output.json.serialized())
        } else if !output.lines.isEmpty {
            print(output.lines.joined(separator: "\n"))
        }
        // A failed check ends the bench as before, once every figure is printed.
        if let failure = output.failure { throw failure }
        return .ok
    }
}
