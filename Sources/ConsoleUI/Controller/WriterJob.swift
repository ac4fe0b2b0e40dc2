import Foundation
import PurchaseStore

/// A confirmed change handed to the writer's thread: only that thread touches `writer` while
/// the job runs (the controller starts no second one until this one has reported).
struct WriterJob: @unchecked Sendable {
    let writer: PurchaseLedger
    let change: PendingChange
    let watched: ChangeGuard
    let operatorName: String

    func run() throws -> String {
        try watched.perform(writer.database) { try ChangeRunner.apply(change, ledger: writer, operatorName: operatorName) }
    }
}

/// Set once from the screen's thread, read from the writer's.
final class CancelFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
}

/// The outcome of the change written on the writer's thread, crossing to the screen's thread.
final class ApplyInbox: @unchecked Sendable {
    // `pending` is only touched while `lock` is held.
    private let lock = NSLock()
    private var pending: (name: String, outcome: Result<String, Error>, cancelled: Bool)?

    func post(_ result: (String, Result<String, Error>, Bool)) {
        lock.lock()
        pending = result
        lock.unlock()
    }

    func take() -> (String, Result<String, Error>, Bool)? {
        lock.lock()
        defer { lock.unlock() }
        let result = pending
        pending = nil
        return result
    }
}
