import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// `applyNotifications`: many notifications in one write transaction (what `serve` commits
/// together) leave the ledger exactly as applying each in turn does, and one that fails is left
/// out alone.
@Suite("Notifications applied together")
struct NotificationBatchTests {
    static func day(_ n: Double) -> Date { LedgerFixture.date("2025-01-01T00:00:00Z").addingTimeInterval(n * 86_400) }

    /// A subscription's life as Apple tells it (renewals, a failed renewal, recovery, a refund),
    /// with one notification sent twice, and the receipt that started it.
    static func life(_ authority: TestCertificateAuthority) throws -> (receipt: [UInt8], bodies: [[UInt8]]) {
        let state = SimulatorState(authority: authority, bundleId: "com.example.app")
        let purchase = SimulatedPurchase(productId: "com.example.pro.monthly", type: .autoRenewable, purchaseDate: day(0), expiresDate: day(30))
        let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [purchase], account: "eva")
        let original = try #require(receipt.transactions.first?.transactionId)
        var notes: [MintedNotification] = []
        notes.append(try state.renewAndNotify(originalTransactionId: original, purchaseDate: day(30), expiresDate: day(60)))
        notes.append(try state.failRenewal(originalTransactionId: original, date: day(60), gracePeriodExpiresDate: day(66)))
        notes.append(try state.recoverBilling(originalTransactionId: original, purchaseDate: day(62), expiresDate: day(92)))
        notes.append(try state.setAutoRenew(originalTransactionId: original, enabled: false, date: day(70)))
        let latest = try #require(state.transactions.filter { $0.originalTransactionId == original }.max { $0.purchaseDate < $1.purchaseDate })
        notes.append(try state.refundAndNotify(transactionId: latest.transactionId, date: day(75), reason: 1))
        var bodies = notes.map { Array($0.body.utf8) }
        bodies.insert(bodies[1], at: 3)  // Apple sends one again
        return (Array(receipt.base64.utf8), bodies)
    }

    @Test(arguments: TestBackend.available) func togetherLeavesTheLedgerAsOneByOne(_ backend: TestBackend) throws {
        let one = try BackendLedgerFixture(backend, now: "2025-04-01T00:00:00Z")
        let together = try BackendLedgerFixture(backend, now: "2025-04-01T00:00:00Z")
        let (receipt, bodies) = try Self.life(one.authority)
        for f in [one, together] {
            _ = try f.ledger.importArtefact(receipt, customer: "eva", source: "test", operatorName: "mei")
        }
        let sequential = try bodies.map { try one.ledger.applyNotification($0, operatorName: "apple") }
        let prepared = try bodies.map { try together.ledger.prepareNotification($0, operatorName: "apple") }
        let batched = try together.ledger.applyNotifications(prepared).map { try $0.get() }
        #expect(batched.map(\.outcome) == sequential.map(\.outcome))
        #expect(batched.map(\.applied) == [true, true, true, false, true, true])
        // Everything but when each database was created (its migrations' applied_at).
        let rows = { (f: BackendLedgerFixture) in try f.dumpWithoutTrace().split(separator: "\n").filter { !$0.contains("applied_at=") } }
        #expect(try rows(together) == rows(one))
        let (mine, theirs) = (try AuditLog.verify(together.database), try AuditLog.verify(one.database))
        #expect(mine.isIntact && mine.checked == theirs.checked, "\(mine) \(theirs)")
    }

    @Test(arguments: TestBackend.available) func oneThatFailsIsLeftOutAlone(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-04-01T00:00:00Z")
        let (receipt, bodies) = try Self.life(f.authority)
        _ = try f.ledger.importArtefact(receipt, customer: "eva", source: "test", operatorName: "mei")
        let prepared = try bodies.map { try f.ledger.prepareNotification($0, operatorName: "apple") }
        // The database refuses the third notification's row, halfway through its writes.
        let refused = prepared[2].uuid
        if backend == .sqlite {
            try f.database.execute("""
                CREATE TRIGGER refuse_one BEFORE INSERT ON notifications WHEN NEW.notification_uuid = '\(refused)'
                BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                """, [])
        } else {
            try f.database.execute("""
                CREATE FUNCTION refuse_one() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW.notification_uuid = '\(refused)' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$
                """, [])
            try f.database.execute("CREATE TRIGGER refuse_one BEFORE INSERT ON notifications FOR EACH ROW EXECUTE FUNCTION refuse_one()", [])
        }
        let outcomes = f.ledger.applyNotifications(prepared)
        let failed = outcomes.indices.filter { if case .failure = outcomes[$0] { return true }; return false }
        #expect(failed == [2], "\(outcomes)")
        #expect(try f.count("SELECT COUNT(*) AS n FROM notifications") == 4)
        #expect(try f.count("SELECT COUNT(*) AS n FROM notifications WHERE notification_uuid = ?", [.text(refused)]) == 0)
        // Nothing of it was kept: its receipt row was rolled back with it, and the audit chain holds.
        #expect(try f.count("SELECT COUNT(*) AS n FROM receipts") == 5)
        #expect(try AuditLog.verify(f.database).isIntact)
    }
}
