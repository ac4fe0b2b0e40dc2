import Foundation
import PurchaseStore

/// Group commit: the service's requests wait here for the one writer, which takes everything
/// that arrived while it was busy and commits it together (one write transaction, one fsync),
/// each request still failing alone (`importBatch`, `applyNotifications`). A request returns
/// only once its change is committed, or with why it was not.
///
/// The writer owns its ledger (its own connection) and thread; requests decode and verify on
/// their own threads before they queue. `stop()` lets the queue drain, then ends the writer.
public final class LedgerCommitQueue: @unchecked Sendable {
    /// What one round committed: its size and what it cost the writer, for `/metrics`.
    public struct Round: Sendable {
        public let purchases: Int
        public let notifications: Int
        /// Wall time from taking the round to its last commit (the writer is busy), seconds.
        public var busySeconds: Double = 0
        /// The writer thread's CPU time in the round (the rest of busy is waiting: fsync, a lock,
        /// a PostgreSQL round trip), seconds.
        public var cpuSeconds: Double = 0
    }

    private enum Work {
        case purchase(items: [PurchaseLedger.ImportItem], operatorName: String, slot: Slot<[Result<ImportResult, Error>]>)
        case notification(PreparedNotification, slot: Slot<Result<NotificationResult, Error>>)
    }

    /// Where a request waits for its outcome.
    private final class Slot<Value>: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var value: Value?
        func fill(_ value: Value) {
            self.value = value
            done.signal()
        }
        func wait() -> Value {
            done.wait()
            return value!  // filled before the signal
        }
    }

    /// The most requests one round takes.
    public let maxRound: Int
    private let ledger: PurchaseLedger
    private let condition = NSCondition()
    private var pending: [Work] = []
    private var stopping = false
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)
    /// Called on the writer's thread after each round, before its requests are answered: a
    /// client that has its answer finds its round in `/metrics`.
    private let observe: @Sendable (Round) -> Void

    /// A queue writing through `ledger` (its connection is the writer's alone from now on).
    public init(ledger: PurchaseLedger, maxRound: Int = 256, observe: @escaping @Sendable (Round) -> Void = { _ in }) {
        self.ledger = ledger
        self.maxRound = max(1, maxRound)
        self.observe = observe
        let thread = Thread { [unowned self] in self.run() }
        thread.name = "receiptdesk serve writer"
        self.thread = thread
        thread.start()
    }

    /// Requests waiting for the writer now.
    public var depth: Int {
        condition.lock()
        defer { condition.unlock() }
        return pending.count
    }

    /// Imports `items` for one request; returns once they are committed (or failed), in order.
    public func importArtefacts(_ items: [PurchaseLedger.ImportItem], operatorName: String) -> [Result<ImportResult, Error>] {
        let slot = Slot<[Result<ImportResult, Error>]>()
        guard enqueue(.purchase(items: items, operatorName: operatorName, slot: slot)) else {
            return items.map { _ in .failure(StoreError(.busy, "the service is stopping: send it again")) }
        }
        return slot.wait()
    }

    /// Applies one prepared notification; returns once it is committed (or failed).
    public func applyNotification(_ prepared: PreparedNotification) -> Result<NotificationResult, Error> {
        let slot = Slot<Result<NotificationResult, Error>>()
        guard enqueue(.notification(prepared, slot: slot)) else { return .failure(StoreError(.busy, "the service is stopping: send it again")) }
        return slot.wait()
    }

    /// Commits what is queued, then ends the writer; later requests are refused as busy.
    public func stop() {
        condition.lock()
        let wasRunning = !stopping
        stopping = true
        condition.broadcast()
        condition.unlock()
        if wasRunning { finished.wait() }
    }

    private func enqueue(_ work: Work) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping else { return false }
        pending.append(work)
        condition.signal()
        return true
    }

    private func run() {
        while true {
            condition.lock()
            while pending.isEmpty && !stopping { condition.wait() }
            if pending.isEmpty && stopping {
                condition.unlock()
                finished.signal()
                return
            }
            let round = Array(pending.prefix(maxRound))
            pending.removeFirst(round.count)
            condition.unlock()
            let (began, cpuBefore) = (ContinuousClock.now, Self.threadCPUSeconds())
            var (done, answers) = commit(round)
            done.cpuSeconds = Self.threadCPUSeconds() - cpuBefore
            let busy = ContinuousClock.now - began
            done.busySeconds = Double(busy.components.seconds) + Double(busy.components.attoseconds) / 1e18
            observe(done)
            for answer in answers { answer() }
        }
    }

    /// The calling thread's CPU time so far.
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Commits `round`; returns its size and the answers to its requests, which the caller
    /// gives once the round is recorded.
    private func commit(_ round: [Work]) -> (Round, [() -> Void]) {
        var answers: [() -> Void] = []
        var notifications: [(PreparedNotification, Slot<Result<NotificationResult, Error>>)] = []
        var purchases: [String: [([PurchaseLedger.ImportItem], Slot<[Result<ImportResult, Error>]>)]] = [:]
        var purchaseCount = 0
        for work in round {
            switch work {
            case .notification(let prepared, let slot): notifications.append((prepared, slot))
            case .purchase(let items, let operatorName, let slot):
                purchases[operatorName, default: []].append((items, slot))
                purchaseCount += 1
            }
        }
        if !notifications.isEmpty {
            let outcomes = ledger.applyNotifications(notifications.map(\.0))
            for (index, (_, slot)) in notifications.enumerated() { answers.append { slot.fill(outcomes[index]) } }
        }
        // One batch per client, since each audit entry names the client that asked.
        for operatorName in purchases.keys.sorted() {
            let requests = purchases[operatorName] ?? []
            let items = requests.flatMap(\.0)
            let outcomes: [Result<ImportResult, Error>]
            do {
                outcomes = try ledger.importBatch(items, operatorName: operatorName)
            } catch {
                outcomes = items.map { _ in .failure(error) }
            }
            var offset = 0
            for (requestItems, slot) in requests {
                let answer = Array(outcomes[offset..<offset + requestItems.count])
                answers.append { slot.fill(answer) }
                offset += requestItems.count
            }
        }
        return (Round(purchases: purchaseCount, notifications: notifications.count), answers)
    }
}
