import Foundation
import ReceiptCore
@testable import StoreSimulator
import Testing

/// A console opens the simulator's state without waiting for its records
/// (`SimulatorStateDirectory.open(loadingInBackground:)`): whatever uses them waits for the load,
/// and a file that cannot be read is reported by the next request, not answered from nothing.
@Suite("Simulator state loaded in the background")
struct SimulatorBackgroundLoadTests {
    static func savedState() throws -> (URL, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("simulator-bg-\(UUID().uuidString)")
        let state = try SimulatorStateDirectory.open(directory, bundleId: "com.example.app")
        let receipt = try state.change {
            try state.mintUnifiedReceipt(environment: .production, purchases: [
                SimulatedPurchase(productId: "com.example.pro.lifetime", type: .nonConsumable, purchaseDate: SimulatorFixture.now),
            ], account: "ana")
        }
        return (directory, try #require(receipt.transactions.first?.transactionId))
    }

    @Test func whatUsesTheRecordsWaitsForTheLoad() throws {
        let (directory, id) = try Self.savedState()
        defer { try? FileManager.default.removeItem(at: directory) }
        for _ in 0..<20 {
            let state = try SimulatorStateDirectory.open(directory, bundleId: "com.example.app", loadingInBackground: true)
            // At once, whether or not the load has finished: the transaction is there.
            #expect(state.snapshot().transaction(id, in: .production) != nil)
            #expect(state.backgroundLoadFailure == nil)
            // A change after the load keeps what was loaded.
            let next = try state.change {
                try state.mintSignedTransaction(environment: .production, purchase: SimulatorFixture.monthly(SimulatorFixture.now),
                                                signedDate: SimulatorFixture.now)
            }
            _ = next
            #expect(state.snapshot().transaction(id, in: .production) != nil)
        }
    }

    /// A console puts the load off until its first screen is drawn: nothing is read before, and
    /// a request that comes first starts the load itself instead of waiting for ever.
    @Test func aDeferredLoadStartsWhenAskedOrWhenFirstNeeded() throws {
        let (directory, id) = try Self.savedState()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent(SimulatorStateDirectory.stateFile)
        let good = try Data(contentsOf: file)
        // Not read while deferred: the file is broken after the open and mended before the start.
        let asked = try SimulatorStateDirectory.open(directory, bundleId: "com.example.app", loadingInBackground: true, deferringLoad: true)
        #expect(asked.loadIsPending)
        try Data("{not json".utf8).write(to: file)
        try good.write(to: file)
        asked.beginDeferredLoad()
        #expect(!asked.loadIsPending)
        asked.waitUntilLoaded()
        #expect(asked.backgroundLoadFailure == nil)
        #expect(asked.snapshot().transaction(id, in: .production) != nil)
        asked.beginDeferredLoad()  // a second call does nothing
        #expect(asked.snapshot().transaction(id, in: .production) != nil)

        // Never asked: the first use starts the load and waits for it.
        let used = try SimulatorStateDirectory.open(directory, bundleId: "com.example.app", loadingInBackground: true, deferringLoad: true)
        #expect(used.loadIsPending)
        #expect(used.snapshot().transaction(id, in: .production) != nil)
        #expect(!used.loadIsPending)
        #expect(used.backgroundLoadFailure == nil)
    }

    @Test func aFileThatCannotBeReadIsReportedAndReadAgainOnceMended() throws {
        let (directory, id) = try Self.savedState()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent(SimulatorStateDirectory.stateFile)
        let good = try Data(contentsOf: file)
        try Data("{not json".utf8).write(to: file)
        let state = try SimulatorStateDirectory.open(directory, bundleId: "com.example.app", loadingInBackground: true)
        state.waitUntilLoaded()
        let failure = try #require(state.backgroundLoadFailure)
        #expect("\(failure)".contains("cannot read simulator state"))
        #expect(throws: SimulatorError.self) { try state.catchUpAfterFailedLoad() }
        try good.write(to: file)
        try state.catchUpAfterFailedLoad()
        #expect(state.backgroundLoadFailure == nil)
        #expect(state.snapshot().transaction(id, in: .production) != nil)
    }
}

/// The simulator keeps the signed bodies of its latest notifications only
/// (`SimulatorRecords.keptNotificationBodies`), so its state does not grow by 13 kB a
/// notification for ever; older notifications keep everything else.
@Suite("Simulator notification bodies are bounded")
struct SimulatorNotificationBodiesTests {
    static func notification(_ index: Int) -> NotificationRecord {
        var record = NotificationRecord(notificationUUID: "uuid-\(index)", notificationType: "DID_RENEW", subtype: nil,
                                        transactionId: "\(2_000_000_100_000_000 + index)", environment: .production,
                                        signedDate: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)))
        record.signedPayload = "eyJ.body-\(index).sig"
        return record
    }

    @Test func onlyTheLatestKeepTheirBodyWhenRecordedAndWhenAnOldFileIsRead() throws {
        let kept = SimulatorRecords.keptNotificationBodies
        var records = SimulatorRecords(bundleId: "com.example.app", appAppleId: 1)
        for index in 0..<(kept + 5) { records.record(Self.notification(index)) }
        #expect(records.notifications.count == kept + 5)
        #expect(records.notifications.prefix(5).allSatisfy { $0.signedPayload == nil && $0.transactionId != nil })
        #expect(records.notifications.dropFirst(5).allSatisfy { $0.signedPayload != nil })
        #expect(records.notifications.last?.signedPayload == "eyJ.body-\(kept + 4).sig")

        // A file written before the bound: every body saved; read back, only the latest keep theirs.
        var old = SimulatorRecords(bundleId: "com.example.app", appAppleId: 1)
        old.notifications = (0..<(kept + 7)).map(Self.notification)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        let read = try decoder.decode(SimulatorRecords.self, from: try encoder.encode(old))
        #expect(read.notifications.count == kept + 7)
        #expect(read.notifications.filter { $0.signedPayload != nil }.count == kept)
        #expect(read.notifications.prefix(7).allSatisfy { $0.signedPayload == nil && $0.notificationUUID.hasPrefix("uuid-") })
    }
}
