import Foundation
import PurchaseStore
import AppStoreAPI
import ReceiptCore
import StoreSimulator
import Testing

/// Re-verification over real HTTP on loopback against the StoreSimulator.
@Suite("Re-verification against the simulator on loopback", .serialized)
struct ReverifyTests {
    /// A ledger, a simulator sharing its test CA, and a reverifier wired to it.
    final class Harness {
        let fixture: LedgerFixture
        let state: SimulatorState
        let simulator: AppStoreSimulator
        var service: AppleService

        init(retry: RetryPolicy = RetryPolicy(maxAttempts: 3, base: .milliseconds(5), cap: .milliseconds(20)),
             timeout: Double = 30, serverAPIKey: PrivateKey? = nil) throws {
            fixture = try LedgerFixture(now: "2025-06-15T00:00:00Z")
            state = SimulatorState(authority: fixture.authority, bundleId: "com.example.app")
            simulator = try AppStoreSimulator(state: state)
            try simulator.start()
            let endpoints = AppStoreEndpoints.rooted(at: simulator.baseURL)
            for url in [endpoints.verifyReceiptProduction, endpoints.serverAPISandbox] {
                precondition(url.host == "127.0.0.1", "tests reach nothing but loopback")
            }
            let transport = URLSessionTransport()
            let verify = try VerifyReceiptClient(endpoints: endpoints, transport: transport, sharedSecret: nil, retry: retry,
                                                 timeout: RequestTimeout.clamped(seconds: timeout))
            var api: AppStoreServerAPIClient?
            if let serverAPIKey {
                let credentials = try ServerAPICredentials(keyId: "KEY1", issuerId: "ISSUER", bundleId: "com.example.app", privateKey: serverAPIKey)
                api = try AppStoreServerAPIClient(endpoints: endpoints, transport: transport, credentials: credentials,
                                                  verifier: ReceiptVerifier(trust: fixture.authority.trustStore()), retry: retry,
                                                  timeout: RequestTimeout.clamped(seconds: timeout), clock: { Date() })
            }
            service = AppleService(api: .verifyReceipt, verifyReceipt: verify, serverAPI: api, label: "simulator")
        }

        deinit { simulator.stop() }

        var reverifier: Reverifier { Reverifier(lock: LedgerLock(fixture.ledger), service: service, operatorName: "mei") }

        /// A receipt minted (and so known) by the simulator, imported for `customer`.
        func importedReceipt(_ customer: String, environment: SimulatorEnvironment = .production, product: String = "com.example.pro.monthly",
                             bought: String = "2025-05-01T00:00:00Z", expires: String? = "2025-06-01T00:00:00Z") throws -> (Int64, MintedReceipt) {
            let minted = try state.mintUnifiedReceipt(environment: environment, purchases: [
                SimulatedPurchase(productId: product, type: expires == nil ? .nonConsumable : .autoRenewable,
                                  purchaseDate: LedgerFixture.date(bought), expiresDate: expires.map(LedgerFixture.date)),
            ], account: customer, originalAppVersion: "50")
            let result = try fixture.ledger.importArtefact(Array(minted.base64.utf8), customer: customer, source: "test", operatorName: "mei")
            return (result.receiptId ?? -1, minted)
        }

        /// Awaited, never blocked on: a test that parks a thread of the shared pool (two on this
        /// machine) can starve the work it waits for.
        func run(_ id: Int64) async -> ReverifyReport {
            await reverifier.reverify(id)
        }
    }

    @Test func renewalsAndRefundsAppleKnowsAreAppliedOnceAndShownAsDifferences() async throws {
        let h = try Harness()
        let (id, minted) = try h.importedReceipt("alice")
        let original = try #require(minted.transactions.first?.transactionId)
        let renewed = try h.state.renew(originalTransactionId: original, purchaseDate: LedgerFixture.date("2025-06-01T00:00:00Z"),
                                        expiresDate: LedgerFixture.date("2025-07-01T00:00:00Z"))
        #expect(try h.fixture.ledger.entitlements("alice", now: h.fixture.now).first { $0.name == "pro" }?.isActive == false)
        let report = await h.run(id)
        #expect(report.outcome == .verified, "\(report.summary)")
        #expect(report.comparison?.onlyApple == [renewed.transactionId])
        #expect(report.changes.map(\.kind) == [.added])
        #expect(try h.fixture.ledger.entitlements("alice", now: h.fixture.now).first { $0.name == "pro" }?.isActive == true)
        // Apple refunds the renewal; a second run applies only that.
        _ = try h.state.refund(transactionId: renewed.transactionId, date: LedgerFixture.date("2025-06-10T00:00:00Z"))
        let second = await h.run(id)
        #expect(second.changes.map(\.kind) == [.refunded])
        #expect(try h.fixture.ledger.entitlements("alice", now: h.fixture.now).first { $0.name == "pro" }?.isActive == false)
        // A third run changes nothing but records its attempt.
        let before = try h.fixture.count("SELECT count(*) AS n FROM transactions WHERE revocation_date IS NOT NULL")
        let third = await h.run(id)
        #expect(third.changes.isEmpty)
        #expect(try h.fixture.count("SELECT count(*) AS n FROM transactions WHERE revocation_date IS NOT NULL") == before)
        #expect(try h.fixture.count("SELECT count(*) AS n FROM verification_attempts WHERE receipt_id = ?", [.integer(id)]) == 3)
    }

