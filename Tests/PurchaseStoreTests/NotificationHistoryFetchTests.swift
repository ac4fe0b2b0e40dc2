import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// Get Notification History through `AppleActions`, against the simulator on loopback: a fetch
/// cut off after its first page keeps its paging token and resumes from the next page; every
/// notification is applied once.
@Suite("Notification history fetch resumes where it stopped", .serialized)
struct NotificationHistoryFetchTests {
    /// Passes requests to `inner`, except request number `failing` (1-based), which is dropped.
    final class DropOne: HTTPTransport, @unchecked Sendable {
        // `count` is guarded by `lock`.
        private let lock = NSLock()
        private var count = 0
        let inner: any HTTPTransport
        let failing: Int

        init(_ inner: any HTTPTransport, failing: Int) {
            self.inner = inner
            self.failing = failing
        }

        private func next() -> Int {
            lock.lock()
            defer { lock.unlock() }
            count += 1
            return count
        }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let number = next()
            if number == failing { throw AppStoreError(.connectionLost, "dropped by the test") }
            return try await inner.send(request)
        }
    }

    /// The ledger with alice's monthly subscription, and the simulator on loopback (history
    /// pages of 2) whose clock reads `now`; `actions` talks to it through a transport.
    final class World {
        let fixture: LedgerFixture
        let state: SimulatorState
        let simulator: AppStoreSimulator
        let key: PrivateKey
        let now: String
        let original: String

        init(now: String) throws {
            self.now = now
            fixture = try LedgerFixture(now: "2025-06-15T00:00:00Z")
            state = SimulatorState(authority: fixture.authority, bundleId: "com.example.app")
            key = try PrivateKey.generateP256()
            state.serverAPIKey = ServerAPIKey(publicKey: try key.publicKey(), keyId: "KEY1", issuerId: "ISSUER")
            simulator = try AppStoreSimulator(state: state, historyPageSize: 2, clock: { LedgerFixture.date(now) })
            try simulator.start()
            let minted = try state.mintUnifiedReceipt(environment: .production, purchases: [
                SimulatedPurchase(productId: "com.example.pro.monthly", type: .autoRenewable, purchaseDate: LedgerFixture.date("2025-05-01T00:00:00Z"),
                                  expiresDate: LedgerFixture.date("2025-06-01T00:00:00Z")),
            ], account: "alice", originalAppVersion: "50")
            _ = try fixture.ledger.importArtefact(Array(minted.base64.utf8), customer: "alice", source: "test", operatorName: "mei")
            original = try #require(minted.transactions.first?.transactionId)
        }

        deinit { simulator.stop() }

        func actions(_ transport: any HTTPTransport) throws -> AppleActions {
            let credentials = try ServerAPICredentials(keyId: "KEY1", issuerId: "ISSUER", bundleId: "com.example.app", privateKey: key)
            let now = self.now
            let client = try AppStoreServerAPIClient(endpoints: .rooted(at: simulator.baseURL), transport: transport, credentials: credentials,
                                                     verifier: ReceiptVerifier(trust: fixture.authority.trustStore()),
                                                     retry: RetryPolicy(maxAttempts: 1), clock: { LedgerFixture.date(now) })
            return AppleActions(ledger: LedgerLock(fixture.ledger), client: client)
        }
    }

    @Test func aFetchCutAfterItsFirstPageResumesFromTheSecond() async throws {
        let world = try World(now: "2025-06-15T00:00:00Z")
        let (fixture, state, simulator, original) = (world.fixture, world.state, world.simulator, world.original)
        // Five notifications about alice's subscription at Apple.
        try state.setAutoRenew(originalTransactionId: original, enabled: false, date: LedgerFixture.date("2025-05-10T00:00:00Z"))
        try state.setAutoRenew(originalTransactionId: original, enabled: true, date: LedgerFixture.date("2025-05-11T00:00:00Z"))
        try state.renewAndNotify(originalTransactionId: original, purchaseDate: LedgerFixture.date("2025-06-01T00:00:00Z"),
                                 expiresDate: LedgerFixture.date("2025-07-01T00:00:00Z"))
        try state.failRenewal(originalTransactionId: original, date: LedgerFixture.date("2025-07-01T00:00:00Z"))
        try state.expire(originalTransactionId: original, because: .billingRetry, date: LedgerFixture.date("2025-07-20T00:00:00Z"))
        #expect(state.notifications.count == 5)

        let start = LedgerFixture.date("2025-05-01T00:00:00Z"), end = LedgerFixture.date("2025-08-01T00:00:00Z")
        let cut = try world.actions(DropOne(URLSessionTransport(), failing: 2))
        // Awaited, never blocked on: a test that parks a cooperative thread can starve the others.
        var failure: Error?
        do {
            _ = try await cut.fetchNotificationHistory(start: start, end: end, environment: .production, operatorName: "mei")
        } catch {
            failure = error
        }
        #expect((failure as? AppStoreError)?.code == .connectionLost, "\(String(describing: failure))")
        let stopped = try #require(try fixture.ledger.notificationFetches().first)
        #expect(stopped.status == "running" && stopped.pages == 1 && stopped.seen == 2 && stopped.applied == 2 && stopped.nextToken != nil)
        simulator.faults.resetCounters()

        let whole = try world.actions(URLSessionTransport())
        let result = try await whole.fetchNotificationHistory(start: start, end: end, environment: .production, operatorName: "mei")
        #expect(simulator.faults.requestCount(pathPrefix: "/production/inApps/v1/notifications/history") == 2, "pages 2 and 3 only")
        #expect(result.fetch.fetchId == stopped.fetchId && result.fetch.status == "done")
        #expect(result.fetch.pages == 3 && result.fetch.seen == 5 && result.fetch.applied == 5 && result.problems.isEmpty)
        let state5 = try #require(try fixture.ledger.subscriptionState(original: original))
        #expect(SubscriptionStory.line(state5) == "expired 2025-07-01: billing retry failed since 2025-07-01", "\(SubscriptionStory.line(state5))")
        // Fetching the period again reads everything and applies nothing new.
        let again = try await whole.fetchNotificationHistory(start: start, end: end, environment: .production, operatorName: "mei")
        #expect(again.fetch.fetchId != stopped.fetchId && again.fetch.seen == 5 && again.fetch.applied == 0)
    }

    /// `notifications fetch --since` without `--until` ends "now", which is later at each run: the
    /// rerun after a kill resumes the unfinished fetch from the same start, over its own period.
    @Test func anOpenEndedFetchCutAfterItsFirstPageResumesWhenRunLater() async throws {
        let world = try World(now: "2025-08-15T00:00:00Z")
        let (fixture, state, simulator, original) = (world.fixture, world.state, world.simulator, world.original)
        for day in 10...14 {
            try state.setAutoRenew(originalTransactionId: original, enabled: day % 2 == 0, date: LedgerFixture.date("2025-05-\(day)T00:00:00Z"))
        }
        let start = LedgerFixture.date("2025-05-01T00:00:00Z")
        var failure: Error?
        do {
            _ = try await world.actions(DropOne(URLSessionTransport(), failing: 2))
                .fetchNotificationHistory(start: start, end: LedgerFixture.date("2025-08-01T00:00:00Z"), openEnded: true,
                                          environment: .production, operatorName: "mei")
        } catch {
            failure = error
        }
        #expect((failure as? AppStoreError)?.code == .connectionLost, "\(String(describing: failure))")
        let stopped = try #require(try fixture.ledger.notificationFetches().first)
        #expect(stopped.status == "running" && stopped.pages == 1)
        simulator.faults.resetCounters()
        // Run again a day later, still without an end: the same fetch goes on from page 2.
        let later = try await world.actions(URLSessionTransport())
            .fetchNotificationHistory(start: start, end: LedgerFixture.date("2025-08-02T00:00:00Z"), openEnded: true,
                                      environment: .production, operatorName: "mei")
        #expect(later.fetch.fetchId == stopped.fetchId && later.fetch.status == "done", "\(later.fetch)")
        #expect(later.fetch.endDate == LedgerFixture.date("2025-08-01T00:00:00Z"), "over the period it was started with")
        #expect(simulator.faults.requestCount(pathPrefix: "/production/inApps/v1/notifications/history") == 2, "pages 2 and 3 only")
        #expect(later.fetch.seen == 5 && later.fetch.applied == 5)
        #expect(try fixture.ledger.notificationFetches().allSatisfy { $0.status == "done" }, "nothing left running")
    }
}
