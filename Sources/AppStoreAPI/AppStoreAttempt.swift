import Foundation
import ReceiptCore

/// One request sent to Apple and what became of it: the record the ledger keeps for every
/// re-verification (endpoint, environment, status, retries, latency, outcome).
///
///     #2 sandbox https://sandbox.itunes.apple.com/verifyReceipt retry 1: status 21005 (the receipt
///     server is temporarily unavailable), 212 ms → retried after 0.48 s
public struct AppStoreAttempt: Sendable, Equatable, CustomStringConvertible {
    /// What came back.
    public enum Result: Sendable, Equatable, CustomStringConvertible {
        /// A verifyReceipt answer (HTTP 200) with this `status`.
        case status(Int64)
        /// An HTTP answer: the status, and Apple's error code when the body carried one.
        case http(Int, apiError: AppStoreAPIErrorCode?)
        /// No answer: the transport failure's code and reason.
        case transport(AppStoreError.Code, String)

        public var description: String {
            switch self {
            case .status(let status): return "status \(status) (\(VerifyReceiptStatus.meaning(status)))"
            case .http(let status, let apiError?): return "HTTP \(status), Apple error \(apiError)"
            case .http(let status, nil): return "HTTP \(status)"
            case .transport(let code, let reason): return "\(code.rawValue): \(reason)"
            }
        }
    }

    /// What the client did next.
    public enum Outcome: Sendable, Equatable, CustomStringConvertible {
        /// The answer was taken as final.
        case accepted
        /// Tried again after this pause.
        case retried(after: Duration)
        /// Sent to the other environment (21007, 21008, 4040010).
        case redirected(to: Environment)
        /// Worth retrying, but the attempts were used up.
        case exhausted
        /// Not worth retrying: the call failed here.
        case refused

        public var description: String {
            switch self {
            case .accepted: return "accepted"
            case .retried(let pause): return "retried after \(AppStoreAttempt.seconds(pause)) s"
            case .redirected(let environment): return "redirected to \(environment.rawValue.lowercased())"
            case .exhausted: return "gave up (attempts used up)"
            case .refused: return "gave up (not retryable)"
            }
        }
    }

    /// 1-based position among all the attempts of one call.
    public let number: Int
    /// `scheme://host/path` (no query).
    public let endpoint: String
    /// The environment the endpoint serves.
    public let environment: Environment
    /// 0 for the first try at this endpoint, n for the n-th retry.
    public let retry: Int
    /// What came back.
    public let result: Result
    /// From sending to the complete answer (or failure), in milliseconds.
    public let latencyMilliseconds: Int64
    /// What the client did next.
    public internal(set) var outcome: Outcome

    /// A record (clients make these; tests and the ledger may rebuild them).
    public init(number: Int, endpoint: String, environment: Environment, retry: Int, result: Result,
                latencyMilliseconds: Int64, outcome: Outcome) {
        self.number = number
        self.endpoint = endpoint
        self.environment = environment
        self.retry = retry
        self.result = result
        self.latencyMilliseconds = latencyMilliseconds
        self.outcome = outcome
    }

    public var description: String {
        let retryNote = retry > 0 ? " retry \(retry)" : ""
        return "#\(number) \(environment.rawValue.lowercased()) \(endpoint)\(retryNote): \(result), \(latencyMilliseconds) ms → \(outcome)"
    }

    static func seconds(_ duration: Duration) -> String {
        let ms = duration.milliseconds
        return ms % 1000 == 0 ? "\(ms / 1000)" : String(format: "%.3g", Double(ms) / 1000)
    }
}

/// A monotonic time source for latencies: the time elapsed since an arbitrary origin. Injected so
/// that logic never reads a clock itself and tests see fixed latencies.
public struct MonotonicClock: Sendable {
    /// Time since the origin.
    public let elapsed: @Sendable () -> Duration

    /// A clock reading `elapsed`.
    public init(_ elapsed: @escaping @Sendable () -> Duration) { self.elapsed = elapsed }

    /// The system's continuous clock.
    public static let system: MonotonicClock = {
        let clock = ContinuousClock()
        let origin = clock.now
        return MonotonicClock { clock.now - origin }
    }()
}

extension Duration {
    /// Whole milliseconds (rounded toward zero).
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// Seconds as a floating-point number.
    var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
