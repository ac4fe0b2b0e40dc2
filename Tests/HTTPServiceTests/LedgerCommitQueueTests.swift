import Foundation
import LiveService
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// `serve`'s group commit (`LedgerCommitQueue`): a request is answered only once its round is
/// recorded, so a client that has its answer finds the round in `/metrics`.
@Suite struct LedgerCommitQueueTests {
    /// The round's observer takes its time; each request still returns only after it ran. Before
    /// the fix the answers went out first and `/metrics`, read right after, could miss the round.
    @Test func aRequestIsAnsweredOnlyAfterItsRoundIsRecorded() throws {
        let world = try LiveWorld()
        let ledger = PurchaseLedger(database: try SQLiteDatabase(path: world.path), configuration: LiveWorld.configuration,
                                    verifier: ReceiptVerifier(trust: world.authority.trustStore(),
                                                              expectedBundleIds: Set(LiveWorld.configuration.bundleIds)))
        let recorded = RecordedRounds()
        let queue = LedgerCommitQueue(ledger: ledger) { _ in
            usleep(100_000)  // a slow observer: an answer given before it would return first
            recorded.add()
        }
        defer { queue.stop() }
        for round in 1...3 {
            _ = queue.importArtefacts([], operatorName: "mei")
            #expect(recorded.count == round, "request \(round) was answered before its round was recorded")
        }
    }
}

/// Rounds the observer has seen.
private final class RecordedRounds: @unchecked Sendable {
    private let lock = NSLock()
    private var rounds = 0
    func add() { lock.withLock { rounds += 1 } }
    var count: Int { lock.withLock { rounds } }
}