    @Test func sandboxReceiptOnProductionIsRedirectedAndRecorded() async throws {
        let h = try Harness()
        let (id, _) = try h.importedReceipt("reviewer", environment: .sandbox)
        let report = await h.run(id)
        #expect(report.outcome == .verified)
        #expect(report.appleEnvironment == .sandbox)
        #expect(report.attempts.map(\.result) == [.status(21007), .status(0)])
        let rows = try h.fixture.database.query("SELECT endpoint, status FROM verification_attempts WHERE receipt_id = ? ORDER BY attempt_id", [.integer(id)])
        #expect(rows.map { $0.string("status") } == ["21007", "0"])
        #expect(rows.first?.string("endpoint")?.hasSuffix("/production/verifyReceipt") == true)
    }

    @Test func retryableStatusesAndServerErrorsAreRetried() async throws {
        let h = try Harness()
        let (id, _) = try h.importedReceipt("bob")
        h.simulator.faults.inject(.status(21005, isRetryable: nil), pathPrefix: "/production/verifyReceipt", times: 1)
        h.simulator.faults.inject(.http(503), times: 1)
        let report = await h.run(id)
        #expect(report.outcome == .verified, "\(report.attempts)")
        #expect(report.attempts.count == 3)
        #expect(report.attempts.filter { $0.retry > 0 }.count == 2)
    }

    @Test func nonRetryableStatusIsNotRetriedAndChangesNothing() async throws {
        let h = try Harness()
        let (id, _) = try h.importedReceipt("carol")
        let before = try h.fixture.count("SELECT count(*) AS n FROM transactions")
        h.simulator.faults.inject(.status(21010, isRetryable: nil), pathPrefix: "/production/verifyReceipt", times: 5)
        let report = await h.run(id)
        #expect(report.outcome == .rejected)
        #expect(report.attempts.count == 1)
        #expect(report.summary.contains("21010"))
        #expect(try h.fixture.count("SELECT count(*) AS n FROM transactions") == before)
    }

    @Test func rateLimitHonoursRetryAfter() async throws {
        let h = try Harness()
        let (id, _) = try h.importedReceipt("dave")
        h.simulator.faults.inject(.rateLimited(retryAfter: "0"), times: 1)
        let report = await h.run(id)
        #expect(report.outcome == .verified)
        #expect(report.wasRateLimited)
    }

