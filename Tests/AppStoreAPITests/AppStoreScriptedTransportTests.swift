import Foundation
import Testing
@testable import AppStoreAPI
@testable import ReceiptCore

/// A transport that answers from a script and records every request: no network at all.
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    // `requests` and `steps` are guarded by `lock`.
    enum Step {
        case answer(HTTPResponse)
        case fail(AppStoreError)
    }

    private let lock = NSLock()
    private var steps: [Step]
    private var recorded: [HTTPRequest] = []
    private let route: (@Sendable (HTTPRequest, Int) -> Step)?

    /// Answers with `steps` in order; a request past the end is a dropped connection.
    init(_ steps: [Step]) {
        self.steps = steps
        route = nil
    }

    /// Answers each request (and its 0-based index) with `route`.
    init(route: @escaping @Sendable (HTTPRequest, Int) -> Step) {
        steps = []
        self.route = route
    }

    var requests: [HTTPRequest] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    var paths: [String] { requests.map { $0.url.path } }

    private func next(_ request: HTTPRequest) -> Step {
        lock.lock()
        defer { lock.unlock() }
        let index = recorded.count
        recorded.append(request)
        if let route { return route(request, index) }
        if steps.isEmpty { return .fail(AppStoreError(.connectionLost, "script ended")) }
        return steps.removeFirst()
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        switch next(request) {
        case .answer(let response): return response
        case .fail(let error): throw error
        }
    }

    static func json(_ text: String, status: Int = 200, headers: [String: String] = [:]) -> Step {
        .answer(HTTPResponse(status: status, headers: headers.merging(["Content-Type": "application/json"]) { a, _ in a },
                             body: Array(text.utf8)))
    }

    static func status(_ status: Int, headers: [String: String] = [:], body: String = "") -> Step {
        .answer(HTTPResponse(status: status, headers: headers, body: Array(body.utf8)))
    }
}

/// Records the pauses a `RetryPolicy` asks for instead of sleeping.
final class SleepRecorder: @unchecked Sendable {
    // `pauses` is guarded by `lock`.
    private let lock = NSLock()
    private var recorded: [Duration] = []

    var pauses: [Duration] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    func policy(maxAttempts: Int = 4, base: Duration = .milliseconds(500), cap: Duration = .seconds(8),
                random: @escaping @Sendable () -> Double = { 1 }) -> RetryPolicy {
        RetryPolicy(maxAttempts: maxAttempts, base: base, cap: cap, sleep: { [self] pause in record(pause) }, random: random)
    }

    private func record(_ pause: Duration) {
        lock.lock()
        defer { lock.unlock() }
        recorded.append(pause)
    }
}

enum AppStoreFixtures {
    /// 2025-06-01T12:00:00Z, inside the shared test authority's validity.
    static let now = CivilTime(year: 2025, month: 6, day: 1, hour: 12).date
    static let clock: @Sendable () -> Date = { now }
    /// Every reading 7 ms after the previous one, so each attempt takes 7 ms.
    static func steppingClock() -> MonotonicClock {
        let counter = Counter()
        return MonotonicClock { .milliseconds(7 * counter.next()) }
    }

    static let production = URL(string: "https://buy.itunes.apple.com/verifyReceipt") ?? URL(fileURLWithPath: "/")
    static let sandbox = URL(string: "https://sandbox.itunes.apple.com/verifyReceipt") ?? URL(fileURLWithPath: "/")
}

final class Counter: @unchecked Sendable {
    // `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value: Int64 = 0

    func next() -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

@Suite("AppStore: requests, answers, timeouts and endpoints")
struct AppStoreScriptedTransportTests {
    @Test("header names are lower-cased in answers and compared without case in requests")
    func headers() throws {
        let response = HTTPResponse(status: 429, headers: ["Retry-After": "5", "Content-Type": "text/plain"])
        #expect(response.headers["retry-after"] == "5")
        #expect(response.header("RETRY-AFTER") == "5")
        let request = HTTPRequest(method: "GET", url: AppStoreFixtures.production, headers: ["Authorization": "Bearer abc"])
        #expect(request.header("authorization") == "Bearer abc")
        #expect(!request.description.contains("abc"))
        var dumped = ""
        dump(request, to: &dumped)
        #expect(!dumped.contains("abc") && !dumped.contains("Bearer"), "\(dumped)")
    }

    @Test("timeouts are bounded to 1–120 s")
    func timeouts() throws {
        #expect(try RequestTimeout(seconds: 1).seconds == 1)
        #expect(try RequestTimeout(seconds: 120).seconds == 120)
        for bad in [0.5, 121, -3, .nan, .infinity] {
            #expect(throws: AppStoreError(.configuration, "")) { try RequestTimeout(seconds: bad) }
        }
        #expect(RequestTimeout.clamped(seconds: 0).seconds == 1)
        #expect(RequestTimeout.clamped(seconds: 10_000).seconds == 120)
        #expect(RequestTimeout.clamped(seconds: .nan) == .default)
        #expect(RequestTimeout.default.duration == .seconds(30))
    }

