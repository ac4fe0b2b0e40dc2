import Foundation
import ReceiptCore

/// A case compared with its floor (OpenSSL's bare verify through the same library), and the
/// fraction of the floor's rate the case must reach (nil: a comparison shown without an aim).
struct RatePair: Sendable {
    let caseName: String
    let floorName: String
    let aim: Double?
}

/// One row of the ops/s table: a rate, and for the case of a pair its ratio to the floor.
struct RateResult {
    let name: String
    let opsPerSecond: Double
    /// The pair this row is the case of, with the interleaved rounds' ratios.
    var pair: RatePair?
    var ratio: RatioSummary?

    /// `{"name", "opsPerSec"}`, plus `"floor"`, `"ratio"` (the median) and `"spread"` on a pair's case.
    var json: JSONValue {
        var members: [(String, JSONValue)] = [("name", .string(name)), ("opsPerSec", .double((opsPerSecond * 10).rounded() / 10))]
        if let pair, let ratio {
            members += [("floor", .string(pair.floorName)), ("ratio", .double(RatioSummary.rounded(ratio.median))),
                        ("spread", ratio.spreadJSON)]
        }
        return .object(members)
    }

    /// `case / floor = 52% (median of 20 interleaved rounds; IQR …) (aim ≥ 85%) ✓/✗`.
    var ratioLine: String? {
        guard let pair, let ratio else { return nil }
        let line = "\(pair.caseName) / \(pair.floorName) = \(ratio.text)"
        guard let aim = pair.aim else { return line }
        return line + String(format: " (aim ≥ %.0f%%) ", aim * 100) + (ratio.median >= aim ? "✓" : "✗")
    }
}

/// Measures the rate cases: a case with a floor interleaved with it (`InterleavedPair`, 20 rounds
/// of a tenth of `seconds` a side; its rate is the median round's), every other one alone for
/// `seconds` (`Benchmark`).
enum RateRun {
    static func measure(_ cases: [Benchmark], floors: [Benchmark], seconds: Double, progress: Bool) throws -> [RateResult] {
        try cases.map { bench in
            if progress { FileHandle.standardError.write(Data("  measuring \(bench.name)…\r".utf8)) }
            guard let pair = BenchCases.pairs.first(where: { $0.caseName == bench.name }),
                  let floor = floors.first(where: { $0.name == pair.floorName }) else {
                return RateResult(name: bench.name, opsPerSecond: try bench.run(seconds: seconds))
            }
            let measured = try InterleavedPair(rounds: 20, roundSeconds: seconds / 10).measure(case: bench.body, floor: floor.body)
            return RateResult(name: bench.name, opsPerSecond: measured.caseOpsPerSecond, pair: pair, ratio: measured.ratio)
        }
    }
}
