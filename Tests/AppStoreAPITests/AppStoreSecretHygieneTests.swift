import Foundation
import Testing
@testable import AppStoreAPI
@testable import ReceiptCore

/// The shared secret may reach Apple's endpoint in the request body and nowhere else: not in an
/// attempt, an outcome, an error, a description, a debug description or a dump, even when the
/// server echoes it back.
@Suite("AppStore: the shared secret never appears in anything produced")
struct AppStoreSecretHygieneTests {
    static let secret = "f00dfacecafe4b1d8e2a9c3d7e6f5a4b"

    /// Every string a value can be turned into.
    static func strings(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), dumped, "\(value)"]
    }

    static func check(_ values: [Any]) {
        for value in values {
            for text in strings(value) {
                #expect(!text.contains(secret), "leaked in \(type(of: value)): \(text.prefix(300))")
                #expect(!text.contains(String(secret.prefix(10))), "partly leaked in \(type(of: value))")
            }
        }
    }

    func client(_ transport: ScriptedTransport, maxAttempts: Int = 3) throws -> VerifyReceiptClient {
        try VerifyReceiptClient(productionURL: AppStoreFixtures.production, sandboxURL: AppStoreFixtures.sandbox, transport: transport,
                                sharedSecret: Self.secret + "\n", retry: SleepRecorder().policy(maxAttempts: maxAttempts),
                                clock: AppStoreFixtures.clock, monotonic: AppStoreFixtures.steppingClock())
    }

    @Test("the secret is sent, and the client never shows it")
    func client() throws {
        let transport = ScriptedTransport([])
        let client = try client(transport)
        #expect(client.hasSharedSecret)
        Self.check([client, SharedSecret(Self.secret) as Any])
        #expect("\(client)".contains(SharedSecret.placeholder))
    }

    @Test("outcomes and attempts across redirects and retries never show it")
    func outcomes() async throws {
        let transport = ScriptedTransport([
            ScriptedTransport.json(#"{"status":21007}"#),
            .fail(AppStoreError(.timeout, "timeout")),
            ScriptedTransport.json(#"{"status":21199,"is-retryable":true}"#),
            ScriptedTransport.json(#"{"status":0,"environment":"Sandbox","receipt":{"bundle_id":"com.example.game","in_app":[]}}"#),
        ])
        let outcome = try await client(transport, maxAttempts: 4).verify(receiptData: "MIIT")
        #expect(outcome.isValid && outcome.attempts.count == 4)
        #expect(transport.requests.allSatisfy { String(decoding: $0.body ?? [], as: UTF8.self).contains(Self.secret) })
        Self.check([outcome, outcome.attempts, transport.requests] + outcome.attempts.map { $0 as Any })
    }

    @Test("errors never show it, even when the server or the transport echo it")
    func errors() async throws {
        let echoes: [ScriptedTransport.Step] = [
            ScriptedTransport.status(400, body: #"{"password":"\#(Self.secret)"}"#),
            ScriptedTransport.json(#"{"status":"\#(Self.secret)"}"#),
            ScriptedTransport.json(#"{"status":"0123456789012345678901234567\#(Self.secret)"}"#),
            ScriptedTransport.json("not json \(Self.secret)"),
            .fail(AppStoreError(.transport, "proxy said: bad password \(Self.secret)")),
            .fail(AppStoreError(.connectionRefused, "refused \(Self.secret)")),
        ]
        for echo in echoes {
            let transport = ScriptedTransport([echo])
            let error = try await #require(throws: AppStoreError.self) { try await client(transport).verify(receiptData: "MIIT") }
            Self.check([error, error.attempts, error.reason])
            #expect(error.reason.contains(SharedSecret.placeholder) || !error.reason.isEmpty)
        }
        let timeouts = ScriptedTransport(route: { _, _ in .fail(AppStoreError(.timeout, "slow \(Self.secret)")) })
        let error = try await #require(throws: AppStoreError.self) { try await client(timeouts).verify(receiptData: "MIIT") }
        #expect(error.attempts.count == 3)
        Self.check([error, error.attempts])
    }

    @Test("input errors never show it")
    func inputErrors() async throws {
        let transport = ScriptedTransport([])
        let client = try client(transport)
        let error = try await #require(throws: ReceiptError.self) { try await client.verify(receiptData: "") }
        Self.check([error])
    }
}