    @Test("Apple's endpoints, the simulator layout, and endpoints refused")
    func endpoints() throws {
        let apple = AppStoreEndpoints.apple
        #expect(apple.verifyReceiptProduction.absoluteString == "https://buy.itunes.apple.com/verifyReceipt")
        #expect(apple.verifyReceiptSandbox.absoluteString == "https://sandbox.itunes.apple.com/verifyReceipt")
        #expect(apple.serverAPIProduction.absoluteString == "https://api.storekit.apple.com")
        #expect(apple.serverAPISandbox.absoluteString == "https://api.storekit-sandbox.apple.com")
        try apple.validate()
        #expect(apple.isApple)

        let base = try #require(URL(string: "http://127.0.0.1:8080/"))
        let simulator = AppStoreEndpoints.rooted(at: base)
        #expect(simulator.verifyReceipt(.production).absoluteString == "http://127.0.0.1:8080/production/verifyReceipt")
        #expect(simulator.verifyReceipt(.sandbox).absoluteString == "http://127.0.0.1:8080/sandbox/verifyReceipt")
        #expect(simulator.serverAPI(.production).absoluteString == "http://127.0.0.1:8080/production")
        #expect(simulator.serverAPI(.sandbox).absoluteString == "http://127.0.0.1:8080/sandbox")
        try simulator.validate()
        #expect(!simulator.isApple)
        try AppStoreEndpoints.rooted(at: try #require(URL(string: "http://localhost:9"))).validate()
        // Foundation's URL loader on Linux cannot reach IPv6 literals (-1000): refused up front, saying so.
        #expect(throws: AppStoreError(.configuration, "")) {
            try AppStoreEndpoints.rooted(at: try #require(URL(string: "http://[::1]:9"))).validate()
        }

        for refused in ["http://example.com", "http://10.0.0.1:8080", "ftp://127.0.0.1", "https://user:pw@example.com",
                        "https://example.com/?q=1", "file:///tmp/x", "http://127.0.0.1.example.com"] {
            let url = try #require(URL(string: refused))
            #expect(throws: AppStoreError(.configuration, ""), "\(refused)") { try AppStoreEndpoints.validate(url, "test") }
        }
    }

    @Test("identifiers and revisions cannot escape their path segment or query value")
    func encoding() throws {
        let base = try #require(URL(string: "https://api.storekit.apple.com"))
        let url = AppStoreEndpoints.join(base, "/inApps/v2/history/123", query: [("revision", "a/b?c=d&e f")])
        #expect(url.absoluteString == "https://api.storekit.apple.com/inApps/v2/history/123?revision=a%2Fb%3Fc%3Dd%26e%20f")
        for bad in ["", "../x", "1/2", "a?b", "a b", String(repeating: "9", count: 129), "٣"] {
            #expect(throws: ReceiptError(.badValue, ""), "\(bad)") { try AppStoreServerAPIClient.identifier(bad, "transaction id") }
        }
        #expect(try AppStoreServerAPIClient.identifier("MK5TTTVWJH", "order id") == "MK5TTTVWJH")
    }

    @Test("every Apple error code has a name; retryable ones are exactly Apple's; unknown codes keep their value")
    func errorCodes() {
        #expect(AppStoreAPIErrorCode.allKnown.count == AppStoreAPIErrorCode.names.count)
        #expect(AppStoreAPIErrorCode(rawValue: 4040010) == .transactionIdNotFound)
        #expect(AppStoreAPIErrorCode.transactionIdNotFound.name == "transactionIdNotFound")
        #expect(AppStoreAPIErrorCode.transactionIdNotFound.description == "4040010 transactionIdNotFound")
        let retryable = AppStoreAPIErrorCode.allKnown.filter(\.isRetryable).map(\.rawValue)
        #expect(retryable == [4040002, 4040004, 4040006, 4290000, 5000001])
        for code in AppStoreAPIErrorCode.allKnown where code.name.hasSuffix("Retryable") {
            #expect(code.isRetryable, "\(code)")
        }
        for raw: Int64 in [4000000, 4000006, 4040001, 4040003, 4040005, 4040010, 4040019, 5000000] {
            #expect(!AppStoreAPIErrorCode(rawValue: raw).isRetryable)
        }
        let unknown = AppStoreAPIErrorCode(rawValue: 4049999)
        #expect(!unknown.isKnown && unknown.rawValue == 4049999 && unknown.name == "unknown error 4049999" && !unknown.isRetryable)
    }

    @Test("errors compare on the code; temporary ones are the ones a later try can fix")
    func errors() {
        #expect(AppStoreError(.timeout, "a") == AppStoreError(.timeout, "b"))
        #expect(AppStoreError(.timeout, "a").isTemporary)
        #expect(AppStoreError(.connectionLost, "a").isTemporary)
        #expect(!AppStoreError(.connectionRefused, "a").isTemporary)
        #expect(AppStoreError(.httpStatus, "a", httpStatus: 503).isTemporary)
        #expect(!AppStoreError(.httpStatus, "a", httpStatus: 404).isTemporary)
        #expect(AppStoreError(.appleError, "a", apiError: .generalInternalRetryable).isTemporary)
        #expect(!AppStoreError(.appleError, "a", apiError: .transactionIdNotFound).isTemporary)
        #expect(!AppStoreError(.unauthorized, "a").isTemporary)
        #expect(!AppStoreError(.unverified, "a").isTemporary)
    }
}