    @Test func timeoutsAndDroppedConnectionsAreRetriedThenReported() async throws {
        // 3 s: room for an instrumented build on a loaded machine to answer the third attempt; the
        // delayed one (10 s) is sure to miss it.
        let h = try Harness(timeout: 3)
        let (id, _) = try h.importedReceipt("erin")
        h.simulator.faults.inject(.drop, times: 1)
        h.simulator.faults.inject(.delay(10), times: 1)
        let recovered = await h.run(id)
        #expect(recovered.outcome == .verified, "\(recovered.attempts)")
        #expect(recovered.attempts.count == 3)
        h.simulator.faults.inject(.drop, times: 10)
        let failed = await h.run(id)
        #expect(failed.outcome == .failed)
        #expect(failed.isTemporary)
        #expect(try h.fixture.count("SELECT count(*) AS n FROM verification_attempts WHERE receipt_id = ? AND outcome LIKE 'gave up%'",
                                    [.integer(id)]) == 1)
    }

    @Test func forgedReceiptIsRejectedByApple() async throws {
        let h = try Harness()
        var builder = UnifiedReceiptBuilder(bundleId: "com.example.app", appVersion: "1", creationDate: LedgerFixture.date("2025-05-01T00:00:00Z"),
                                            purchases: [LedgerFixture.purchase("66001", "com.example.pro.lifetime", expires: nil, type: 0)])
        builder.receiptType = "Production"
        let forged = try builder.build(signedBy: try TestCertificateAuthority.shared(.impostor))
        let result = try h.fixture.ledger.importArtefact(Array(forged.base64.utf8), customer: "frank", source: "test", operatorName: "mei")
        #expect(result.verdict.status == .invalid)
        let report = await h.run(result.receiptId ?? -1)
        #expect(report.outcome == .rejected)
        #expect(report.summary.contains("21003"))
        #expect(try h.fixture.count("SELECT count(*) AS n FROM transactions") == 0)
    }

    @Test func anAnswerOfValidForALocallyInvalidReceiptIsAContradictionThatGrantsNothing() async throws {
        let h = try Harness()
        var builder = UnifiedReceiptBuilder(bundleId: "com.example.app", appVersion: "1", creationDate: LedgerFixture.date("2025-05-01T00:00:00Z"),
                                            purchases: [LedgerFixture.purchase("67001", "com.example.pro.lifetime", expires: nil, type: 0)])
        builder.receiptType = "Production"
        let forged = try builder.build(signedBy: try TestCertificateAuthority.shared(.impostor))
        let result = try h.fixture.ledger.importArtefact(Array(forged.base64.utf8), customer: "gina", source: "test", operatorName: "mei")
        #expect(result.verdict.status == .invalid)
        // Whatever the configured verifyReceipt URL points at says valid, with the purchase in its answer.
        h.simulator.faults.inject(.status(0, isRetryable: nil), pathPrefix: "/production/verifyReceipt", times: 1)
        let before = try h.fixture.dumpTables(["transactions", "entitlements", "orders"])
        let report = await h.run(result.receiptId ?? -1)
        #expect(report.outcome == .contradicted, "\(report.summary)")
        let line = try #require(report.contradiction)
        #expect(line.hasPrefix("CONTRADICTION: Apple says valid (status 0, production), but the local verdict is invalid"))
        #expect(line.contains("nothing applied or granted"))
        #expect(!line.contains("\n"))
        #expect(report.changes.isEmpty)
        #expect(try h.fixture.dumpTables(["transactions", "entitlements", "orders"]) == before)
        #expect(try h.fixture.ledger.entitlements("gina", now: h.fixture.now).allSatisfy { !$0.isActive })
        // Recorded on the receipt and in the audit log, and shown with the receipt.
        let stored = try #require(try Browser(h.fixture.database).receipt(result.receiptId ?? -1))
        #expect(stored.appleVerdict == "valid")
        #expect(stored.appleContradiction == line)
        #expect(try h.fixture.count("SELECT count(*) AS n FROM audit_log WHERE action = 'reverify' AND details LIKE '%CONTRADICTION%'") == 1)
    }

    @Test func aRefusalOfALocallyValidReceiptIsAContradictionThatRevokesNothing() async throws {
        let h = try Harness()
        let (id, _) = try h.importedReceipt("hana", bought: "2025-06-01T00:00:00Z", expires: "2025-07-01T00:00:00Z")
        #expect(try h.fixture.ledger.entitlements("hana", now: h.fixture.now).first { $0.name == "pro" }?.isActive == true)
        h.simulator.faults.inject(.status(21003, isRetryable: nil), pathPrefix: "/production/verifyReceipt", times: 1)
        let report = await h.run(id)
        #expect(report.outcome == .contradicted, "\(report.summary)")
        #expect(report.contradiction?.hasPrefix("CONTRADICTION: Apple says status 21003") == true)
        #expect(report.contradiction?.contains("but the local verdict is valid; nothing revoked") == true)
        #expect(try h.fixture.ledger.entitlements("hana", now: h.fixture.now).first { $0.name == "pro" }?.isActive == true)
        let stored = try #require(try Browser(h.fixture.database).receipt(id))
        #expect(stored.appleVerdict == "invalid")
        #expect(stored.appleContradiction == report.contradiction)
        // Apple agreeing again clears it.
        let agreed = await h.run(id)
        #expect(agreed.outcome == .verified)
        #expect(try Browser(h.fixture.database).receipt(id)?.appleContradiction == nil)
        #expect(try Browser(h.fixture.database).receipt(id)?.appleVerdict == "valid")
    }

    @Test func batchKeepsAtMostNInFlight() async throws {
        let h = try Harness()
        var collected: [Int64] = []
        for index in 0..<24 { collected.append(try h.importedReceipt("batch-\(index)").0) }
        let ids = collected
        h.simulator.faults.latency = 0.03
        h.simulator.faults.resetCounters()
        let reverifier = h.reverifier
        let reports = await reverifier.reverify(ids, concurrency: 4)
        #expect(reports.count == 24)
        #expect(reports.allSatisfy { $0.outcome == .verified })
        #expect(h.simulator.faults.maxInFlight <= 4)
        #expect(h.simulator.faults.maxInFlight >= 2, "requests did overlap")
    }

    @Test func interruptedBatchRerunAppliesNothingTwice() async throws {
        let h = try Harness()
        var collected: [Int64] = []
        for index in 0..<12 {
            let (id, minted) = try h.importedReceipt("cut-\(index)")
            collected.append(id)
            if let original = minted.transactions.first?.transactionId {
                _ = try h.state.renew(originalTransactionId: original, purchaseDate: LedgerFixture.date("2025-06-01T00:00:00Z"),
                                      expiresDate: LedgerFixture.date("2025-07-01T00:00:00Z"))
            }
        }
        let ids = collected
        h.simulator.faults.latency = 0.05
        let reverifier = h.reverifier
        let task = Task { await reverifier.reverify(ids, concurrency: 2) }
        try? await Task.sleep(for: .milliseconds(120))  // cancellation is the point of the test
        task.cancel()
        let partial = await task.value
        #expect(partial.count < ids.count, "the batch was interrupted")
        h.simulator.faults.latency = 0
        let rerun = await reverifier.reverify(ids, concurrency: 4)
        #expect(rerun.count == ids.count)
        #expect(try h.fixture.count("SELECT count(*) AS n FROM transactions") == 24, "12 originals + 12 renewals, none twice")
        let added = (partial + rerun).flatMap(\.changes).filter { $0.kind == .added }.count
        #expect(added == 12)
        #expect(try AuditLog.verify(h.fixture.database).isIntact)
    }

    @Test func serverAPIUnauthorizedSaysWhatToCheck() async throws {
        let h = try Harness(serverAPIKey: try PrivateKey.generateP256())
        // The simulator expects another key: every token is refused.
        h.state.serverAPIKey = ServerAPIKey(publicKey: try PrivateKey.generateP256().publicKey(), keyId: "KEY1", issuerId: "ISSUER")
        let minted = try h.state.mintSignedTransaction(environment: .production, purchase: SimulatedPurchase(
            productId: "com.example.pro.lifetime", type: .nonConsumable, purchaseDate: LedgerFixture.date("2025-05-01T00:00:00Z")),
            account: "gina", signedDate: LedgerFixture.date("2025-05-01T00:00:00Z"))
        let result = try h.fixture.ledger.importArtefact(Array(minted.jws.utf8), customer: "gina", source: "test", operatorName: "mei")
        let report = await h.run(result.receiptId ?? -1)
        #expect(report.outcome == .failed)
        #expect(report.summary.contains("clock"), "\(report.summary)")
    }

    @Test func serverAPIHistoryAppliesWhatAppleKnows() async throws {
        let key = try PrivateKey.generateP256()
        let h = try Harness(serverAPIKey: key)
        h.state.serverAPIKey = ServerAPIKey(publicKey: try key.publicKey(), keyId: "KEY1", issuerId: "ISSUER")
        let minted = try h.state.mintSignedTransaction(environment: .production, purchase: SimulatedPurchase(
            productId: "com.example.pro.monthly", type: .autoRenewable, purchaseDate: LedgerFixture.date("2025-05-01T00:00:00Z"),
            expiresDate: LedgerFixture.date("2025-06-01T00:00:00Z")), account: "hana", signedDate: LedgerFixture.date("2025-05-01T00:00:00Z"))
        let result = try h.fixture.ledger.importArtefact(Array(minted.jws.utf8), customer: "hana", source: "test", operatorName: "mei")
        _ = try h.state.renew(originalTransactionId: minted.transaction.transactionId, purchaseDate: LedgerFixture.date("2025-06-01T00:00:00Z"),
                              expiresDate: LedgerFixture.date("2025-07-01T00:00:00Z"))
        let report = await h.run(result.receiptId ?? -1)
        #expect(report.outcome == .verified, "\(report.summary)")
        #expect(report.changes.map(\.kind) == [.added])
    }
}
