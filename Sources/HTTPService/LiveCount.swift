import Foundation

/// A counter shared across threads.
final class LiveCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    /// Adds `delta`.
    func add(_ delta: Int) {
        lock.lock()
        count += delta
        lock.unlock()
    }

    /// The current count.
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
