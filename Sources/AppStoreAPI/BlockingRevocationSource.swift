import Foundation
import ReceiptCore

/// A `RevocationSource` for synchronous callers (the ledger's import and notification paths run
/// on plain threads): each question goes to a `RevocationChecker` and the calling thread waits
/// for its answer. The checker keeps believed answers until their nextUpdate, so a batch of
/// receipts signed by one chain asks the responder once per certificate.
///
/// The question runs on a serial dispatch queue of its own (`QueueTaskExecutor`), never on Swift's
/// cooperative pool: a caller that blocks a pool thread (a synchronous test, a ledger operation
/// called from a task) cannot starve the answer it waits for.
public final class BlockingRevocationSource: RevocationSource, @unchecked Sendable {
    /// The checker asked.
    public let checker: RevocationChecker
    private let clock: @Sendable () -> Date

    /// A source over `checker` (its policy's mode is the source's); `clock` is the present the
    /// answers are judged at (the real one but in tests).
    public init(checker: RevocationChecker, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.checker = checker
        self.clock = clock
    }

    /// The checker's policy mode.
    public var mode: RevocationPolicy.Mode { checker.policy.mode }

    /// Asks the checker and waits for the answer (each request is bounded by the policy's timeout).
    public func status(of targets: [RevocationTarget]) -> RevocationStatus {
        let now = clock()
        let box = StatusBox()
        let done = DispatchSemaphore(value: 0)
        let checker = self.checker
        Task.detached(executorPreference: Self.executor) {
            box.set(await checker.status(of: targets, now: now))
            done.signal()
        }
        done.wait()
        return box.get() ?? RevocationStatus(.notChecked(why: "the revocation check ended without an answer"))
    }

    /// Where every question runs: one serial queue, whose threads are dispatch's, not the pool's.
    private static let executor = QueueTaskExecutor(label: "receiptdesk.revocation")

    private final class StatusBox: @unchecked Sendable {
        private let lock = NSLock()
        private var value: RevocationStatus?
        func set(_ status: RevocationStatus) { lock.lock(); value = status; lock.unlock() }
        func get() -> RevocationStatus? { lock.lock(); defer { lock.unlock() }; return value }
    }
}

/// A task executor over a serial dispatch queue: tasks that prefer it run their jobs there (and
/// the default actors they call, and their continuations), on threads dispatch adds when others
/// block, never on the cooperative pool.
final class QueueTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        queue.async { [self] in unowned.runSynchronously(on: asUnownedTaskExecutor()) }
    }
}
