import Foundation

/// A failure the simulator produces on demand, in place of (or before) its normal answer.
public enum SimulatorFault: Sendable, Equatable {
    /// verifyReceipt answers HTTP 200 `{"status":N,"is-retryable":…}` (21005, 21199, …); nil
    /// leaves `is-retryable` out. Only verifyReceipt requests take this fault.
    case status(Int64, isRetryable: Bool?)
    /// An HTTP error status (503, 500, …) with a small JSON body.
    case http(Int)
    /// HTTP 429 with `Retry-After` set to exactly this text (so tests can send huge, negative or
    /// garbage values) and Apple's rate-limit body `{"errorCode":4290000,…}`.
    case rateLimited(retryAfter: String)
    /// The normal answer, after this many seconds.
    case delay(Double)
    /// The connection is closed without any answer.
    case drop
}

/// Faults waiting for requests, the latency every request gets, and request counters: shared by
/// tests and the request threads (all access under one lock).
///
///     faults.inject(.status(21005, isRetryable: true), pathPrefix: "/production/verifyReceipt", times: 2)
///     faults.inject(.rateLimited(retryAfter: "2"))      // the next request of any path
///     faults.latency = 0.02                               // 20 ms on every request
///     #expect(faults.maxInFlight <= 8)
public final class SimulatorFaults: @unchecked Sendable {
    // Every mutable member is guarded by `condition`.

    /// One request as the simulator saw it.
    public struct RecordedRequest: Sendable, Equatable {
        /// "GET", "POST".
        public let method: String
        /// The decoded path ("/sandbox/verifyReceipt").
        public let path: String
        /// The fault it got, if any.
        public let fault: SimulatorFault?
    }

    private struct Rule {
        let fault: SimulatorFault
        let pathPrefix: String?
        var remaining: Int
    }

    private let condition = NSCondition()
    private var rules: [Rule] = []
    private var latencySeconds: Double = 0
    private var count = 0
    private var current = 0
    private var highest = 0
    private var log: [RecordedRequest] = []
    private var cancelled = false

    /// The most requests the log keeps (the oldest are dropped first).
    public static let logLimit = 10_000

    /// No faults, no latency.
    public init() {}

    /// Queues `fault` for the next `times` requests whose path starts with `pathPrefix` (nil: any
    /// path). Faults are taken first come, first served.
    public func inject(_ fault: SimulatorFault, pathPrefix: String? = nil, times: Int = 1) {
        guard times > 0 else { return }
        locked { rules.append(Rule(fault: fault, pathPrefix: pathPrefix, remaining: times)) }
    }

    /// Drops every queued fault.
    public func clear() { locked { rules.removeAll() } }

    /// Faults still queued (each rule counted once per remaining use).
    public var pending: Int { locked { rules.reduce(0) { $0 + $1.remaining } } }

    /// Seconds added to every request before it is answered (the benchmark uses 0.02).
    public var latency: Double {
        get { locked { latencySeconds } }
        set { locked { latencySeconds = max(0, newValue.isFinite ? newValue : 0) } }
    }

    /// Requests received since the last reset.
    public var requestCount: Int { locked { count } }
    /// Requests being handled right now.
    public var inFlight: Int { locked { current } }
    /// The most requests handled at once since the last reset.
    public var maxInFlight: Int { locked { highest } }
    /// The requests received since the last reset, oldest first.
    public var requests: [RecordedRequest] { locked { log } }

    /// Requests received whose path starts with `prefix`.
    public func requestCount(pathPrefix prefix: String) -> Int {
        locked { log.filter { $0.path.hasPrefix(prefix) }.count }
    }

    /// Zeroes the counters and empties the log (queued faults stay).
    public func resetCounters() {
        locked {
            count = 0
            highest = current
            log.removeAll()
        }
    }

    /// Starts a request: counts it and takes the first fault that applies to it.
    func begin(method: String, path: String, isVerifyReceipt: Bool) -> SimulatorFault? {
        locked {
            count += 1
            current += 1
            highest = max(highest, current)
            var taken: SimulatorFault?
            if let index = rules.firstIndex(where: { rule in
                (rule.pathPrefix.map { path.hasPrefix($0) } ?? true) && (isVerifyReceipt || !Self.isStatus(rule.fault))
            }) {
                taken = rules[index].fault
                rules[index].remaining -= 1
                if rules[index].remaining == 0 { rules.remove(at: index) }
            }
            if log.count >= SimulatorFaults.logLimit { log.removeFirst(SimulatorFaults.logLimit / 10) }
            log.append(RecordedRequest(method: method, path: path, fault: taken))
            return taken
        }
    }

    /// Ends a request started with `begin`.
    func end() {
        locked { current -= 1 }
    }

    /// Sleeps `seconds`, or less if `wakeSleepers()` is called (the simulator is stopping).
    func sleep(_ seconds: Double) {
        guard seconds > 0, seconds.isFinite else { return }
        let until = Date(timeIntervalSinceNow: min(seconds, 86_400))
        condition.lock()
        defer { condition.unlock() }
        while !cancelled, condition.wait(until: until) {}
    }

    /// Wakes every sleeping request now and lets no new sleep begin (used when stopping).
    func wakeSleepers() {
        locked {
            cancelled = true
            condition.broadcast()
        }
    }

    /// Lets sleeps happen again (used when a simulator starts).
    func allowSleeping() {
        locked { cancelled = false }
    }

    private static func isStatus(_ fault: SimulatorFault) -> Bool {
        if case .status = fault { return true }
        return false
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }
}
