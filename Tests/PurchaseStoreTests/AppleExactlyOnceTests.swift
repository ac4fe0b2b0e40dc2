import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// Acting at Apple, two operators at the same moment, 50 times on each backend, against the
/// simulator over loopback: Apple is asked once, the ledger records it once, and the audit
/// says who did it.
@Suite("Two operators acting at Apple at once: asked once, both backends", .serialized)
struct AppleExactlyOnceTests {
    static let rounds = 50
    static let now = "2025-06-15T00:00:00Z"

    /// The simulator on loopback and a client for it per operator.
    final class Apple: @unchecked Sendable {
        let state: SimulatorState
        let simulator: AppStoreSimulator
        let key: PrivateKey
        let trust: TrustStore

        init(_ f: BackendLedgerFixture) throws {
            state = SimulatorState(authority: f.authority, bundleId: "com.example.app")
            key = try PrivateKey.generateP256()
            state.serverAPIKey = ServerAPIKey(publicKey: try key.publicKey(), keyId: "KEY1", issuerId: "ISSUER")
            simulator = try AppStoreSimulator(state: state, clock: { LedgerFixture.date(AppleExactlyOnceTests.now) })
            trust = f.authority.trustStore()
            try simulator.start()
        }

        deinit { simulator.stop() }

        func actions(_ ledger: PurchaseLedger) throws -> AppleActions {
            let credentials = try ServerAPICredentials(keyId: "KEY1", issuerId: "ISSUER", bundleId: "com.example.app", privateKey: key)
            let client = try AppStoreServerAPIClient(endpoints: .rooted(at: simulator.baseURL), transport: URLSessionTransport(),
                                                     credentials: credentials, verifier: ReceiptVerifier(trust: trust),
                                                     retry: RetryPolicy(maxAttempts: 1), clock: { LedgerFixture.date(AppleExactlyOnceTests.now) })
            return AppleActions(ledger: LedgerLock(ledger), client: client)
        }

        /// A monthly subscription bought on June 1st (its own Apple account), in the ledger for `customer`.
        func subscriber(_ f: BackendLedgerFixture, _ customer: String) throws -> String {
            let minted = try state.mintUnifiedReceipt(environment: .production, purchases: [
                SimulatedPurchase(productId: "com.example.pro.monthly", type: .autoRenewable, purchaseDate: LedgerFixture.date("2025-06-01T00:00:00Z"),
                                  expiresDate: LedgerFixture.date("2025-07-01T00:00:00Z")),
            ], originalAppVersion: "50")
            _ = try f.ledger.importArtefact(Array(minted.base64.utf8), customer: customer, source: "test", operatorName: "mei")
            return try #require(minted.transactions.first?.transactionId)
        }
    }

