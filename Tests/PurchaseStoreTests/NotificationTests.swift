import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

// Run on every backend (TestBackend.available): SQLite always, PostgreSQL when
// RECEIPTDESK_TEST_POSTGRES_URL names a test server (make test starts one).

@Suite("App Store Server Notifications applied once, on both backends")
struct NotificationTests {
    func body(_ f: BackendLedgerFixture, type: String, subtype: String? = nil, uuid: String, transaction: TransactionPayload) throws -> [UInt8] {
        let data = NotificationData(bundleId: "com.example.app", environment: "Production", signedTransactionInfo: .payload(transaction))
        let notification = NotificationPayload(notificationType: type, subtype: subtype, notificationUUID: uuid,
                                               signedDate: f.now, data: data)
        return Array(try JWSBuilder(authority: f.authority).notificationBody(notification).utf8)
    }

    func monthly(_ id: String, original: String, bought: String, expires: String) -> TransactionPayload {
        TransactionPayload(transactionId: id, originalTransactionId: original, bundleId: "com.example.app",
                           productId: "com.example.pro.monthly", type: "Auto-Renewable Subscription",
                           purchaseDate: LedgerFixture.date(bought), expiresDate: LedgerFixture.date(expires),
                           signedDate: LedgerFixture.date(bought), environment: "Production")
    }

    @Test(arguments: TestBackend.available) func renewalAddsATransactionAndReplayChangesNothing(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-06-15T00:00:00Z")
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("9100", bought: "2025-05-01T00:00:00Z", expires: "2025-06-01T00:00:00Z")]),
                                        customer: "alice", source: "test", operatorName: "mei")
        #expect(try f.ledger.entitlements("alice", now: f.now).first { $0.name == "pro" }?.isActive == false)
        let renewal = try body(f, type: "DID_RENEW", uuid: "uuid-renew-1",
                               transaction: monthly("9101", original: "9100", bought: "2025-06-01T00:00:00Z", expires: "2025-07-01T00:00:00Z"))
        let result = try f.ledger.applyNotification(renewal, operatorName: "apple")
        #expect(result.applied)
        #expect(result.customerId == "alice")
        #expect(result.changes.map(\.kind) == [.added])
        #expect(try f.ledger.transaction("9101")?.customerId == "alice")
        #expect(try f.ledger.entitlements("alice", now: f.now).first { $0.name == "pro" }?.isActive == true)
        let before = try f.dump()
        let replay = try f.ledger.applyNotification(renewal, operatorName: "apple")
        #expect(!replay.applied)
        #expect(try f.dump() == before)
    }

    @Test(arguments: TestBackend.available) func refundRevokesAndEndsTheEntitlement(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-05-15T00:00:00Z")
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("9200", bought: "2025-05-01T00:00:00Z", expires: "2025-06-01T00:00:00Z")]),
                                        customer: "bob", source: "test", operatorName: "mei")
        #expect(try f.ledger.entitlements("bob", now: f.now).first { $0.name == "pro" }?.isActive == true)
        var refunded = monthly("9200", original: "9200", bought: "2025-05-01T00:00:00Z", expires: "2025-06-01T00:00:00Z")
        refunded.revocationDate = LedgerFixture.date("2025-05-10T00:00:00Z")
        refunded.revocationReason = 0
        let result = try f.ledger.applyNotification(try body(f, type: "REFUND", uuid: "uuid-refund-1", transaction: refunded), operatorName: "apple")
        #expect(result.changes.map(\.kind) == [.refunded])
        #expect(try f.ledger.transaction("9200")?.revocationDate == LedgerFixture.date("2025-05-10T00:00:00Z"))
        #expect(try f.ledger.entitlements("bob", now: f.now).first { $0.name == "pro" }?.isActive == false)
    }

    @Test(arguments: TestBackend.available) func unmatchedNotificationIsKeptAndAppliedWhenSentAgain(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-05-15T00:00:00Z")
        let renewal = try body(f, type: "DID_RENEW", uuid: "uuid-early",
                               transaction: monthly("9301", original: "9300", bought: "2025-05-01T00:00:00Z", expires: "2025-06-01T00:00:00Z"))
        let early = try f.ledger.applyNotification(renewal, operatorName: "apple")
        #expect(early.customerId == nil)
        #expect(early.outcome.hasPrefix("unmatched"))
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("9300", bought: "2025-04-01T00:00:00Z", expires: "2025-05-01T00:00:00Z")]),
                                        customer: "carol", source: "test", operatorName: "mei")
        let again = try f.ledger.applyNotification(renewal, operatorName: "apple")
        #expect(again.applied)
        #expect(again.customerId == "carol")
        #expect(try f.ledger.transaction("9301")?.customerId == "carol")
    }

    @Test(arguments: TestBackend.available) func forgedNotificationsAndOtherArtefactsAreRefused(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let builder = JWSBuilder(authority: try TestCertificateAuthority.shared(.impostor))
        let forged = Array(try builder.notificationBody(NotificationPayload(
            notificationType: "REFUND", notificationUUID: "uuid-forged", signedDate: f.now,
            data: NotificationData(bundleId: "com.example.app", environment: "Production",
                                   signedTransactionInfo: .payload(monthly("1", original: "1", bought: "2025-05-01T00:00:00Z", expires: "2025-06-01T00:00:00Z"))))).utf8)
        #expect(throws: StoreError(.notVerified, "")) { _ = try f.ledger.applyNotification(forged, operatorName: "apple") }
        #expect(throws: StoreError(.invalidInput, "")) { _ = try f.ledger.applyNotification(try f.receipt([]), operatorName: "apple") }
        #expect(try f.count("SELECT count(*) AS n FROM notifications") == 0)
    }
}
