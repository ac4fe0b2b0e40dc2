import Foundation

/// Sends several requests at the same moment, each from a plain `Thread` of its own (never a
/// Swift task: the senders block on their sockets): every thread first opens its connection,
/// then all wait at one gate, which opens once all are there. A 503 answer (the service's
/// documented "busy, send it again", with Retry-After) is sent again, as Apple and a client
/// would, at most `maxAttempts` times; every status seen is kept, so a test can tell which
/// were retried.
enum RequestsAtOnce {
    /// What became of one request.
    struct Outcome: Sendable {
        /// The last answer, or nil when none came (`failure` says why).
        let response: LoopbackHTTP.Response?
        /// The status of every attempt, in order (a 503 then a 200: retried once).
        let statuses: [Int]
        let failure: String?
    }

    static let maxAttempts = 20

    /// Sends `requests` at once and returns their outcomes in order, once every one is done.
    /// Blocks the calling thread: call it from a thread of its own, never the cooperative pool.
    static func send(_ requests: [LoopbackHTTP.Request]) -> [Outcome] {
        let outcomes = Outcomes(count: requests.count)
        let ready = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for (index, request) in requests.enumerated() {
            done.enter()
            let thread = Thread {
                // The connection is opened before the gate, so what the gate releases is the sending alone.
                let first = Result { try LoopbackHTTP.Connection(port: request.port) }
                ready.signal()
                gate.wait()
                outcomes.set(index, send(request, first: first))
                done.leave()
            }
            thread.start()
        }
        for _ in requests { ready.wait() }
        for _ in requests { gate.signal() }
        done.wait()
        return outcomes.all
    }

    private static func send(_ request: LoopbackHTTP.Request, first: Result<LoopbackHTTP.Connection, Error>) -> Outcome {
        var statuses: [Int] = []
        var connection = first
        for attempt in 1...maxAttempts {
            let response: LoopbackHTTP.Response
            do {
                response = try connection.get().send(request)
            } catch {
                return Outcome(response: nil, statuses: statuses, failure: "\(error)")
            }
            statuses.append(response.status)
            guard response.status == 503, attempt < maxAttempts else { return Outcome(response: response, statuses: statuses, failure: nil) }
            // Apple waits before it sends again; a short, growing pause stands in for that here.
            usleep(useconds_t(20_000 * attempt))
            connection = Result { try LoopbackHTTP.Connection(port: request.port) }
        }
        return Outcome(response: nil, statuses: statuses, failure: "unreachable")
    }

    /// The outcomes, filled in by the sending threads.
    private final class Outcomes: @unchecked Sendable {  // every access holds the lock
        private let lock = NSLock()
        private var outcomes: [Outcome?]

        init(count: Int) { outcomes = Array(repeating: nil, count: count) }

        func set(_ index: Int, _ outcome: Outcome) { lock.withLock { outcomes[index] = outcome } }

        var all: [Outcome] {
            lock.withLock { outcomes.map { $0 ?? Outcome(response: nil, statuses: [], failure: "never sent") } }
        }
    }
}
