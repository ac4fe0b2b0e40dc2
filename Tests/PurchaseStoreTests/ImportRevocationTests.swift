import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// Imports and notifications under `appStore.revocation`: the verdict stored with the receipt
/// says whether its chain was checked, when and by whom (the simulator's OCSP responder on
/// loopback), a revoked chain grants nothing, and an unreachable responder never fails open.
@Suite(.serialized) struct ImportRevocationTests {
    final class World {
        let fixture: LedgerFixture
        let simulator: AppStoreSimulator

        init(mode: RevocationPolicy.Mode, responder: URL? = nil) throws {
            fixture = try LedgerFixture()
            simulator = try AppStoreSimulator(state: SimulatorState(authority: fixture.authority))
            try simulator.start()
            let policy = RevocationPolicy(mode: mode, responderURL: responder ?? simulator.ocspURL, timeoutSeconds: 2)
            let checker = RevocationChecker(policy: policy, transport: URLSessionTransport(), trust: fixture.authority.trustStore())
            fixture.ledger.revocation = BlockingRevocationSource(checker: checker)
        }

        deinit { simulator.stop() }

        func storedRevocation(_ receiptId: Int64?) throws -> [String: Any]? {
            let row = try fixture.database.queryFirst("SELECT decoded_json FROM receipts WHERE receipt_id = ?", [.integer(receiptId ?? -1)])
            let json = try JSONSerialization.jsonObject(with: Data((row?.string("decoded_json") ?? "{}").utf8)) as? [String: Any]
            return (json?["verdict"] as? [String: Any])?["revocation"] as? [String: Any]
        }

        func pro(_ customer: String) throws -> Bool {
            try fixture.ledger.entitlements(customer, now: fixture.now).first { $0.name == "pro" }?.isActive ?? false
        }
    }

    @Test func aGoodChainIsCheckedOnceForABatchAndSaysSoInTheStoredVerdict() throws {
        let world = try World(mode: .require)
        let items = try (1...5).map { n in
            PurchaseLedger.ImportItem(bytes: try world.fixture.jws("200000000000010\(n)"), customer: "ada", source: "test")
        }
        let results = try world.fixture.ledger.importBatch(items, operatorName: "mei")
        for result in results {
            let imported = try result.get()
            #expect(imported.verdict.isValid, "\(imported.verdict.reason)")
            #expect(imported.verdict.revocation?.state == .good)
            let stored = try #require(try world.storedRevocation(imported.receiptId))
            #expect(stored["checked"] as? Bool == true && stored["outcome"] as? String == "good", "\(stored)")
            #expect((stored["responder"] as? String) == world.simulator.ocspURL.absoluteString, "\(stored)")
        }
        // Leaf and intermediate: two questions for five receipts of one chain.
        #expect(world.simulator.ocsp.requestCount == 2)
        #expect(try world.pro("ada"))
    }

    @Test func aRevokedLeafIsStoredInvalidAndGrantsNothing() throws {
        let world = try World(mode: .prefer)
        world.simulator.ocsp.revoke(world.fixture.authority.ecLeaf, at: LedgerFixture.date("2025-03-01T00:00:00Z"), reason: 1)
        let result = try world.fixture.ledger.importArtefact(try world.fixture.jws("2000000000000201"), customer: "bo",
                                                               source: "test", operatorName: "mei")
        #expect(result.verdict.status == .invalid)
        #expect(result.verdict.reason.contains("was revoked at 2025-03-01T00:00:00Z (keyCompromise)"), "\(result.verdict.reason)")
        #expect(result.notes.contains { $0.contains("stored and flagged, grants nothing") }, "\(result.notes)")
        #expect(try !world.pro("bo"))
        let stored = try #require(try world.storedRevocation(result.receiptId))
        #expect(stored["outcome"] as? String == "revoked", "\(stored)")
    }

    @Test func anUnreachableResponderIsLoudUnderPreferAndUnverifiableUnderRequire() throws {
        let dead = try #require(URL(string: "http://127.0.0.1:9/ocsp"))
        let preferring = try World(mode: .prefer, responder: dead)
        let kept = try preferring.fixture.ledger.importArtefact(try preferring.fixture.jws("2000000000000301"), customer: "cy",
                                                                  source: "test", operatorName: "mei")
        #expect(kept.verdict.isValid)
        guard case .notChecked(let why)? = kept.verdict.revocation?.state else {
            Issue.record("expected not checked, got \(String(describing: kept.verdict.revocation))")
            return
        }
        #expect(why.contains("did not answer"), "\(why)")
        #expect(try preferring.storedRevocation(kept.receiptId)?["checked"] as? Bool == false)

        let requiring = try World(mode: .require, responder: dead)
        let refused = try requiring.fixture.ledger.importArtefact(try requiring.fixture.jws("2000000000000302"), customer: "cy",
                                                                   source: "test", operatorName: "mei")
        #expect(refused.verdict.status == .unverifiable)
        #expect(refused.verdict.reason.hasPrefix("revocation is required but could not be checked"), "\(refused.verdict.reason)")
        #expect(try !requiring.pro("cy"))
    }

    @Test func aNotificationSignedByARevokedChainIsNotApplied() throws {
        let world = try World(mode: .require)
        world.simulator.ocsp.revoke(world.fixture.authority.ecLeaf, at: LedgerFixture.date("2025-03-01T00:00:00Z"), reason: 1)
        let state = SimulatorState(authority: world.fixture.authority, bundleId: "com.example.app")
        let purchase = SimulatedPurchase(productId: "com.example.pro.monthly", type: .autoRenewable,
                                         purchaseDate: LedgerFixture.date("2025-05-01T00:00:00Z"), expiresDate: LedgerFixture.date("2025-07-01T00:00:00Z"))
        let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [purchase], account: "di")
        let id = try #require(receipt.transactions.first?.transactionId)
        let minted = try state.mintNotification(type: "REFUND", transactionId: id, signedDate: LedgerFixture.date("2025-05-20T00:00:00Z"))
        #expect(throws: StoreError.self) {
            _ = try world.fixture.ledger.applyNotification(Array(minted.body.utf8), operatorName: "apple")
        }
        let applied = try world.fixture.database.queryFirst("SELECT COUNT(*) AS n FROM notifications", [])?.int("n")
        #expect(applied == 0)
    }
}
