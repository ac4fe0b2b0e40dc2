import Foundation

/// Resident memory sampled through a long run, and what it says against the aim "memory flat
/// over a 10-minute run (< 150 MB)": the samples, the peak, and the growth from the first minute
/// to the last (the highest sample of each, so one low reading cannot hide growth). Pure: the
/// samples come in, the figures go out.
struct MemoryTrace {
    /// One reading: seconds since the load began, resident MiB.
    struct Sample: Equatable {
        let second: Double
        let megabytes: Double
    }

    /// The ceiling every reading and the peak must stay under (MiB).
    static let ceiling = 150.0
    /// "Flat": the last minute's highest reading less than this above the first minute's (MiB).
    static let allowedGrowth = 10.0

    /// Resident memory before the load began (the bench process holds the clients too).
    let beforeLoad: Double
    var samples: [Sample] = []
    /// The highest resident memory while loaded (VmHWM), if the system says.
    var peak: Double?

    /// The growth from the first minute to the last, once the run is long enough for the two to
    /// be different minutes (two minutes or more); nil before.
    var growth: Double? {
        guard let last = samples.last?.second, last >= 120 else { return nil }
        let first = samples.filter { $0.second <= 60 }.map(\.megabytes).max()
        let final = samples.filter { $0.second > last - 60 }.map(\.megabytes).max()
        guard let first, let final else { return nil }
        return final - first
    }

    /// The highest of the peak and every sample.
    var highest: Double { max(peak ?? 0, samples.map(\.megabytes).max() ?? 0) }

    /// Whether the run met the aim: under the ceiling throughout, and flat when long enough to say.
    var meetsAim: Bool { highest < Self.ceiling && (growth.map { $0 < Self.allowedGrowth } ?? true) }

    /// The figures `bench` prints: before the load, each sample, the peak, the growth.
    var figures: [LedgerFigure] {
        var figures = [LedgerFigure(name: "serve memory before load MB", value: beforeLoad, aim: .none)]
        figures += samples.map {
            LedgerFigure(name: String(format: "serve memory at %.0f s MB", $0.second), value: $0.megabytes, aim: .below(Self.ceiling))
        }
        figures.append(LedgerFigure(name: "serve memory peak under load MB", value: highest, aim: .below(Self.ceiling)))
        if let growth {
            figures.append(LedgerFigure(name: "serve memory growth, first minute → last, MB", value: growth, aim: .below(Self.allowedGrowth)))
        }
        return figures
    }
}
