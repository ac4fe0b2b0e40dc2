import Foundation
import ReceiptCore
@testable import StoreSimulator
import Testing

/// The simulator finds a subscription's transactions through an index of originals
/// (`OriginalsIndex`): every change to the transactions is seen, and a snapshot taken before a
/// change keeps answering as the records it was taken from.
@Suite("Simulator records: transactions by original")
struct SimulatorRecordsIndexTests {
    @Test func lookUpsFollowEveryChangeAndSnapshotsKeepTheirOwn() throws {
        let state = SimulatorState(authority: try TestCertificateAuthority.shared(), bundleId: "com.example.app")
        let start = Date(timeIntervalSince1970: 1_714_550_400)
        let month = 30.0 * 86_400
        let minted = try state.mintUnifiedReceipt(environment: .production, purchases: [
            SimulatedPurchase(productId: "com.example.pro.monthly", type: .autoRenewable, purchaseDate: start,
                              expiresDate: start.addingTimeInterval(month)),
            SimulatedPurchase(productId: "com.example.coins.100", type: .consumable, purchaseDate: start),
        ], account: "ana")
        let original = try #require(minted.transactions.first?.transactionId)
        let before = state.snapshot()
        #expect(before.transactions(originals: [original], in: .production).map(\.transactionId) == [original])
        let renewal = try state.renew(originalTransactionId: original, purchaseDate: start.addingTimeInterval(month),
                                      expiresDate: start.addingTimeInterval(2 * month))
        let after = state.snapshot()
        #expect(after.transactions(originals: [original], in: .production).map(\.transactionId) == [original, renewal.transactionId])
        #expect(after.latestTransaction(original: original)?.transactionId == renewal.transactionId)
        #expect(after.transactions(originals: [original], in: .sandbox).isEmpty)
        // A change made in place (a refund) is seen too.
        try state.refund(transactionId: renewal.transactionId, date: start.addingTimeInterval(month + 86_400))
        #expect(state.snapshot().latestTransaction(original: original)?.revocation != nil)
        // The snapshot taken before the renewal still answers as it did.
        #expect(before.transactions(originals: [original], in: .production).map(\.transactionId) == [original])
        #expect(before.latestTransaction(original: original)?.transactionId == original)
        // Every original of the receipt, the consumable's too.
        let coins = try #require(minted.transactions.last?.transactionId)
        #expect(Set(after.transactions(originals: [original, coins], in: .production).map(\.transactionId))
                == [original, renewal.transactionId, coins])
    }

    @Test func aTransactionSetWithoutIssueIsFoundAndIssuingAfterASnapshotLeavesItAlone() throws {
        var records = SimulatorRecords(bundleId: "com.example.app", appAppleId: 1)
        let start = Date(timeIntervalSince1970: 1_714_550_400)
        let first = try records.register(SimulatedPurchase(productId: "com.example.pro.monthly", type: .autoRenewable, purchaseDate: start,
                                                           expiresDate: start.addingTimeInterval(86_400)), environment: .production, account: "ana")
        #expect(records.latestTransaction(original: first.transactionId)?.transactionId == first.transactionId)  // the index is built
        let snapshot = records
        var renewal = first
        renewal.transactionId = "2000000199999999"
        renewal.purchaseDate = start.addingTimeInterval(86_400)
        records.issue(renewal)
        #expect(records.latestTransaction(original: first.transactionId)?.transactionId == renewal.transactionId)
        #expect(snapshot.latestTransaction(original: first.transactionId)?.transactionId == first.transactionId)
        // Set straight into the dictionary, not issued: the index sees a count it does not know and is built again.
        var later = first
        later.transactionId = "2000000199999998"
        later.purchaseDate = start.addingTimeInterval(2 * 86_400)
        records.transactions[later.transactionId] = later
        #expect(records.latestTransaction(original: first.transactionId)?.transactionId == later.transactionId)
    }
}
