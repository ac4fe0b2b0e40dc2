import Foundation
import ReceiptCore

/// When and how long to wait before trying a request again: at most `maxAttempts` tries, waits
/// growing exponentially from `base` and capped at `cap`, each drawn uniformly from zero to that
/// ceiling ("full jitter", so a batch of clients does not retry in step), and a server's
/// `Retry-After` honoured in place of the drawn wait (capped at `retryAfterCap`).
///
/// The sleep and the random source are injected, so tests run instantly and deterministically:
///
///     RetryPolicy(maxAttempts: 3, sleep: { _ in }, random: { 1 })   // always the ceiling, no waiting
public struct RetryPolicy: Sendable {
    /// Where a wait came from.
    public enum WaitSource: String, Sendable, Equatable {
        /// Drawn from the exponential backoff.
        case backoff
        /// The server's `Retry-After`.
        case retryAfter
        /// The server's `Retry-After`, cut to `retryAfterCap`.
        case retryAfterCapped
    }

    /// The most attempts made at one endpoint, the first included (1–10).
    public let maxAttempts: Int
    /// The ceiling of the first retry's wait.
    public let base: Duration
    /// The largest ceiling any wait is drawn under.
    public let cap: Duration
    /// The longest `Retry-After` honoured; longer ones are cut to this.
    public let retryAfterCap: Duration
    /// Waits (`Task.sleep` by default); throwing (cancellation) ends the call.
    public let sleep: @Sendable (Duration) async throws -> Void
    /// A number in [0, 1) (`Double.random` by default); values outside are clamped to [0, 1].
    public let random: @Sendable () -> Double

    /// A policy; `maxAttempts` is brought inside 1–10, `cap` is at least `base`, durations are at
    /// least zero.
    public init(maxAttempts: Int = 4, base: Duration = .milliseconds(500), cap: Duration = .seconds(8),
                retryAfterCap: Duration = .seconds(60),
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.maxAttempts = min(max(maxAttempts, 1), 10)
        self.base = max(base, .zero)
        self.cap = max(cap, self.base)
        self.retryAfterCap = max(retryAfterCap, .zero)
        self.sleep = sleep
        self.random = random
    }

    /// Four attempts, waits up to 0.5 s, 1 s, 2 s; `Retry-After` up to 60 s.
    public static var standard: RetryPolicy { RetryPolicy() }

    /// One attempt, never a retry.
    public static var never: RetryPolicy { RetryPolicy(maxAttempts: 1) }

    /// The ceiling of the `retry`-th retry's wait (1-based): `min(cap, base · 2^(retry−1))`.
    public func ceiling(forRetry retry: Int) -> Duration {
        let exponent = min(max(retry - 1, 0), 62)
        let grown = base.secondsValue * pow(2, Double(exponent))
        return grown >= cap.secondsValue ? cap : RetryPolicy.rounded(grown)
    }

    /// The `retry`-th retry's wait: uniform between zero and `ceiling(forRetry:)`, in whole milliseconds.
    public func backoff(forRetry retry: Int) -> Duration {
        let draw = random()
        let unit = draw.isNaN ? 1 : min(max(draw, 0), 1)
        return RetryPolicy.rounded(ceiling(forRetry: retry).secondsValue * unit)
    }

    /// The wait before the `retry`-th retry: the server's `Retry-After` when it is a usable value
    /// (delay-seconds, or an HTTP-date after `now`), capped at `retryAfterCap`; otherwise the
    /// backoff. Negative, fractional, past or unreadable values fall back to the backoff.
    public func wait(forRetry retry: Int, retryAfter: String?, now: Date) -> (Duration, WaitSource) {
        guard let retryAfter, let asked = RetryPolicy.parseRetryAfter(retryAfter, now: now) else {
            return (backoff(forRetry: retry), .backoff)
        }
        return asked > retryAfterCap ? (retryAfterCap, .retryAfterCapped) : (asked, .retryAfter)
    }

    /// A `Retry-After` value as a wait: delay-seconds (digits only; huge values saturate) or an
    /// HTTP-date strictly after `now`. Nil for anything else (negative, fractional, garbage, a
    /// date in the past — usually clock skew, so the normal backoff is the safer pause).
    public static func parseRetryAfter(_ text: String, now: Date) -> Duration? {
        let value = text.trimmingCharacters(in: .whitespaces)
        if !value.isEmpty, value.allSatisfy(\.isASCIIDigit) {
            // More than 9 digits is years of waiting; saturate rather than overflow.
            guard value.count <= 9, let seconds = Int64(value) else { return .seconds(999_999_999) }
            return .seconds(seconds)
        }
        guard let date = HTTPDate.parse(value) else { return nil }
        let interval = date.timeIntervalSince(now)
        guard interval > 0 else { return nil }
        return rounded(min(interval, 999_999_999))
    }

    /// `seconds` as a duration of whole milliseconds.
    static func rounded(_ seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
