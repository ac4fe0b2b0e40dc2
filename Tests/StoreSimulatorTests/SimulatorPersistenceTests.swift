import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// Saving and reloading the authority and the records, and the state's own bookkeeping.
@Suite("Simulator state and persistence")
struct SimulatorPersistenceTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("simulator-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("a saved authority loads with the same certificates and keys; what it signs verifies against the original")
    func authorityRoundTrip() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }  // clean-up only
        let original = try TestCertificateAuthority.shared()
        try original.save(to: directory)
        let loaded = try TestCertificateAuthority.load(from: directory)
        #expect(loaded.kind == .standard && loaded.validFrom == original.validFrom && loaded.validUntil == original.validUntil)
        for (a, b) in zip(original.receiptChain.certificates + original.legacyChain.certificates + original.jwsChain.certificates,
                          loaded.receiptChain.certificates + loaded.legacyChain.certificates + loaded.jwsChain.certificates) {
            #expect(a.der == b.der)
        }
        #expect(loaded.receiptChain.leaf.serialNumber == original.receiptChain.leaf.serialNumber)
        #expect(loaded.receiptChain.leaf.issuer == original.receiptChain.leaf.issuer)
        #expect(loaded.jwsChain.leaf.subjectKeyIdentifier == original.jwsChain.leaf.subjectKeyIdentifier)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("receipt-leaf.key.pem").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        let state = SimulatorState(authority: loaded)
        let receipt = try state.mintUnifiedReceipt(environment: .sandbox, purchases: [
            SimulatedPurchase(productId: "coins", type: .consumable, purchaseDate: SimulatorFixture.now),
        ])
        let legacy = try state.mintLegacyReceipt(environment: .sandbox, purchase:
            SimulatedPurchase(productId: "coins", type: .consumable, purchaseDate: SimulatorFixture.now))
        let jws = try state.mintSignedTransaction(environment: .sandbox, purchase: SimulatorFixture.monthly(SimulatorFixture.now),
                                                  signedDate: SimulatorFixture.now)
        let verifier = ReceiptVerifier(trust: original.trustStore())
        for text in [receipt.base64, legacy.base64, jws.jws] {
            let verdict = verifier.verify(try ReceiptDecoder.decode(Array(text.utf8)))
            #expect(verdict.isValid, "\(verdict.reason)")
        }
    }

    @Test("an authority is read once per process while its files stay the same, and again when one changes")
    func authorityReadOnce() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }  // clean-up only
        try TestCertificateAuthority.shared().save(to: directory)
        let first = try TestCertificateAuthority.load(from: directory)
        #expect(try TestCertificateAuthority.load(from: directory) === first)
        // A key file replaced (a new inode) is read again: here a wrong key, refused.
        let swapped = try String(contentsOf: directory.appendingPathComponent("jws-leaf.key.pem"), encoding: .utf8)
        try swapped.write(to: directory.appendingPathComponent("receipt-leaf.key.pem"), atomically: true, encoding: .utf8)
        #expect(throws: SimulatorError(.persistence, "")) { _ = try TestCertificateAuthority.load(from: directory) }
        // Saved again by another authority: that one is read.
        let other = try TestCertificateAuthority.make(validFrom: SimulatorStateDirectory.validFrom, validUntil: SimulatorStateDirectory.validUntil)
        try other.save(to: directory)
        let reread = try TestCertificateAuthority.load(from: directory)
        #expect(reread !== first && reread.root.der == other.root.der)
    }

    @Test("a damaged authority directory is a persistence error, not a crash")
    func damagedAuthority() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }  // clean-up only
        #expect(throws: SimulatorError(.persistence, "")) { _ = try TestCertificateAuthority.load(from: directory) }
        try TestCertificateAuthority.shared().save(to: directory)
        let swapped = try String(contentsOf: directory.appendingPathComponent("jws-leaf.key.pem"), encoding: .utf8)
        try swapped.write(to: directory.appendingPathComponent("receipt-leaf.key.pem"), atomically: true, encoding: .utf8)
        #expect(throws: SimulatorError(.persistence, "")) { _ = try TestCertificateAuthority.load(from: directory) }
        try "{\"format\":7}".write(to: directory.appendingPathComponent("authority.json"), atomically: true, encoding: .utf8)
        #expect(throws: SimulatorError(.persistence, "")) { _ = try TestCertificateAuthority.load(from: directory) }
    }

    @Test("records survive save and load: transactions, refunds, orders, notifications, and ids keep counting")
    func recordsRoundTrip() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }  // clean-up only
        let file = directory.appendingPathComponent("state.json")
        let state = SimulatorState(authority: try TestCertificateAuthority.shared(), bundleId: "com.example.saved", appAppleId: 42)
        state.sharedSecret = "never-saved"
        let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [SimulatorFixture.monthly(SimulatorFixture.day(-40))])
        let original = receipt.transactions[0].transactionId
        let renewal = try state.renew(originalTransactionId: original, purchaseDate: SimulatorFixture.day(-10), expiresDate: SimulatorFixture.day(20))
        try state.refund(transactionId: renewal.transactionId, date: SimulatorFixture.day(-1), reason: 1)
        let notice = try state.mintNotification(type: "REFUND", transactionId: renewal.transactionId, signedDate: SimulatorFixture.now)
        try state.save(to: file)
        #expect(try !String(contentsOf: file, encoding: .utf8).contains("never-saved"))

        let reloaded = SimulatorState(authority: try TestCertificateAuthority.shared())
        try reloaded.load(from: file)
        #expect(reloaded.bundleId == "com.example.saved" && reloaded.appAppleId == 42)
        #expect(reloaded.transactions == state.transactions)
        #expect(reloaded.notifications == [notice.record])
        #expect(reloaded.snapshot().orders == state.snapshot().orders)
        #expect(reloaded.sharedSecret == nil)
        let next = try reloaded.register(SimulatedPurchase(productId: "coins", type: .consumable, purchaseDate: SimulatorFixture.now),
                                         environment: .production)
        #expect(!state.transactions.map(\.transactionId).contains(next.transactionId))
        #expect(!state.snapshot().orders.keys.contains(next.orderId ?? ""))

        try "{\"version\":99}".write(to: file, atomically: true, encoding: .utf8)
        #expect(throws: SimulatorError(.persistence, "")) { try reloaded.load(from: file) }
        #expect(reloaded.transactions.count == 3, "a failed load changes nothing")
    }

    @Test("a state directory is created once and reopened with the same authority and records")
    func stateDirectory() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }  // clean-up only
        let created = try SimulatorStateDirectory.open(directory, bundleId: "com.example.dir")
        _ = try created.mintLegacyReceipt(environment: .production, purchase:
            SimulatedPurchase(productId: "paid.app", type: .nonConsumable, purchaseDate: CivilTime(year: 2012, month: 4, day: 30).date))
        try SimulatorStateDirectory.save(created, to: directory)
        let reopened = try SimulatorStateDirectory.open(directory, bundleId: "com.example.dir")
        #expect(reopened.authority.root.der == created.authority.root.der)
        #expect(reopened.transactions == created.transactions)
    }

    @Test("notifications are signed, verify, carry the subscription's state and are recorded")
    func notifications() throws {
        let state = SimulatorState(authority: try TestCertificateAuthority.shared(), bundleId: "com.example.game")
        let first = try state.register(SimulatorFixture.monthly(SimulatorFixture.day(-35)), environment: .sandbox)
        let renewal = try state.renew(originalTransactionId: first.transactionId, purchaseDate: SimulatorFixture.day(-5),
                                      expiresDate: SimulatorFixture.day(25))
        let minted = try state.mintNotification(type: "DID_RENEW", transactionId: renewal.transactionId, signedDate: SimulatorFixture.now,
                                                notificationUUID: "0b9a8f2e-0000-4000-8000-000000000001")
        let decoded = try ReceiptDecoder.decode(Array(minted.body.utf8))
        guard case .notification(let notification) = decoded else {
            Issue.record("not a notification: \(decoded.format)")
            return
        }
        #expect(ReceiptVerifier(trust: state.authority.trustStore()).verify(notification).isValid)
        #expect(notification.transaction?.purchase.transactionId == renewal.transactionId)
        #expect(state.notifications.map(\.notificationUUID) == ["0b9a8f2e-0000-4000-8000-000000000001"])
    }

    @Test("registration: a repeated id is the known transaction, the other environment is refused, unknown targets throw")
    func registration() throws {
        let state = SimulatorState(authority: try TestCertificateAuthority.shared())
        var purchase = SimulatedPurchase(productId: "coins", type: .consumable, purchaseDate: SimulatorFixture.now, transactionId: "1000000000000001")
        let first = try state.register(purchase, environment: .sandbox)
        purchase.productId = "changed"
        #expect(try state.register(purchase, environment: .sandbox) == first)
        #expect(throws: SimulatorError(.invalidRequest, "")) { try state.register(purchase, environment: .production) }
        #expect(throws: SimulatorError(.invalidRequest, "")) {
            try state.renew(originalTransactionId: first.transactionId, purchaseDate: SimulatorFixture.now, expiresDate: SimulatorFixture.day(30))
        }
        #expect(throws: SimulatorError(.invalidRequest, "")) { try state.refund(transactionId: "404", date: SimulatorFixture.now) }
        #expect(throws: SimulatorError(.invalidRequest, "")) { try state.expire(originalTransactionId: "404") }
        #expect(throws: SimulatorError(.invalidRequest, "")) {
            try state.mintNotification(type: "REFUND", transactionId: "404", signedDate: SimulatorFixture.now)
        }
    }
}
