import Foundation
import Testing
@testable import AppStoreAPI
@testable import ReceiptCore

@Suite("AppStore: verifyReceipt client over a scripted transport")
struct AppStoreVerifyReceiptTests {
    static let secret = "4f3c2b1a0f9e8d7c6b5a4f3c2b1a0f9e"
    static let receipt = "MIIT3wYJKoZIhvcNAQcCoIIT0DCCE8wCAQExCzAJBgUrDgMCGgUAMIIDgAYJKoZIhvcNAQcBoIID"

    static func answer(_ status: Int64, environment: String = "Production", retryable: Bool? = nil) -> ScriptedTransport.Step {
        var text = #"{"status":\#(status),"environment":"\#(environment)""#
        if let retryable { text += #","is-retryable":\#(retryable)"# }
        if status == 0 {
            text += #","receipt":{"bundle_id":"com.example.game","in_app":[{"transaction_id":"1000000000000001","product_id":"coins.100","quantity":"1","purchase_date_ms":"1748779200000"}]}"#
        }
        return ScriptedTransport.json(text + "}")
    }

    static func client(_ transport: ScriptedTransport, _ sleeps: SleepRecorder, maxAttempts: Int = 4,
                       secret: String? = AppStoreVerifyReceiptTests.secret, exclude: Bool = true) throws -> VerifyReceiptClient {
        try VerifyReceiptClient(productionURL: AppStoreFixtures.production, sandboxURL: AppStoreFixtures.sandbox, transport: transport,
                                sharedSecret: secret, excludeOldTransactions: exclude,
                                retry: sleeps.policy(maxAttempts: maxAttempts), clock: AppStoreFixtures.clock,
                                monotonic: AppStoreFixtures.steppingClock())
    }

    @Test("status 0 from production: one request with Apple's JSON body, one accepted attempt")
    func valid() async throws {
        let transport = ScriptedTransport([Self.answer(0)])
        let sleeps = SleepRecorder()
        let outcome = try await Self.client(transport, sleeps).verify(receiptData: "  \(Self.receipt)\n")
        #expect(outcome.isValid && outcome.status == 0 && outcome.environment == .production)
        #expect(outcome.response.bundleId == "com.example.game")
        #expect(outcome.response.inApp.first?.transactionId == "1000000000000001")
        #expect(outcome.endpoint == AppStoreFixtures.production)
        #expect(outcome.attempts.count == 1)
        let attempt = try #require(outcome.attempts.first)
        #expect(attempt.number == 1 && attempt.retry == 0 && attempt.environment == .production)
        #expect(attempt.endpoint == "https://buy.itunes.apple.com/verifyReceipt")
        #expect(attempt.result == .status(0) && attempt.outcome == .accepted && attempt.latencyMilliseconds == 7)
        #expect(sleeps.pauses.isEmpty)

        let request = try #require(transport.requests.first)
        #expect(request.method == "POST" && request.header("content-type") == "application/json")
        let body = try JSONObject(parsing: try #require(request.body), what: "request")
        #expect(try body.string("receipt-data") == Self.receipt)
        #expect(try body.string("password") == Self.secret)
        #expect(try body.bool("exclude-old-transactions") == true)
        #expect(String(decoding: request.body ?? [], as: UTF8.self).hasPrefix(#"{"receipt-data":"#))
    }

    @Test("no shared secret: no password member")
    func noSecret() async throws {
        let transport = ScriptedTransport([Self.answer(0)])
        let client = try Self.client(transport, SleepRecorder(), secret: "  \n", exclude: false)
        #expect(!client.hasSharedSecret)
        _ = try await client.verify(receiptData: Self.receipt)
        let body = try JSONObject(parsing: try #require(transport.requests.first?.body), what: "request")
        #expect(!body.has("password"))
        #expect(try body.bool("exclude-old-transactions") == false)
    }

    @Test("21007 sends the same body to sandbox")
    func sandboxReceiptOnProduction() async throws {
        let transport = ScriptedTransport([Self.answer(21007), Self.answer(0, environment: "Sandbox")])
        let outcome = try await Self.client(transport, SleepRecorder()).verify(receiptData: Self.receipt)
        #expect(outcome.isValid && outcome.environment == .sandbox && outcome.endpoint == AppStoreFixtures.sandbox)
        #expect(transport.requests.map(\.url) == [AppStoreFixtures.production, AppStoreFixtures.sandbox])
        #expect(transport.requests[0].body == transport.requests[1].body)
        #expect(outcome.attempts.map(\.outcome) == [.redirected(to: .sandbox), .accepted])
        #expect(outcome.attempts.map(\.environment) == [.production, .sandbox])
        #expect(outcome.attempts.map(\.retry) == [0, 0])
        #expect(outcome.environmentDisagreement == nil)
    }

    @Test("21008 from sandbox goes back to production, and never ping-pongs")
    func productionReceiptOnSandbox() async throws {
        let transport = ScriptedTransport([Self.answer(21007), Self.answer(21008), Self.answer(0)])
        let outcome = try await Self.client(transport, SleepRecorder()).verify(receiptData: Self.receipt)
        #expect(outcome.isValid && outcome.environment == .production)
        #expect(outcome.attempts.map(\.outcome) == [.redirected(to: .sandbox), .redirected(to: .production), .accepted])

        let looping = ScriptedTransport([Self.answer(21007), Self.answer(21008), Self.answer(21007), Self.answer(21008)])
        let stopped = try await Self.client(looping, SleepRecorder()).verify(receiptData: Self.receipt)
        #expect(looping.requests.count == 3)
        #expect(stopped.status == 21007 && !stopped.isValid && !stopped.isTemporaryFailure)
        #expect(stopped.attempts.last?.outcome == .accepted)
    }

    @Test("21005 and 21100–21199 are retried with backoff; is-retryable true is honoured")
    func retriedStatuses() async throws {
        for status: Int64 in [21005, 21009, 21100, 21199] {
            let transport = ScriptedTransport([Self.answer(status), Self.answer(status, retryable: true), Self.answer(0)])
            let sleeps = SleepRecorder()
            let outcome = try await Self.client(transport, sleeps).verify(receiptData: Self.receipt)
            #expect(outcome.isValid, "\(status)")
            #expect(outcome.attempts.map(\.retry) == [0, 1, 2])
            #expect(outcome.retries == 2)
            #expect(outcome.attempts.map(\.outcome) == [.retried(after: .milliseconds(500)), .retried(after: .seconds(1)), .accepted])
            #expect(sleeps.pauses == [.milliseconds(500), .seconds(1)])
        }
        let unknown = ScriptedTransport([Self.answer(21050, retryable: true), Self.answer(0)])
        #expect(try await Self.client(unknown, SleepRecorder()).verify(receiptData: Self.receipt).isValid)
    }

    @Test("is-retryable false stops at once, even in 21100–21199")
    func notRetryableFlag() async throws {
        let transport = ScriptedTransport([Self.answer(21199, retryable: false), Self.answer(0)])
        let outcome = try await Self.client(transport, SleepRecorder()).verify(receiptData: Self.receipt)
        #expect(transport.requests.count == 1)
        #expect(outcome.status == 21199 && !outcome.isTemporaryFailure)
        #expect(outcome.attempts.map(\.outcome) == [.accepted])
    }

    @Test("21000, 21002, 21003, 21004, 21006, 21010 and unknown statuses are final, even marked retryable")
    func finalStatuses() async throws {
        let marked: Set<Int64> = [21000, 21002, 21003, 21004, 21006, 21010]
        for status: Int64 in [21000, 21002, 21003, 21004, 21006, 21010, 21001, 30000] {
            for flag in (marked.contains(status) ? [nil, true] : [nil]) as [Bool?] {
                let transport = ScriptedTransport([Self.answer(status, retryable: flag), Self.answer(0)])
                let sleeps = SleepRecorder()
                let outcome = try await Self.client(transport, sleeps).verify(receiptData: Self.receipt)
                #expect(transport.requests.count == 1, "\(status)")
                #expect(outcome.status == status && outcome.meaning == VerifyReceiptStatus.meaning(status))
                #expect(sleeps.pauses.isEmpty)
            }
        }
    }

    @Test("a retryable status on every attempt returns Apple's last answer, marked exhausted")
    func attemptsCapped() async throws {
        let transport = ScriptedTransport(route: { _, _ in Self.answer(21005) })
        let sleeps = SleepRecorder()
        let outcome = try await Self.client(transport, sleeps, maxAttempts: 3).verify(receiptData: Self.receipt)
        #expect(transport.requests.count == 3)
        #expect(outcome.status == 21005 && outcome.isTemporaryFailure)
        #expect(outcome.attempts.map(\.outcome) == [.retried(after: .milliseconds(500)), .retried(after: .seconds(1)), .exhausted])
        #expect(outcome.attempts.map(\.number) == [1, 2, 3])
    }

    @Test("HTTP 5xx, timeouts and dropped connections are retried")
    func transientFailures() async throws {
        let transport = ScriptedTransport([
            ScriptedTransport.status(503, headers: ["Retry-After": "2"]),
            .fail(AppStoreError(.timeout, "no answer within 30 s")),
            .fail(AppStoreError(.connectionLost, "reset by peer")),
            ScriptedTransport.status(500),
            Self.answer(0),
        ])
        let sleeps = SleepRecorder()
        let outcome = try await Self.client(transport, sleeps, maxAttempts: 5).verify(receiptData: Self.receipt)
        #expect(outcome.isValid)
        #expect(sleeps.pauses == [.seconds(2), .seconds(1), .seconds(2), .seconds(4)])
        #expect(outcome.attempts.map(\.result) == [
            .http(503, apiError: nil), .transport(.timeout, "no answer within 30 s"), .transport(.connectionLost, "reset by peer"),
            .http(500, apiError: nil), .status(0),
        ])
    }

    @Test("every failure exhausted throws with every attempt; refused connections and 4xx are not retried")
    func failures() async throws {
        let dropped = ScriptedTransport(route: { _, _ in .fail(AppStoreError(.connectionLost, "dropped")) })
        let error = try await #require(throws: AppStoreError.self) {
            try await Self.client(dropped, SleepRecorder(), maxAttempts: 3).verify(receiptData: Self.receipt)
        }
        #expect(error.code == .connectionLost && error.isTemporary)
        #expect(error.attempts.count == 3 && error.attempts.last?.outcome == .exhausted)

        let unavailable = ScriptedTransport(route: { _, _ in ScriptedTransport.status(503) })
        let http = try await #require(throws: AppStoreError.self) {
            try await Self.client(unavailable, SleepRecorder(), maxAttempts: 2).verify(receiptData: Self.receipt)
        }
        #expect(http.code == .httpStatus && http.httpStatus == 503 && http.isTemporary && http.attempts.count == 2)

