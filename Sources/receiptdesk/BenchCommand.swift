import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// `receiptdesk bench [--json] [--seconds S] [--samples DIR] [--only SUBSTRING] [--postgres URL [--receipts N]]`:
/// ops/s of decoding and verifying each format, beside OpenSSL's bare RSA-2048 and P-256 verify
/// through the same library as the floor; then the ledger's fixed-size figures
/// (`LedgerBenchCases`: import transactions/s, peak memory, lookup ms on 1,000,000
/// transactions). With `--postgres URL` (a server where it may create and drop a schema;
/// passwords from PGPASSWORD or ~/.pgpass), also import throughput from 1 and 4 processes and
/// the lookups on PostgreSQL beside SQLite (`PostgresBench`, N receipts, default 2,000); with
/// `--only postgres` nothing else.
enum BenchCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let json = args.flag("--json")
        let secondsText = try args.value("--seconds")
        let samples = try args.value("--samples") ?? "Assets/Samples"
        let only = try args.value("--only")
        let postgres = try args.value("--postgres")
        let receiptCount = try args.value("--receipts").map { text -> Int in
            guard let value = Int(text), value >= 10, value <= LedgerImportBench.receiptCount else {
                throw CommandFailure.usage("--receipts \(text) is not between 10 and \(LedgerImportBench.receiptCount)")
            }
            return value
        } ?? 2_000
        _ = try args.finish(maxPositionals: 0)
        if let postgres, !PostgresDatabase.isURL(postgres) {
            throw CommandFailure.usage("--postgres \(postgres) is not a postgres:// or postgresql:// URL")
        }
        let seconds = try secondsText.map { text -> Double in
            guard let value = Double(text), value > 0, value <= 60 else { throw CommandFailure.usage("--seconds \(text) is not between 0 and 60") }
            return value
        } ?? 1.0
        #if DEBUG
        if !json { printError("note: this is a debug build; `make bench` measures the release build") }
        #endif
        let postgresOnly = postgres != nil && only.map { "postgresql".contains($0) || "postgres".contains($0) } == true
        let results = try (postgresOnly ? [] : BenchCases.all(samples: samples, only: only)).map { bench -> (String, Double) in
            if !json { FileHandle.standardError.write(Data("  measuring \(bench.name)…\r".utf8)) }
            return (bench.name, try bench.run(seconds: seconds))
        }
        var ledger = postgresOnly ? LedgerBenchReport() : try LedgerBenchCases.run(only: only, progress: !json)
        if let postgres {
            let searchOnly = only.map { "search".contains($0) || $0.hasPrefix("search") } == true
            if !searchOnly {
                let backends = try PostgresBench.run(url: postgres, receipts: receiptCount, runs: 500, progress: !json)
                ledger.figures += backends.figures
                ledger.notes += backends.notes
            }
            if only == nil || searchOnly || postgresOnly { try SearchBench.runPostgres(url: postgres, into: &ledger, progress: !json) }
        }
        if json {
            print(JSONValue.array(results.map { .object([("name", .string($0.0)), ("opsPerSec", .double(($0.1 * 10).rounded() / 10))]) }
                + ledger.figures.map(\.json)).serialized())
        } else {
            let width = results.map(\.0.count).max() ?? 0
            for (name, rate) in results {
                print(name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + String(format: "%12.0f ops/s", rate))
            }
            let lines = BenchCases.ratios(results) + ledger.figures.map(\.line) + ledger.notes.map { "note: " + $0 }
            if !lines.isEmpty { print(lines.joined(separator: "\n")) }
        }
        return .ok
    }
}
