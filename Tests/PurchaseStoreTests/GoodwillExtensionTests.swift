import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// Goodwill at Apple for a list of customers (`planRenewalExtensionBatch`, `extendBatch`), on both
/// backends against the simulator over loopback: who gets what and who is left out and why, a
/// refusal by Apple, and two operators running the same goodwill at once, many times: every
/// subscription asked of Apple once, extended once, recorded once.
@Suite("Goodwill extensions at Apple for many: both backends", .serialized)
struct GoodwillExtensionTests {
    typealias Apple = AppleExactlyOnceTests.Apple
    static let now = AppleExactlyOnceTests.now

    /// Counts the Extend a Subscription Renewal Date requests sent, per original transaction id.
    final class CountingTransport: HTTPTransport, @unchecked Sendable {
        private let inner = URLSessionTransport()
        private let lock = NSLock()
        private var counts: [String: Int] = [:]

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let path = request.url.path
            if request.method == "PUT", path.contains("/subscriptions/extend/") { count(request.url.lastPathComponent) }
            return try await inner.send(request)
        }

        private func count(_ original: String) { lock.lock(); counts[original, default: 0] += 1; lock.unlock() }

        func extendRequests(_ original: String) -> Int { lock.lock(); defer { lock.unlock() }; return counts[original] ?? 0 }
    }

    static func actions(_ apple: Apple, _ ledger: PurchaseLedger, _ transport: CountingTransport) throws -> AppleActions {
        let credentials = try ServerAPICredentials(keyId: "KEY1", issuerId: "ISSUER", bundleId: "com.example.app", privateKey: apple.key)
        let client = try AppStoreServerAPIClient(endpoints: .rooted(at: apple.simulator.baseURL), transport: transport, credentials: credentials,
                                                 verifier: ReceiptVerifier(trust: apple.trust), retry: RetryPolicy(maxAttempts: 1),
                                                 clock: { LedgerFixture.date(GoodwillExtensionTests.now) })
        return AppleActions(ledger: LedgerLock(ledger), client: client)
    }

    /// A monthly subscription that ran out on June 1st, in the ledger for `customer`.
    static func lapsed(_ apple: Apple, _ f: BackendLedgerFixture, _ customer: String) throws -> String {
        let minted = try apple.state.mintUnifiedReceipt(environment: .production, purchases: [
            SimulatedPurchase(productId: "com.example.pro.monthly", type: .autoRenewable, purchaseDate: LedgerFixture.date("2025-05-01T00:00:00Z"),
                              expiresDate: LedgerFixture.date("2025-06-01T00:00:00Z")),
        ], originalAppVersion: "50")
        _ = try f.ledger.importArtefact(Array(minted.base64.utf8), customer: customer, source: "test", operatorName: "mei")
        return try #require(minted.transactions.first?.transactionId)
    }

    static func outcome(_ batch: RenewalExtensionBatch, _ original: String) -> RenewalExtensionBatch.Outcome? {
        batch.lines.first { $0.originalTransactionId == original }?.outcome
    }

    @Test(arguments: TestBackend.available)
    func previewThenExtendSaysWhoGotWhatAndASecondRunAsksNothing(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: Self.now)
        let apple = try Apple(f)
        let transport = CountingTransport()
        let actions = try Self.actions(apple, f.ledger, transport)
        let ann = try apple.subscriber(f, "gw-ann")
        let ben1 = try apple.subscriber(f, "gw-ben"), ben2 = try apple.subscriber(f, "gw-ben")
        let old = try Self.lapsed(apple, f, "gw-old")
        _ = try f.ledger.addCustomer("gw-none", isTester: false, operatorName: "mei")
        let twice = try apple.subscriber(f, "gw-twice")
        for days in [1, 2] {
            let plan = try f.ledger.planRenewalExtension(original: twice, days: days, reasonCode: .customerSatisfaction)
            _ = try AppleExactlyOnceTests.blocking { try await actions.extendRenewal(plan, reason: "earlier \(days)", operatorName: "mei") }
        }
        let customers = ["gw-ann", "gw-ben", "gw-old", "gw-none", "gw-zed", "gw-twice"]
        let preview = try f.ledger.planRenewalExtensionBatch(customers: customers, days: 5, reasonCode: .serviceIssueOrOutage, reason: "Outage 3 June")
        #expect(preview.applied == false && preview.toExtend == 3, "\(preview.lines)")
        for original in [ann, ben1, ben2] {
            guard case .willExtend(let expires, false) = Self.outcome(preview, original) else { Issue.record("\(preview.lines)"); continue }
            #expect(expires == LedgerFixture.date("2025-07-01T00:00:00Z"))
        }
        guard case .skipped(let expired) = Self.outcome(preview, old) else { Issue.record("\(preview.lines)"); return }
        #expect(expired.contains("expired") && expired.contains("Apple extends only active subscriptions"), "\(expired)")
        guard case .skipped(let limit) = Self.outcome(preview, twice) else { Issue.record("\(preview.lines)"); return }
        #expect(limit.contains("already extended twice in the last 365 days"), "\(limit)")
        let none = preview.lines.filter { $0.originalTransactionId == nil }.map { "\($0.customerId) \($0.outcome)" }
        #expect(none == ["gw-none skipped(\"no auto-renewable subscription in the ledger\")", "gw-zed skipped(\"not in the ledger\")"], "\(none)")
        #expect(try f.count("SELECT count(*) AS n FROM renewal_extensions") == 2, "the preview wrote nothing")

        let done = try AppleExactlyOnceTests.blocking { try await actions.extendBatch(preview, operatorName: "op1") }
        #expect(done.applied && done.extendedNow == 3 && done.refusedOrFailed == 0, "\(done.lines)")
        for original in [ann, ben1, ben2] {
            let atApple = apple.state.extensions(originalTransactionId: original)
            #expect(atApple.count == 1 && atApple.first?.days == 5 && transport.extendRequests(original) == 1, "\(original): \(atApple)")
            #expect(Self.outcome(done, original) == .extended(to: atApple.first?.effectiveDate))
            #expect(try f.ledger.subscriptionState(original: original)?.expiresDate == atApple.first?.effectiveDate, "read back from Apple")
            #expect(try AppleExactlyOnceTests.auditCount(f, "apple-extend", containing: done.batchId) >= 1)
        }
        #expect(transport.extendRequests(old) == 0 && transport.extendRequests(twice) == 2, "nothing asked for the skipped")
        #expect(try f.count("SELECT count(*) AS n FROM audit_log WHERE action = 'apple-extend-batch'") == 1)
        #expect(try AppleExactlyOnceTests.auditCount(f, "apple-extend", containing: done.batchId) == 3)

        // Run again (the same reason, other spacing and case, other days): already extended, nothing asked.
        let again = try f.ledger.planRenewalExtensionBatch(customers: customers, days: 9, reasonCode: .serviceIssueOrOutage, reason: "  outage 3   june")
        #expect(again.batchId == done.batchId && again.toExtend == 0, "\(again.lines)")
        guard case .alreadyExtended(let to, "op1", _) = Self.outcome(again, ann) else { Issue.record("\(again.lines)"); return }
        #expect(to == apple.state.extensions(originalTransactionId: ann).first?.effectiveDate)
        let rerun = try AppleExactlyOnceTests.blocking { try await actions.extendBatch(again, operatorName: "op2") }
        #expect(rerun.extendedNow == 0 && [ann, ben1, ben2].allSatisfy { transport.extendRequests($0) == 1 }, "\(rerun.lines)")
        #expect(try f.count("SELECT count(*) AS n FROM audit_log WHERE action = 'apple-extend-batch'") == 2)
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    /// The ledger knows nothing against it, but Apple refuses (extended twice there already): the
    /// refusal is recorded with Apple's error, said in the report, and a second run asks nothing.
    @Test(arguments: TestBackend.available)
    func aRefusalByAppleIsRecordedAndReported(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: Self.now)
        let apple = try Apple(f)
        let transport = CountingTransport()
        let actions = try Self.actions(apple, f.ledger, transport)
        let fine = try apple.subscriber(f, "gw-fine")
        let full = try apple.subscriber(f, "gw-full")
        for day in ["2025-06-10T00:00:00Z", "2025-06-12T00:00:00Z"] {
            try apple.state.extendRenewalDate(originalTransactionId: full, days: 1, date: LedgerFixture.date(day))
        }
        let preview = try f.ledger.planRenewalExtensionBatch(customers: ["gw-fine", "gw-full"], days: 3, reasonCode: .other, reason: "sorry")
        #expect(preview.toExtend == 2)
        let done = try AppleExactlyOnceTests.blocking { try await actions.extendBatch(preview, operatorName: "mei") }
        guard case .refused(let why) = Self.outcome(done, full) else { Issue.record("\(done.lines)"); return }
        #expect(why.contains("4030005"), "\(why)")
        #expect(Self.outcome(done, fine) == .extended(to: apple.state.extensions(originalTransactionId: fine).first?.effectiveDate))
        let stored = try f.database.queryFirst("SELECT outcome FROM renewal_extensions WHERE original_transaction_id = ?", [.text(full)])
        #expect(stored?.string("outcome")?.hasPrefix("refused: 4030005") == true, "\(String(describing: stored))")
        let again = try f.ledger.planRenewalExtensionBatch(customers: ["gw-fine", "gw-full"], days: 3, reasonCode: .other, reason: "sorry")
        guard case .refused(let before) = Self.outcome(again, full) else { Issue.record("\(again.lines)"); return }
        #expect(before.contains("when this goodwill asked on 2025-06-15"), "\(before)")
        _ = try AppleExactlyOnceTests.blocking { try await actions.extendBatch(again, operatorName: "mei") }
        #expect(transport.extendRequests(full) == 1 && transport.extendRequests(fine) == 1)
    }

    /// Two operators run the same goodwill over the same list at the same moment, many times:
    /// each subscription is asked of Apple once and extended once; one run reports it extended,
    /// the other already extended (or held by the other operator right now).
    @Test(arguments: TestBackend.available)
    func twoOperatorsRunningOneGoodwillAtOnceExtendEachSubscriptionOnce(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: Self.now)
        let apple = try Apple(f)
        let race = try TwoWritersRace(f)
        let transport = CountingTransport()
        let actions = try race.operators.map { try Self.actions(apple, $0, transport) }
        for round in 0..<25 {
            let customers = ["race-\(round)-a", "race-\(round)-b", "race-\(round)-c"]
            let originals = [try apple.subscriber(f, customers[0]), try apple.subscriber(f, customers[1]), try apple.subscriber(f, customers[1]),
                             try apple.subscriber(f, customers[2])]
            let reason = "outage round \(round)"
            let previews = try race.operators.map {
                try $0.planRenewalExtensionBatch(customers: customers, days: 2, reasonCode: .serviceIssueOrOutage, reason: reason)
            }
            let results = GoodwillRuns()
            let outcomes = race.atOnce { _, worker in
                let batch = try AppleExactlyOnceTests.blocking { try await actions[worker].extendBatch(previews[worker], operatorName: "op\(worker)") }
                results.set(worker, batch)
            }
            #expect(outcomes == ["done", "done"], "round \(round): \(outcomes)")
            let runs = results.all
            try #require(runs.count == 2)
            for original in originals {
                #expect(transport.extendRequests(original) == 1, "round \(round): \(original) asked \(transport.extendRequests(original)) times")
                #expect(apple.state.extensions(originalTransactionId: original).count == 1, "round \(round)")
                let rows = try f.database.query("SELECT outcome FROM renewal_extensions WHERE original_transaction_id = ?", [.text(original)])
                #expect(rows.map { $0.string("outcome") } == ["extended"], "round \(round): \(rows)")
                #expect(try AppleExactlyOnceTests.auditCount(f, "apple-extend", containing: original) == 1, "round \(round)")
                let said = runs.compactMap { Self.outcome($0, original) }
                let extended = said.filter { if case .extended = $0 { return true } else { return false } }.count
                let other = said.filter {
                    switch $0 {
                    case .alreadyExtended: return true
                    case .skipped(let why): return why.contains("another operator")
                    default: return false
                    }
                }.count
                #expect(extended == 1 && other == 1, "round \(round): \(said)")
            }
        }
        #expect(try f.count("SELECT count(*) AS n FROM audit_log WHERE action = 'apple-extend-batch'") == 50)
        #expect(try AuditLog.verify(f.database).isIntact)
    }
}

/// The two runs' results, set from their threads.
final class GoodwillRuns: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int: RenewalExtensionBatch] = [:]
    func set(_ index: Int, _ batch: RenewalExtensionBatch) { lock.lock(); values[index] = batch; lock.unlock() }
    var all: [RenewalExtensionBatch] { lock.lock(); defer { lock.unlock() }; return values.keys.sorted().compactMap { values[$0] } }
}
