import Foundation

/// Prepares the items of an import (reading, decoding, verifying) on worker threads, in order and
/// at most `lookahead` items ahead of the writer that consumes them. The database work of item n
/// overlaps the CPU work of the items after it, also across the batches a long import commits in
/// (the workers prepare the next batch while the writer refreshes entitlements and commits), and
/// memory holds at most `lookahead` prepared items however many the import has.
final class ImportPipeline<Value>: @unchecked Sendable {
    // Every field below is read and written under `condition`'s lock.
    private let condition = NSCondition()
    /// Item i lives in slot i % lookahead, tagged with i, from when it is prepared until the
    /// item that takes the slot next replaces it: a released item is freed on the worker that
    /// prepares its successor, not on the writer's thread.
    private var slots: [(index: Int, value: Value)?]
    private let count: Int
    private var nextToClaim = 0
    private var released = 0
    private var stopping = false
    private var running = 0

    /// Starts preparing `count` items with `work` on one thread per core but one (the writer, the
    /// slower stage, keeps a core to itself). A writer that holds items until it releases them
    /// (a batch, kept for a retry) must keep `lookahead` at least as large as what it holds.
    init(count: Int, lookahead: Int, work: @escaping @Sendable (Int) -> Value) {
        self.count = count
        let window = max(1, min(lookahead, count))
        slots = Array(repeating: nil, count: window)
        let workers = max(1, min(count, ProcessInfo.processInfo.activeProcessorCount - 1))
        running = workers
        for _ in 0..<workers {
            let thread = Thread { [self] in
                while let index = claim() { store(index, work(index)) }
                condition.lock()
                running -= 1
                condition.broadcast()
                condition.unlock()
            }
            thread.name = "receiptdesk import worker"
            thread.start()
        }
    }

    /// Item `index`, waiting until a worker has prepared it. `index` must not have been released
    /// and must lie within `lookahead` of the oldest item not released.
    func value(_ index: Int) -> Value {
        condition.lock()
        defer { condition.unlock() }
        precondition(index >= released && index < released + slots.count && index < count,
                     "import pipeline: item \(index) is outside the window [\(released), \(released + slots.count))")
        while true {
            if let slot = slots[index % slots.count], slot.index == index { return slot.value }
            condition.wait()
        }
    }

    /// The writer is done with every item below `index`: the workers may prepare that many items
    /// further ahead, each freeing the released item whose slot it takes.
    func release(below index: Int) {
        condition.lock()
        defer { condition.unlock() }
        released = max(released, min(index, count))
        nextToClaim = max(nextToClaim, released)
        condition.broadcast()
    }

    /// Stops handing out items, waits for the workers to finish the ones they hold, and frees
    /// the items still kept, here and now: a worker thread may hold the pipeline a moment after
    /// it is done, and the items would otherwise go only with that thread. No item can be read
    /// afterwards.
    func finish() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        let kept = slots
        slots = Array(repeating: nil, count: slots.count)
        condition.unlock()
        withExtendedLifetime(kept) {}
    }

    private func claim() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while !stopping && nextToClaim < count && nextToClaim >= released + slots.count { condition.wait() }
        guard !stopping, nextToClaim < count else { return nil }
        nextToClaim += 1
        return nextToClaim - 1
    }

    private func store(_ index: Int, _ value: Value) {
        condition.lock()
        // An item released before it was prepared (the writer gave up on it) is dropped.
        var replaced: (index: Int, value: Value)?
        if index >= released {
            replaced = slots[index % slots.count]
            slots[index % slots.count] = (index, value)
        }
        condition.broadcast()
        condition.unlock()
        withExtendedLifetime(replaced) {}  // the released item it replaced is freed here, outside the lock
    }
}
