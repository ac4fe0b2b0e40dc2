import Foundation
import ReceiptCore

/// What a client makes of one HTTP answer.
enum AnswerJudgement<Value> {
    /// Take `value` as the answer.
    case accept(Value, AppStoreAttempt.Result)
    /// Worth another try. When the attempts are used up, `exhausted` is returned if present,
    /// else `error` is thrown.
    case retry(AppStoreAttempt.Result, retryAfter: String?, exhausted: Value?, error: AppStoreError)
    /// Not worth another try: throw `error`.
    case refuse(AppStoreAttempt.Result, AppStoreError)
}

/// The engine both clients share: sends a request to one endpoint, retries it under the
/// `RetryPolicy`, and records every attempt. One loop serves one call (a verification, or every
/// page of a history), so the attempt numbers run across redirections and pages.
struct AttemptLoop {
    let transport: any HTTPTransport
    let retry: RetryPolicy
    let monotonic: MonotonicClock
    /// Wall-clock time, only to read `Retry-After` dates.
    let wallClock: @Sendable () -> Date
    /// Applied to every reason that goes into an attempt or an error (removes the shared secret).
    let redact: @Sendable (String) -> String
    private(set) var attempts: [AppStoreAttempt] = []

    init(transport: any HTTPTransport, retry: RetryPolicy, monotonic: MonotonicClock,
         wallClock: @escaping @Sendable () -> Date, redact: @escaping @Sendable (String) -> String = { $0 }) {
        self.transport = transport
        self.retry = retry
        self.monotonic = monotonic
        self.wallClock = wallClock
        self.redact = redact
    }

    /// Sends `makeRequest()` to `endpoint` until `judge` accepts an answer, refuses it, or the
    /// attempts run out. Transport timeouts and dropped connections are retried; other transport
    /// failures are not. `CancellationError` passes through untouched.
    mutating func run<Value>(environment: Environment, endpoint: URL,
                             makeRequest: () throws -> HTTPRequest,
                             judge: (HTTPResponse) -> AnswerJudgement<Value>) async throws -> Value {
        let target = URLSessionTransport.target(endpoint)
        var retryNumber = 0
        while true {
            try Task.checkCancellation()
            let request: HTTPRequest
            do {
                request = try makeRequest()
            } catch {
                throw failure(AppStoreError(.configuration, AttemptLoop.describe(error)))
            }
            let started = monotonic.elapsed()
            let judgement: AnswerJudgement<Value>
            do {
                let response = try await transport.send(request)
                judgement = judge(response)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                judgement = AttemptLoop.judgeTransport(error, target: target, redact: redact)
            }
            let latency = max((monotonic.elapsed() - started).milliseconds, 0)
            func record(_ result: AppStoreAttempt.Result, _ outcome: AppStoreAttempt.Outcome) {
                attempts.append(AppStoreAttempt(number: attempts.count + 1, endpoint: target, environment: environment,
                                                retry: retryNumber, result: AttemptLoop.redacted(result, redact),
                                                latencyMilliseconds: latency, outcome: outcome))
            }
            switch judgement {
            case .accept(let value, let result):
                record(result, .accepted)
                return value
            case .refuse(let result, let error):
                record(result, .refused)
                throw failure(error)
            case .retry(let result, let retryAfter, let exhausted, let error):
                guard retryNumber + 1 < retry.maxAttempts else {
                    record(result, .exhausted)
                    if let exhausted { return exhausted }
                    throw failure(error)
                }
                let (pause, _) = retry.wait(forRetry: retryNumber + 1, retryAfter: retryAfter, now: wallClock())
                record(result, .retried(after: pause))
                retryNumber += 1
                try await retry.sleep(pause)
            }
        }
    }

    /// Marks the last attempt's outcome (a redirection to the other environment).
    mutating func markLast(_ outcome: AppStoreAttempt.Outcome) {
        guard !attempts.isEmpty else { return }
        attempts[attempts.count - 1].outcome = outcome
    }

    /// `error` carrying every attempt so far, its reason redacted.
    func failure(_ error: AppStoreError) -> AppStoreError {
        error.with(attempts: attempts, redact: redact)
    }

    /// A transport failure: timeouts and dropped connections are retried, the rest are not.
    static func judgeTransport<Value>(_ error: Error, target: String, redact: (String) -> String) -> AnswerJudgement<Value> {
        let failure = (error as? AppStoreError) ?? AppStoreError(.transport, "\(target): \(describe(error))")
        let result = AppStoreAttempt.Result.transport(failure.code, redact(failure.reason))
        switch failure.code {
        case .timeout, .connectionLost:
            return .retry(result, retryAfter: nil, exhausted: nil, error: failure)
        default:
            return .refuse(result, failure)
        }
    }

    static func redacted(_ result: AppStoreAttempt.Result, _ redact: (String) -> String) -> AppStoreAttempt.Result {
        guard case .transport(let code, let reason) = result else { return result }
        return .transport(code, redact(reason))
    }

    /// One line for any error.
    static func describe(_ error: Error) -> String {
        if let error = error as? AppStoreError { return error.reason }
        if let error = error as? ReceiptError { return error.reason }
        return String(describing: error)
    }

    /// Printable text from an answer body, for messages: at most `limit` characters, control
    /// characters replaced.
    static func snippet(_ bytes: [UInt8], limit: Int = 160) -> String {
        let text = String(decoding: bytes.prefix(limit * 4), as: UTF8.self)
        let cleaned = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        return cleaned.count > limit ? String(cleaned.prefix(limit)) + "…" : cleaned
    }
}
