import Testing
@testable import Benchmarks

/// The summary of per-round ratios: fixed numbers in, fixed numbers out (no clock involved).
@Suite("Bench ratio statistics")
struct RatioStatisticsTests {
    @Test func oddRoundsHaveTheMiddleRatioAsMedian() throws {
        let summary = try #require(RatioSummary(ratios: [0.9, 0.5, 0.6, 0.4, 0.55]))
        #expect(summary.median == 0.55)
        #expect(summary.minimum == 0.4)
        #expect(summary.maximum == 0.9)
        #expect(summary.lowerQuartile == 0.5)
        #expect(summary.upperQuartile == 0.6)
        #expect(summary.rounds == 5)
    }

    @Test func evenRoundsInterpolateBetweenTheMiddleTwo() throws {
        let summary = try #require(RatioSummary(ratios: [4, 1, 3, 2]))
        #expect(summary.median == 2.5)
        #expect(summary.lowerQuartile == 1.75)
        #expect(summary.upperQuartile == 3.25)
        #expect(summary.interquartileRange == 1.5)
    }

    @Test func oneWildRoundMovesTheMedianLittleAndShowsInTheRange() throws {
        var ratios = Array(repeating: 0.5, count: 19)
        ratios.append(5)
        let summary = try #require(RatioSummary(ratios: ratios))
        #expect(summary.median == 0.5)
        #expect(summary.interquartileRange == 0)
        #expect(summary.maximum == 5)
    }

    @Test func noRoundsOrARoundWithoutARatioGiveNoSummary() {
        #expect(RatioSummary(ratios: []) == nil)
        #expect(RatioSummary(ratios: [0.5, .nan]) == nil)
        #expect(RatioSummary(ratios: [0.5, 0]) == nil)
        #expect(RatioSummary(ratios: [0.5, .infinity]) == nil)
        #expect(RatioSummary(caseSeconds: [1, 2], floorSeconds: [1]) == nil)
    }

    @Test func pairedTimesGiveSpeedRatios() throws {
        // The floor took a quarter of the case's time in every round: the case runs at 25% of its speed.
        let summary = try #require(RatioSummary(caseSeconds: [4, 8, 2], floorSeconds: [1, 2, 0.5]))
        #expect(summary.median == 0.25)
        #expect(summary.minimum == 0.25 && summary.maximum == 0.25)
    }

    @Test func spreadJSONCarriesQuartilesExtremesAndRounds() throws {
        let summary = try #require(RatioSummary(ratios: [0.5, 0.52, 0.48, 0.51]))
        #expect(summary.spreadJSON.serialized() == #"{"q1":0.495,"q3":0.5125,"min":0.48,"max":0.52,"rounds":4}"#)
        #expect(summary.text == "50% (median of 4 interleaved rounds; IQR 50–51%, range 48–52%)")
    }
}
