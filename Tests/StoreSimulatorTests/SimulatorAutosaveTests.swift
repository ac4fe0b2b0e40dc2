import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// A state opened from a directory saves itself after each change a Server API request makes,
/// and state files written before the new members existed still load.
@Suite("Simulator autosave and older state files")
struct SimulatorAutosaveTests {
    @Test("an extension made over HTTP is on disk at once and seen by a state reopened from the directory")
    func autosave() throws {
        let directory = try SimulatorPersistenceTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }  // clean-up only
        let opened = try SimulatorStateDirectory.open(directory, bundleId: SimulatorFixture.bundleId, appAppleId: 987_654_321)
        #expect(opened.autosaveFile == directory.appendingPathComponent("state.json"))
        let key = try PrivateKey.generateP256()
        opened.serverAPIKey = ServerAPIKey(publicKey: try key.publicKey(), keyId: SimulatorFixture.keyId, issuerId: SimulatorFixture.issuerId)
        let sub = try opened.register(SimulatorFixture.monthly(SimulatorFixture.day(-10)), environment: .sandbox)
        try SimulatorStateDirectory.save(opened, to: directory)
        let fixed = SimulatorFixture.now
        let simulator = try AppStoreSimulator(state: opened, clock: { fixed })
        try simulator.start()
        defer { simulator.stop() }
        let fixture = try SimulatorFixture()
        let token = try fixture.token(key: key)
        let body = "{\"extendByDays\":5,\"extendReasonCode\":0,\"requestIdentifier\":\"\(UUID().uuidString)\"}"
        let response = try #require(try exchange(port: simulator.port, method: "PUT", path: "/sandbox/inApps/v1/subscriptions/extend/\(sub.transactionId)",
                                                 headers: [("Authorization", "Bearer \(token)")], body: Array(body.utf8)))
        #expect(response.status == 200)
        let reopened = try SimulatorStateDirectory.open(directory, bundleId: SimulatorFixture.bundleId, appAppleId: 987_654_321)
        #expect(reopened.transaction(sub.transactionId)?.expiresDate == SimulatorFixture.day(25))
        #expect(reopened.extensions(originalTransactionId: sub.transactionId).count == 1)
        #expect(reopened.notifications.last?.notificationType == "RENEWAL_EXTENDED" && reopened.notifications.last?.signedPayload != nil)
    }

    @Test("a state file of the first format (no extensions, consumption, send attempts) loads, mints on, and saves back with the new members")
    func olderFile() throws {
        let directory = try SimulatorPersistenceTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }  // clean-up only
        let file = directory.appendingPathComponent("state.json")
        let old = """
        {"version":1,"bundleId":"com.example.game","appAppleId":987654321,
         "transactions":{"2000000100000001":{"transactionId":"2000000100000001","originalTransactionId":"2000000100000001",
           "environment":"Sandbox","bundleId":"com.example.game","productId":"pro.monthly","productType":"Auto-Renewable Subscription",
           "purchaseDate":1746100800000,"originalPurchaseDate":1746100800000,"expiresDate":1751371200000,"quantity":1,
           "transactionReason":"PURCHASE","account":"account-1","orderId":"MK00000001","webOrderLineItemId":"2000000000000001"}},
         "orders":{"MK00000001":["2000000100000001"]},
         "subscriptions":{"2000000100000001":{"autoRenewStatus":true,"autoRenewProductId":"pro.monthly"}},
         "notifications":[{"notificationUUID":"0b5e8f4e-0000-4000-8000-000000000001","notificationType":"DID_RENEW",
                           "environment":"Sandbox","transactionId":"2000000100000001","signedDate":1746100800000}],
         "nextTransactionNumber":2000000100000002,"nextOrderNumber":2,"nextAccountNumber":2,"nextWebOrderNumber":2}
        """
        try old.write(to: file, atomically: true, encoding: .utf8)
        let state = SimulatorState(authority: try TestCertificateAuthority.shared(), bundleId: "com.example.game", appAppleId: 987_654_321)
        try state.load(from: file)
        #expect(state.transactions.count == 1 && state.notifications.first?.signedPayload == nil)
        #expect(state.snapshot().extensions.isEmpty && state.snapshot().consumption.isEmpty)
        let note = try state.renewAndNotify(originalTransactionId: "2000000100000001", purchaseDate: SimulatorFixture.day(0), expiresDate: SimulatorFixture.day(30))
        #expect(note.record.signedPayload != nil)
        try state.save(to: file)
        let again = SimulatorState(authority: try TestCertificateAuthority.shared())
        try again.load(from: file)
        #expect(again.notifications == state.notifications)
    }
}
