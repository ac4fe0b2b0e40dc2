import Foundation

/// Why a benchmark or the soak could not run as designed. A figure over wrong data is worse than
/// none, so every case checks what it measured and throws this instead of reporting.
/// Equality is on the code, as with the product modules' errors.
public struct BenchmarkError: Error, CustomStringConvertible, Equatable {
    /// What kind of failure: the command line maps each to an exit code.
    public enum Code: Sendable {
        /// A missing sample or a setting the run cannot use (exit 64).
        case usage
        /// An input that should verify did not (a sample, a generated receipt).
        case inputNotValid
        /// The case ran but what it measured is not what it was built to measure (a query plan
        /// that scans, a count that is off, a worker process that failed).
        case notAsDesigned
        /// Something the run needs outside this process failed to start (the demo build).
        case unavailable
    }

    public let code: Code
    /// What was wrong and where, one line.
    public let reason: String
    public var description: String { reason }

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// A ledger, backend or console case that found its data other than designed.
    static func ledger(_ message: String) -> BenchmarkError { BenchmarkError(.notAsDesigned, "ledger benchmark: \(message)") }

    /// A benchmark input that did not verify.
    static func notValid(_ reason: String) -> BenchmarkError { BenchmarkError(.inputNotValid, "benchmark input did not verify: \(reason)") }

    public static func == (lhs: BenchmarkError, rhs: BenchmarkError) -> Bool { lhs.code == rhs.code }
}
