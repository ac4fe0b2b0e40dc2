import Foundation

/// Measures a case and its floor in short alternating rounds (case, floor, floor, case, case,
/// floor, …: each goes first every other round, so neither always follows the other) and keeps
/// one ratio per round. On a shared machine a ratio of two rates measured one after the other
/// mostly measures what the neighbours did in between; within a round of ~100 ms both sides see
/// the same machine.
public struct InterleavedPair {
    /// How many rounds; each round measures the case and the floor once.
    public let rounds: Int
    /// How long each side of a round runs, in seconds (at least one operation).
    public let roundSeconds: Double
    /// Untimed running of each side before the first round (caches, branch predictors, pages).
    public let warmUpSeconds: Double
    /// Seconds since any fixed origin; a monotonic clock, or a fake one in tests.
    let now: () -> Double

    public init(rounds: Int = 20, roundSeconds: Double = 0.1, warmUpSeconds: Double = 0.15,
                now: @escaping () -> Double = InterleavedPair.monotonicSeconds) {
        self.rounds = max(1, rounds)
        self.roundSeconds = max(0, roundSeconds)
        self.warmUpSeconds = max(0, warmUpSeconds)
        self.now = now
    }

    /// What the rounds measured.
    public struct Measurement: Sendable {
        /// Operations per second of the case and of the floor, round by round.
        public let caseRates: [Double]
        public let floorRates: [Double]
        /// Per-round case ÷ floor; nil when a round measured nothing.
        public let ratio: RatioSummary?

        /// The case's median per-round rate.
        public var caseOpsPerSecond: Double { RatioSummary(ratios: caseRates)?.median ?? 0 }
        /// The floor's median per-round rate.
        public var floorOpsPerSecond: Double { RatioSummary(ratios: floorRates)?.median ?? 0 }
    }

    /// Runs the rounds. Errors from either body stop the measurement and are rethrown.
    public func measure(case body: () throws -> Void, floor: () throws -> Void) throws -> Measurement {
        try run(body, seconds: warmUpSeconds)
        try run(floor, seconds: warmUpSeconds)
        var caseRates: [Double] = []
        var floorRates: [Double] = []
        for round in 0..<rounds {
            if round % 2 == 0 {
                caseRates.append(try run(body, seconds: roundSeconds))
                floorRates.append(try run(floor, seconds: roundSeconds))
            } else {
                floorRates.append(try run(floor, seconds: roundSeconds))
                caseRates.append(try run(body, seconds: roundSeconds))
            }
        }
        let ratios = zip(caseRates, floorRates).map { $1 > 0 ? $0 / $1 : .nan }
        return Measurement(caseRates: caseRates, floorRates: floorRates, ratio: RatioSummary(ratios: ratios))
    }

    /// Runs `body` until `seconds` have passed (at least once), in batches that double while a
    /// batch is short, so that reading the clock costs little beside fast bodies. Operations per second.
    @discardableResult
    func run(_ body: () throws -> Void, seconds: Double) throws -> Double {
        let start = now()
        var operations = 0
        var batch = 1
        var elapsed = 0.0
        repeat {
            for _ in 0..<batch { try body() }
            operations += batch
            elapsed = now() - start
            if elapsed < seconds / 20 { batch *= 2 }
        } while elapsed < seconds
        return elapsed > 0 ? Double(operations) / elapsed : 0
    }

    /// The system's monotonic clock in seconds.
    public static func monotonicSeconds() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}
