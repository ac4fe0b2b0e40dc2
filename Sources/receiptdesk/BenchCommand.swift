import Foundation
import ReceiptCore
import StoreSimulator

/// `receiptdesk bench [--json] [--seconds S] [--samples DIR] [--only SUBSTRING]`: ops/s of decoding
/// and verifying each format, beside OpenSSL's bare RSA-2048 and P-256 verify through the same
/// library as the floor; then the ledger's fixed-size figures (`LedgerBenchCases`: import
/// transactions/s, peak memory, lookup ms on 1,000,000 transactions).
enum BenchCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let json = args.flag("--json")
        let secondsText = try args.value("--seconds")
        let samples = try args.value("--samples") ?? "Assets/Samples"
        let only = try args.value("--only")
        _ = try args.finish(maxPositionals: 0)
        let seconds = try secondsText.map { text -> Double in
            guard let value = Double(text), value > 0, value <= 60 else { throw CommandFailure.usage("--seconds \(text) is not between 0 and 60") }
            return value
        } ?? 1.0
        #if DEBUG
        if !json { printError("note: this is a debug build; `make bench` measures the release build") }
        #endif
        let results = try BenchCases.all(samples: samples, only: only).map { bench -> (String, Double) in
            if !json { FileHandle.standardError.write(Data("  measuring \(bench.name)…\r".utf8)) }
            return (bench.name, try bench.run(seconds: seconds))
        }
        let ledger = try LedgerBenchCases.run(only: only, progress: !json)
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
