import Foundation
import ReceiptCore

/// The per-round ratios of a case to its floor, summarised: the median (the figure) and how far
/// the rounds spread around it (quartiles and extremes). One ratio a round, each from a case
/// and a floor measured back to back, so a slow spell of the machine slows both sides of a round
/// alike and cancels out of its ratio; what the spread still shows is noise the pairing did not
/// cancel. A ratio is always case speed ÷ floor speed (so 0.5 means "half the floor's rate").
public struct RatioSummary: Equatable, Sendable {
    public let median: Double
    /// The first and third quartiles (linear interpolation between the closest ranks).
    public let lowerQuartile: Double
    public let upperQuartile: Double
    public let minimum: Double
    public let maximum: Double
    /// How many rounds the ratios came from.
    public let rounds: Int

    /// The summary of `ratios`; nil when there are none, or one is not a finite positive number
    /// (a round that measured nothing has no ratio, and hiding it would flatter the spread).
    public init?(ratios: [Double]) {
        guard !ratios.isEmpty, ratios.allSatisfy({ $0.isFinite && $0 > 0 }) else { return nil }
        let sorted = ratios.sorted()
        median = Self.quantile(sorted, 0.5)
        lowerQuartile = Self.quantile(sorted, 0.25)
        upperQuartile = Self.quantile(sorted, 0.75)
        minimum = sorted[0]
        maximum = sorted[sorted.count - 1]
        rounds = sorted.count
    }

    /// The ratios of paired times: the floor's seconds ÷ the case's seconds, round by round
    /// (the same work each round, so the ratio of times is the ratio of speeds).
    public init?(caseSeconds: [Double], floorSeconds: [Double]) {
        guard caseSeconds.count == floorSeconds.count else { return nil }
        self.init(ratios: zip(caseSeconds, floorSeconds).map { $1 / $0 })
    }

    /// The upper quartile less the lower.
    public var interquartileRange: Double { upperQuartile - lowerQuartile }

    /// The `q`-quantile (0…1) of sorted values, interpolating linearly between ranks.
    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        let position = q * Double(sorted.count - 1)
        let below = Int(position.rounded(.down))
        let above = min(sorted.count - 1, below + 1)
        return sorted[below] + (sorted[above] - sorted[below]) * (position - Double(below))
    }

    /// The `spread` object of `bench --json`: quartiles, extremes and the number of rounds.
    public var spreadJSON: JSONValue {
        .object([("q1", .double(Self.rounded(lowerQuartile))), ("q3", .double(Self.rounded(upperQuartile))),
                 ("min", .double(Self.rounded(minimum))), ("max", .double(Self.rounded(maximum))), ("rounds", .int(Int64(rounds)))])
    }

    /// Four significant digits: more than any round can tell apart.
    static func rounded(_ value: Double) -> Double {
        guard value != 0, value.isFinite else { return value }
        let scale = pow(10, 3 - floor(log10(abs(value))))
        return (value * scale).rounded() / scale
    }

    /// "52% (median of 20 interleaved rounds; IQR 49–55%, range 45–58%)"; under 10%, two
    /// significant digits ("2.3%", "0.41%").
    public var text: String {
        func bare(_ value: Double) -> String { String(format: value * 100 >= 10 ? "%.0f" : "%.2g", value * 100) }
        func show(_ value: Double) -> String { bare(value) + "%" }
        return "\(show(median)) (median of \(rounds) interleaved rounds; IQR \(bare(lowerQuartile))–\(show(upperQuartile)), "
            + "range \(bare(minimum))–\(show(maximum)))"
    }
}
