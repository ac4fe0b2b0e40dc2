import Foundation

/// Runs a body repeatedly and reports operations per second: a short warm-up, then batches until
/// at least `seconds` have passed. Wall-clock, single thread.
struct Benchmark {
    let name: String
    let body: () throws -> Void

    func run(seconds: Double) throws -> Double {
        let clock = ContinuousClock()
        let warmUpEnd = clock.now.advanced(by: .milliseconds(150))
        while clock.now < warmUpEnd { try body() }
        var operations = 0
        var batch = 1
        let start = clock.now
        var elapsed = Duration.zero
        while elapsed < .seconds(seconds) {
            for _ in 0..<batch { try body() }
            operations += batch
            elapsed = clock.now - start
            if elapsed < .milliseconds(50) { batch *= 2 }
        }
        let (secondsPart, attoseconds) = elapsed.components
        return Double(operations) / (Double(secondsPart) + Double(attoseconds) / 1e18)
    }
}
