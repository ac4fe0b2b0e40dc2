import Foundation
import StoreSimulator
import Testing
@testable import AppStoreAPI
@testable import ReceiptCore

/// Finish Transaction (`POST /inApps/v1/transactions/{transactionId}/finish`, API 1.20) from the
/// client to the simulator over loopback: the request as Apple's library sends it (POST, the
/// path, no body, the bearer token), Apple's idempotent 200, and its refusals by name, never
/// retried nor asked of the other environment.
@Suite("AppStore: Finish Transaction over loopback")
struct FinishTransactionClientTests {
    static let now = RFC3339.parse("2025-06-01T12:00:00Z") ?? .distantPast

    /// The real transport, each request kept before it goes out.
    final class RecordingTransport: HTTPTransport, @unchecked Sendable {
        // `recorded` is guarded by `lock`.
        private let lock = NSLock()
        private var recorded: [HTTPRequest] = []
        private let real = URLSessionTransport()

        var requests: [HTTPRequest] { lock.lock(); defer { lock.unlock() }; return recorded }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            lock.withLock { recorded.append(request) }
            return try await real.send(request)
        }
    }

    /// A started simulator, a transaction it issued in sandbox, and a client for it.
    final class World: @unchecked Sendable {
        let state: SimulatorState
        let simulator: AppStoreSimulator
        let transport = RecordingTransport()
        let client: AppStoreServerAPIClient

        init() throws {
            let authority = try TestCertificateAuthority.shared()
            state = SimulatorState(authority: authority, bundleId: "com.example.game")
            let key = try PrivateKey.generateP256()
            state.serverAPIKey = ServerAPIKey(publicKey: try key.publicKey(), keyId: "2X9R4HXF34", issuerId: "57246542-96fe-1a63-e053-0824d011072a")
            let fixed = FinishTransactionClientTests.now
            simulator = try AppStoreSimulator(state: state, clock: { fixed })
            try simulator.start()
            let credentials = try ServerAPICredentials(keyId: "2X9R4HXF34", issuerId: "57246542-96fe-1a63-e053-0824d011072a",
                                                       bundleId: "com.example.game", privateKey: key)
            client = try AppStoreServerAPIClient(endpoints: .rooted(at: simulator.baseURL), transport: transport, credentials: credentials,
                                                 verifier: ReceiptVerifier(trust: authority.trustStore()), retry: RetryPolicy(maxAttempts: 3),
                                                 clock: { fixed })
        }

        deinit { simulator.stop() }

        func coins() throws -> String {
            try state.register(SimulatedPurchase(productId: "coins", type: .consumable, purchaseDate: FinishTransactionClientTests.now.addingTimeInterval(-3600)),
                               environment: .sandbox).transactionId
        }
    }

    @Test func theRequestIsAPOSTWithNoBodyAndAppleKeepsTheFinish() async throws {
        let world = try World()
        let id = try world.coins()
        let attempts = try await world.client.finishTransaction(transactionId: id, environment: .sandbox)
        #expect(attempts.count == 1 && attempts.first?.outcome == .accepted)
        let request = try #require(world.transport.requests.first)
        #expect(request.method == "POST" && request.url.path == "/sandbox/inApps/v1/transactions/\(id)/finish")
        #expect(request.body == nil && request.header("Content-Type") == nil, "Finish Transaction has no request body")
        #expect(request.header("Authorization")?.hasPrefix("Bearer ") == true)
        #expect(world.state.finish(transactionId: id)?.requests == 1, "the simulator took the token and recorded the finish")
        // Again: Apple answers 200 again, so a retried or repeated finish is harmless.
        _ = try await world.client.finishTransaction(transactionId: id, environment: .sandbox)
        #expect(world.state.finish(transactionId: id)?.requests == 2)
    }

    @Test func applesRefusalIsNamedAndNeitherRetriedNorAskedOfTheOtherEnvironment() async throws {
        let world = try World()
        let id = try world.coins()  // sandbox only
        let error = await #expect(throws: AppStoreError.self) {
            _ = try await world.client.finishTransaction(transactionId: id, environment: .production)
        }
        #expect(error?.apiError == .transactionIdNotFound && error?.apiError?.name == "transactionIdNotFound", "\(String(describing: error))")
        #expect(error?.httpStatus == 404 && error?.isTemporary == false)
        #expect(world.transport.requests.map(\.url.path) == ["/production/inApps/v1/transactions/\(id)/finish"],
                "one request, to the environment given: never the other by fallback")
        #expect(world.state.finish(transactionId: id) == nil)
        // An id that cannot go into the path is refused before anything is sent.
        for bad in ["", "12/34", "1 2", String(repeating: "9", count: 129)] {
            await #expect(throws: (any Error).self) { _ = try await world.client.finishTransaction(transactionId: bad, environment: .sandbox) }
        }
        #expect(world.transport.requests.count == 1)
    }
}
