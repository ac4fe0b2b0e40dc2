import Foundation

/// Decodes and verifies a batch's artefacts on worker threads, in order, while the caller applies
/// the ones already prepared: the database work of item n overlaps the CPU work of the items after it.
final class ImportPipeline<Value>: @unchecked Sendable {
    // Every field below is read and written under `condition`'s lock.
    private let condition = NSCondition()
    private var slots: [Value?]
    private var nextToClaim = 0
    private var running = 0

    /// Starts preparing `count` items with `work` on one thread per core but one: the writer,
    /// the slower stage, keeps a core to itself.
    init(count: Int, work: @escaping @Sendable (Int) -> Value) {
        slots = Array(repeating: nil, count: count)
        let workers = max(1, min(count, ProcessInfo.processInfo.activeProcessorCount - 1))
        running = workers
        for _ in 0..<workers {
            DispatchQueue.global(qos: .userInitiated).async { [self] in
                while let index = claim() { store(index, work(index)) }
                condition.lock()
                running -= 1
                condition.broadcast()
                condition.unlock()
            }
        }
    }

    /// Item `index`, waiting until a worker has prepared it.
    func value(_ index: Int) -> Value {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let value = slots[index] { return value }
            condition.wait()
        }
    }

    /// Stops handing out items and waits for the workers to finish the ones they hold.
    func finish() {
        condition.lock()
        nextToClaim = slots.count
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func claim() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        guard nextToClaim < slots.count else { return nil }
        nextToClaim += 1
        return nextToClaim - 1
    }

    private func store(_ index: Int, _ value: Value) {
        condition.lock()
        slots[index] = value
        condition.broadcast()
        condition.unlock()
    }
}
