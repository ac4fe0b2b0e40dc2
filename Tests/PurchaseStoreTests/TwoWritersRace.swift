import Foundation
import PurchaseStore
import ReceiptCore

/// Two operators doing the same thing at the same moment, each on a connection of their own (as
/// two processes would be to the server), round after round: the harness behind the
/// "every change happens exactly once" tests.
final class TwoWritersRace: @unchecked Sendable {
    /// What one operator's attempt came to: "done", or the refusal's code ("alreadyExists",
    /// "notFound", …), or "failed: …" for anything that is not a clean refusal.
    typealias Outcome = String

    let fixture: BackendLedgerFixture
    /// One ledger per operator, each on its own connection, kept across rounds.
    let operators: [PurchaseLedger]

    init(_ fixture: BackendLedgerFixture, operators count: Int = 2) throws {
        self.fixture = fixture
        operators = try (0..<count).map { _ in fixture.makeLedger(try fixture.scratch.open()) }
    }

    /// Runs `action` on every operator at once (released together once all are ready) and
    /// returns each one's outcome, in operator order.
    func atOnce(_ action: @escaping @Sendable (PurchaseLedger, Int) throws -> Void) -> [Outcome] {
        let ready = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0), done = DispatchGroup()
        let outcomes = OutcomeSlots(operators.count)
        for (index, ledger) in operators.enumerated() {
            let box = UncheckedLedger(ledger)
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                ready.signal()
                go.wait()
                do {
                    try action(box.ledger, index)
                    outcomes.set(index, "done")
                } catch let error as StoreError {
                    outcomes.set(index, error.code.rawValue)
                } catch {
                    outcomes.set(index, "failed: \(error)")
                }
            }
        }
        for _ in operators { ready.wait() }
        for _ in operators { go.signal() }
        done.wait()
        return outcomes.values
    }
}

/// A ledger handed to one worker thread, which alone uses it until the round ends.
struct UncheckedLedger: @unchecked Sendable {
    let ledger: PurchaseLedger
    init(_ ledger: PurchaseLedger) { self.ledger = ledger }
}

/// One outcome per operator, written from their threads.
final class OutcomeSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [String]
    init(_ count: Int) { slots = Array(repeating: "none", count: count) }
    func set(_ index: Int, _ value: String) { lock.lock(); slots[index] = value; lock.unlock() }
    var values: [String] { lock.lock(); defer { lock.unlock() }; return slots }
}
