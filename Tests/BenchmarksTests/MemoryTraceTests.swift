import Testing
@testable import Benchmarks

/// The memory run's verdict from its readings: fixed samples in, fixed figures out (no clock,
/// no process involved).
@Suite("Serve memory run: samples against the aim")
struct MemoryTraceTests {
    static func trace(_ megabytes: [Double], every seconds: Double = 30, peak: Double? = nil) -> MemoryTrace {
        var trace = MemoryTrace(beforeLoad: 40)
        trace.samples = megabytes.enumerated().map { MemoryTrace.Sample(second: Double($0.offset + 1) * seconds, megabytes: $0.element) }
        trace.peak = peak
        return trace
    }

    @Test func growthIsTheLastMinutesHighestOverTheFirstMinutesHighest() throws {
        // 10 minutes, a reading every 30 s: the first minute is 30 s and 60 s, the last 570 s and 600 s.
        let trace = Self.trace([70, 72, 71, 75, 74, 73, 76, 75, 74, 77, 76, 75, 78, 77, 76, 79, 78, 77, 80, 79])
        #expect(trace.growth == 8.0)
        #expect(trace.highest == 80)
        #expect(trace.meetsAim)
        let lines = trace.figures.map(\.line)
        #expect(lines.first == "serve memory before load MB: 40.000")
        #expect(lines.contains("serve memory at 600 s MB: 79.000 (aim < 150) ✓"))
        #expect(lines.contains("serve memory growth, first minute → last, MB: 8.000 (aim < 10) ✓"))
        #expect(trace.figures.count == 1 + 20 + 2)
    }

    @Test func steadyGrowthOrAReadingOverTheCeilingMissesTheAim() {
        let growing = Self.trace([60, 64, 68, 72, 76, 80])
        #expect(growing.growth == 16.0)
        #expect(!growing.meetsAim)
        let high = Self.trace([140, 149, 151, 149], peak: 152)
        #expect(high.growth == 2.0)
        #expect(high.highest == 152)
        #expect(!high.meetsAim)
        #expect(high.figures.map(\.line).contains("serve memory peak under load MB: 152.000 (aim < 150) ✗"))
    }

    @Test func aRunShorterThanTwoMinutesSaysNothingOfGrowth() {
        let short = Self.trace([60, 90, 95])
        #expect(short.growth == nil)
        #expect(short.meetsAim)
        #expect(!short.figures.contains { $0.name.contains("growth") })
    }
}
