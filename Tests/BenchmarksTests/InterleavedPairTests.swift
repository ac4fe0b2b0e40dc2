import Testing
@testable import Benchmarks

/// `InterleavedPair` on a fake clock: each body advances the clock by what it "costs", so the
/// rates and ratios are exact and nothing depends on the machine.
@Suite("Bench interleaved pairs")
struct InterleavedPairTests {
    /// A clock that moves only when the bodies say so, and a log of which body ran.
    final class FakeMachine {
        var time = 0.0
        /// How much slower the machine is at a given moment (a noisy neighbour), 1 = normal.
        var slowdown: (Double) -> Double = { _ in 1 }
        var log: [Character] = []

        func body(_ name: Character, cost: Double) -> () -> Void {
            { [self] in
                if log.last != name { log.append(name) }
                time += cost * slowdown(time)
            }
        }
    }

    @Test func eachRoundMeasuresBothSidesAndTheOrderAlternates() throws {
        let machine = FakeMachine()
        let pair = InterleavedPair(rounds: 4, roundSeconds: 0.1, warmUpSeconds: 0.05, now: { machine.time })
        let measured = try pair.measure(case: machine.body("c", cost: 0.002), floor: machine.body("f", cost: 0.001))
        // Warm-up c, f; then rounds c f | f c | c f | f c (repeated names collapse in the log).
        #expect(String(machine.log) == "cfcfcfc")
        #expect(measured.caseRates.count == 4 && measured.floorRates.count == 4)
        let ratio = try #require(measured.ratio)
        #expect(abs(ratio.median - 0.5) < 1e-9)
        #expect(abs(measured.caseOpsPerSecond - 500) < 1e-6)
        #expect(abs(measured.floorOpsPerSecond - 1_000) < 1e-6)
    }

    @Test func aSlowSpellThatHitsBothSidesLeavesTheRatioAlone() throws {
        let machine = FakeMachine()
        // From 1 s to 2 s on the fake clock the machine runs three times slower.
        machine.slowdown = { $0 >= 1 && $0 < 2 ? 3 : 1 }
        let pair = InterleavedPair(rounds: 20, roundSeconds: 0.1, warmUpSeconds: 0, now: { machine.time })
        let measured = try pair.measure(case: machine.body("c", cost: 0.004), floor: machine.body("f", cost: 0.001))
        // The rates saw the slow spell…
        #expect((measured.caseRates.min() ?? 0) < 100)
        #expect((measured.caseRates.max() ?? 0) > 240)
        // …the median ratio did not, and the rounds straddling its edges show as spread, not as the figure.
        let ratio = try #require(measured.ratio)
        #expect(abs(ratio.median - 0.25) < 1e-9)
        #expect(ratio.maximum > ratio.minimum)
    }

    @Test func aBodyThatFailsStopsTheMeasurement() {
        struct Broken: Error {}
        let machine = FakeMachine()
        let pair = InterleavedPair(rounds: 3, roundSeconds: 0.1, warmUpSeconds: 0, now: { machine.time })
        #expect(throws: Broken.self) {
            try pair.measure(case: machine.body("c", cost: 0.01), floor: { throw Broken() })
        }
    }

    @Test func everySideRunsAtLeastOnceEvenWithZeroRoundTime() throws {
        let machine = FakeMachine()
        let pair = InterleavedPair(rounds: 2, roundSeconds: 0, warmUpSeconds: 0, now: { machine.time })
        let measured = try pair.measure(case: machine.body("c", cost: 0.5), floor: machine.body("f", cost: 0.25))
        #expect(measured.caseRates == [2, 2])
        #expect(measured.floorRates == [4, 4])
    }
}