    /// Runs an async action to its end, the calling thread waiting for it. The action runs on a
    /// queue of its own (`QueueTaskExecutor`), never on the cooperative pool: a test body waiting
    /// here, or for threads waiting here, holds a pool thread, and with two cores two such tests at
    /// once held both while their actions waited for one (the whole run hung).
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox<T>()
        Task(executorPreference: QueueTaskExecutor()) {
            do { result.value = .success(try await body()) } catch { result.value = .failure(error) }
            done.signal()
        }
        done.wait()
        guard let value = result.value else { throw StoreError(.sql, "the action ended without a result") }
        return try value.get()
    }

    static func auditCount(_ f: BackendLedgerFixture, _ action: String, containing text: String) throws -> Int {
        try f.database.query("SELECT details FROM audit_log WHERE action = ?", [.text(action)])
            .filter { ($0.string("details") ?? "").contains(text) }.count
    }

    @Test(arguments: TestBackend.available)
    func twoExtensionsOfOneSubscriptionExtendItOnceAtApple(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: Self.now)
        let apple = try Apple(f)
        let race = try TwoWritersRace(f)
        let actions = try race.operators.map(apple.actions)
        for round in 0..<Self.rounds {
            let original = try apple.subscriber(f, "ext-\(round)")
            // Both looked at the same preview, then confirm at the same moment. Each asks for a
            // different number of days, so the ledger shows whose was applied.
            let plans = try race.operators.enumerated().map { worker, ledger in
                try ledger.planRenewalExtension(original: original, days: 3 + worker, reasonCode: .customerSatisfaction)
            }
            let outcomes = race.atOnce { _, worker in
                _ = try Self.blocking { try await actions[worker].extendRenewal(plans[worker], reason: "outage \(worker)", operatorName: "op\(worker)") }
            }
            #expect(outcomes.sorted() == ["alreadyExists", "done"], "round \(round): \(outcomes)")
            let winner = try #require(outcomes.firstIndex(of: "done"))
            let atApple = apple.state.extensions(originalTransactionId: original)
            #expect(atApple.count == 1 && atApple.first?.days == Int64(3 + winner), "round \(round): Apple extended \(atApple.map(\.days))")
            let stored = try f.database.query("SELECT days, outcome, operator FROM renewal_extensions WHERE original_transaction_id = ?", [.text(original)])
            #expect(stored.count == 1 && stored.first?.string("outcome") == "extended" && stored.first?.string("operator") == "op\(winner)",
                    "round \(round): \(stored)")
            #expect(try Self.auditCount(f, "apple-extend", containing: original) == 1, "round \(round)")
            // The ledger read the extended subscription back from Apple.
            #expect(try f.ledger.subscriptionState(original: original)?.expiresDate == atApple.first?.effectiveDate, "round \(round)")
        }
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    @Test(arguments: TestBackend.available)
    func twoTokenChangesOfOnePurchaseAreAskedOnce(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: Self.now)
        let apple = try Apple(f)
        let race = try TwoWritersRace(f)
        let actions = try race.operators.map(apple.actions)
        for round in 0..<Self.rounds {
            let original = try apple.subscriber(f, "tok-\(round)")
            let tokens = [UUID().uuidString.lowercased(), UUID().uuidString.lowercased()]
            let plans = try race.operators.enumerated().map { worker, ledger in try ledger.planAppAccountToken(original: original, token: tokens[worker]) }
            let outcomes = race.atOnce { _, worker in
                try Self.blocking { try await actions[worker].setAppAccountToken(plans[worker], reason: "ticket \(worker)", operatorName: "op\(worker)") }
            }
            #expect(outcomes.sorted() == ["alreadyExists", "done"], "round \(round): \(outcomes)")
            let winner = try #require(outcomes.firstIndex(of: "done"))
            #expect(apple.state.transaction(original)?.appAccountToken == tokens[winner], "round \(round)")
            #expect(try f.ledger.transaction(original)?.appAccountToken == tokens[winner], "round \(round)")
            #expect(try Self.auditCount(f, "apple-set-token", containing: original) == 1, "round \(round)")
        }
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    @Test(arguments: TestBackend.available)
    func twoConsumptionSendsForOneRequestAreSentOnce(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: Self.now)
        let apple = try Apple(f)
        let race = try TwoWritersRace(f)
        let actions = try race.operators.map(apple.actions)
        for round in 0..<Self.rounds {
            let original = try apple.subscriber(f, "cons-\(round)")
            let asked = try apple.state.requestConsumption(transactionId: original, date: LedgerFixture.date("2025-06-14T00:00:00Z"))
            _ = try f.ledger.applyNotification(Array(asked.body.utf8), operatorName: "apple")
            let request = try #require(try f.ledger.refundRequests().first { $0.transactionId == original })
            var draft = try f.ledger.consumptionDraft(request.requestId).information
            draft.customerConsented = true
            let information = draft
            let outcomes = race.atOnce { _, worker in
                _ = try Self.blocking { try await actions[worker].sendConsumption(requestId: request.requestId, information, reason: "ticket \(worker)",
                                                                                 operatorName: "op\(worker)") }
            }
            #expect(outcomes.sorted() == ["alreadyExists", "done"] || outcomes.sorted() == ["done", "invalidInput"], "round \(round): \(outcomes)")
            #expect(apple.state.consumptionRecords(transactionId: original).count == 1, "round \(round): Apple was sent it once")
            #expect(try Self.auditCount(f, "apple-consumption", containing: original) == 1, "round \(round)")
        }
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    @Test(arguments: TestBackend.available)
    func twoMassExtensionsOfOneProductAreAskedOnce(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: Self.now)
        let apple = try Apple(f)
        let race = try TwoWritersRace(f)
        let actions = try race.operators.map(apple.actions)
        _ = try apple.subscriber(f, "mass-subscriber")
        for round in 0..<Self.rounds {
            let plans = try race.operators.enumerated().map { worker, ledger in
                try ledger.planMassExtension(productId: "com.example.pro.monthly", days: 1 + worker, reasonCode: .serviceIssueOrOutage,
                                             storefronts: [], environment: .production)
            }
            let outcomes = race.atOnce { _, worker in
                _ = try Self.blocking { try await actions[worker].massExtend(plans[worker], reason: "outage \(worker)", operatorName: "op\(worker)") }
            }
            #expect(outcomes.sorted() == ["alreadyExists", "done"], "round \(round): \(outcomes)")
            #expect(apple.state.snapshot().massExtensions.count == round + 1, "round \(round): Apple was asked once")
            #expect(try f.count("SELECT count(*) AS n FROM mass_extensions") == Int64(round + 1), "round \(round)")
        }
        #expect(try f.count("SELECT count(*) AS n FROM audit_log WHERE action = 'apple-mass-extend'") == Int64(Self.rounds))
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    /// Two operators finish one delivered transaction at the same moment: the second is refused
    /// while the first is at Apple, or comes after it and is answered from the ledger; either way
    /// Apple is asked once, the ledger records one finish (the winner's) and the audit one entry.
    @Test(arguments: TestBackend.available)
    func twoFinishesOfOneTransactionAskAppleOnceAndRecordOnce(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: Self.now)
        let apple = try Apple(f)
        let race = try TwoWritersRace(f)
        let actions = try race.operators.map(apple.actions)
        for round in 0..<Self.rounds {
            let id = try apple.subscriber(f, "fin-\(round)")
            let answers = OutcomeSlots(race.operators.count)
            let outcomes = race.atOnce { _, worker in
                let outcome = try Self.blocking { try await actions[worker].finishTransaction(id, reason: "delivered \(worker)", operatorName: "op\(worker)") }
                if case .finished = outcome { answers.set(worker, "finished") } else { answers.set(worker, "already") }
            }
            #expect(outcomes.sorted() == ["alreadyExists", "done"] || outcomes == ["done", "done"], "round \(round): \(outcomes)")
            #expect(answers.values.filter { $0 == "finished" }.count == 1, "round \(round): \(answers.values)")
            let winner = try #require(answers.values.firstIndex(of: "finished"))
            #expect(apple.state.finish(transactionId: id)?.requests == 1, "round \(round): Apple was asked once")
            let row = try #require(try f.database.queryFirst("SELECT finished_at, finished_by FROM transactions WHERE transaction_id = ?", [.text(id)]))
            #expect(row.date("finished_at") == LedgerFixture.date(Self.now) && row.string("finished_by") == "op\(winner)", "round \(round)")
            #expect(try Self.auditCount(f, "apple-finish-transaction", containing: id) == 1, "round \(round)")
        }
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    /// The extended subscription is the one read back, not the customer's first.
    @Test(arguments: TestBackend.available)
    func theReadBackAfterAnExtensionIsTheExtendedSubscription(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: Self.now)
        let apple = try Apple(f)
        let first = try apple.subscriber(f, "two-subs")
        let second = try apple.subscriber(f, "two-subs")
        let extended = max(first, second)  // not the lowest id, which the customer's refresh asks about
        let actions = try apple.actions(f.ledger)
        let plan = try f.ledger.planRenewalExtension(original: extended, days: 7, reasonCode: .serviceIssueOrOutage)
        let outcome = try Self.blocking { try await actions.extendRenewal(plan, reason: "outage", operatorName: "mei") }
        #expect(outcome.refreshProblem == nil, "\(outcome.refreshProblem ?? "")")
        let atApple = try #require(apple.state.extensions(originalTransactionId: extended).first)
        #expect(outcome.state?.originalTransactionId == extended && outcome.state?.expiresDate == atApple.effectiveDate)
        #expect(try f.ledger.subscriptionState(original: extended)?.expiresDate == atApple.effectiveDate,
                "the ledger keeps the extended subscription's new expiry")
    }
}

/// A result handed from a task to the thread waiting for it.
final class ResultBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Result<T, Error>?
    var value: Result<T, Error>? {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}

/// Runs a task's jobs on a serial dispatch queue of its own, outside the cooperative pool.
final class QueueTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let queue = DispatchQueue(label: "receiptdesk.tests.blocking")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