        let refused = ScriptedTransport(route: { _, _ in .fail(AppStoreError(.connectionRefused, "refused")) })
        let noServer = try await #require(throws: AppStoreError.self) {
            try await Self.client(refused, SleepRecorder()).verify(receiptData: Self.receipt)
        }
        #expect(noServer.code == .connectionRefused && refused.requests.count == 1 && noServer.attempts.map(\.outcome) == [.refused])

        let notFound = ScriptedTransport([ScriptedTransport.status(404, body: "<html>nope</html>")])
        let missing = try await #require(throws: AppStoreError.self) {
            try await Self.client(notFound, SleepRecorder()).verify(receiptData: Self.receipt)
        }
        #expect(missing.code == .httpStatus && missing.httpStatus == 404 && !missing.isTemporary && notFound.requests.count == 1)
        #expect(missing.reason.contains("HTTP 404") && missing.reason.contains("nope"))

        let garbage = ScriptedTransport([ScriptedTransport.json("<html>captive portal</html>")])
        let bad = try await #require(throws: AppStoreError.self) {
            try await Self.client(garbage, SleepRecorder()).verify(receiptData: Self.receipt)
        }
        #expect(bad.code == .badResponse && garbage.requests.count == 1)
    }

    @Test("a receipt that cannot be sent is refused before any request")
    func badInput() async throws {
        let transport = ScriptedTransport([])
        let client = try Self.client(transport, SleepRecorder())
        await #expect(throws: ReceiptError(.missingField, "")) { try await client.verify(receiptData: " \n ") }
        let huge = String(repeating: "A", count: VerifyReceiptClient.maxReceiptBytes + 1)
        await #expect(throws: ReceiptError(.tooLarge, "")) { try await client.verify(receiptData: huge) }
        #expect(transport.requests.isEmpty)
        #expect(throws: AppStoreError(.configuration, "")) {
            try VerifyReceiptClient(productionURL: try #require(URL(string: "http://buy.itunes.apple.com/verifyReceipt")),
                                    sandboxURL: AppStoreFixtures.sandbox, transport: transport, sharedSecret: nil)
        }
    }

    @Test("cancellation during a backoff pause ends the call")
    func cancellation() async throws {
        let transport = ScriptedTransport(route: { _, _ in Self.answer(21005) })
        let policy = RetryPolicy(maxAttempts: 5, sleep: { _ in throw CancellationError() }, random: { 1 })
        let client = try VerifyReceiptClient(productionURL: AppStoreFixtures.production, sandboxURL: AppStoreFixtures.sandbox,
                                             transport: transport, sharedSecret: Self.secret, retry: policy,
                                             clock: AppStoreFixtures.clock)
        await #expect(throws: CancellationError.self) { try await client.verify(receiptData: Self.receipt) }
        #expect(transport.requests.count == 1)
    }

    @Test("an answer whose environment differs from the endpoint's is flagged")
    func environmentDisagreement() async throws {
        let transport = ScriptedTransport([Self.answer(0, environment: "Sandbox")])
        let outcome = try await Self.client(transport, SleepRecorder()).verify(receiptData: Self.receipt)
        #expect(outcome.environmentDisagreement?.contains("production endpoint answered with environment Sandbox") == true)
    }
}
