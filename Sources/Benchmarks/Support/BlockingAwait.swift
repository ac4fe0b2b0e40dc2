import Foundation

/// Runs async work from a synchronous benchmark and waits for its value (a benchmark has no
/// interrupt handling of its own: an interrupt ends the process, as it should).
func blockingAwait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let box = AwaitBox<T>()
    let semaphore = DispatchSemaphore(value: 0)
    Task {
        box.value = await work()
        semaphore.signal()
    }
    semaphore.wait()
    // The task signalled after storing its value.
    guard let value = box.value else { preconditionFailure("async work finished without a value") }
    return value
}

/// The value of `blockingAwait`'s task: written once before the semaphore is signalled, read after the wait.
private final class AwaitBox<T>: @unchecked Sendable {
    var value: T?
}
