import Foundation
import ReceiptCore

/// One figure of the ledger benchmarks, held to the aim of issue 3 where it has one. The unit is
/// part of the name, which is also the JSON `name` (the value goes in `opsPerSec`).
struct LedgerFigure {
    /// What the figure must reach.
    enum Aim { case atLeast(Double), below(Double), atMost(Double), none }

    let name: String
    let value: Double
    let aim: Aim
    /// What the figure is compared with, round by round, and the per-round ratios (case speed ÷
    /// floor speed); nil for a figure without a floor.
    var floorName: String? = nil
    var ratio: RatioSummary? = nil

    /// `name: value (aim …) ✓/✗`, like the ratio lines; then the ratio to the floor, if any.
    var line: String {
        guard let floorName, let ratio else { return valueLine }
        return valueLine + "; ÷ \(floorName) = \(ratio.text)"
    }

    private var valueLine: String {
        let number = "\(name): " + String(format: value >= 1_000 ? "%.0f" : "%.3f", value)
        switch aim {
        case .atLeast(let floor): return number + String(format: " (aim ≥ %g) ", floor) + (value >= floor ? "✓" : "✗")
        case .below(let ceiling): return number + String(format: " (aim < %g) ", ceiling) + (value < ceiling ? "✓" : "✗")
        case .atMost(let ceiling): return number + String(format: " (aim ≤ %g) ", ceiling) + (value <= ceiling ? "✓" : "✗")
        case .none: return number
        }
    }

    /// The `{"name": …, "opsPerSec": …}` entry of `bench --json`, plus `floor`, `ratio` and `spread`
    /// on a figure with a floor.
    var json: JSONValue {
        var members: [(String, JSONValue)] = [("name", .string(name)), ("opsPerSec", .double((value * 1_000).rounded() / 1_000))]
        if let floorName, let ratio {
            members += [("floor", .string(floorName)), ("ratio", .double(RatioSummary.rounded(ratio.median))), ("spread", ratio.spreadJSON)]
        }
        return .object(members)
    }
}

/// What the ledger benchmarks measured: figures, and notes on how (printed in text mode only).
struct LedgerBenchReport {
    var figures: [LedgerFigure] = []
    var notes: [String] = []
    /// Checks that failed (a search that found nothing it should have): the bench goes on, prints
    /// every figure, and then fails with these.
    var failures: [String] = []

    /// Records `problem` as a failure unless `condition` holds.
    mutating func check(_ condition: Bool, _ problem: @autoclosure () -> String) {
        if !condition { failures.append(problem()) }
    }
}
