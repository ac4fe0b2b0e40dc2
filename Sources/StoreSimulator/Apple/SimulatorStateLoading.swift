import Foundation

/// Opening a simulator's state without waiting for its records: the demo's state.json holds
/// every transaction and notification the simulator ever issued (tens of megabytes for a large
/// demo), and a console must not wait for it before its first screen. The records load on a
/// thread of their own; anything that reads or changes them meanwhile waits for that load
/// (`RecordsGate`), and a load that failed leaves them unread, so the next request reads the
/// file again and reports what is wrong.
extension SimulatorState {
    /// Loads `file` (the state's `autosaveFile`) in the background, under the directory's lock
    /// shared with other readers; until it is loaded every use of the records waits. With
    /// `deferred`, the load starts only when `beginDeferredLoad()` is called or the records are
    /// first needed, whichever comes first: a console draws its first screen before the load
    /// takes a core from it.
    func loadInBackground(_ file: URL, deferred: Bool = false) {
        let thread = Thread { [self] in
            defer { recordsGate.open() }
            do {
                let fileLock = try SimulatorStateFileLock.acquire(directory: file.deletingLastPathComponent(), shared: true)
                defer { fileLock.release() }
                try changeLock.withLock { try catchUp(with: file, holding: fileLock) }
                backgroundLoadFailure = nil
            } catch {
                backgroundLoadFailure = error
            }
        }
        thread.name = "simulator state load"
        recordsGate.close(startingWith: deferred ? { thread.start() } : nil)
        if !deferred { thread.start() }
    }

    /// Starts a load `loadInBackground(_:deferred:)` put off; nothing when none is waiting.
    public func beginDeferredLoad() { recordsGate.startPending() }

    /// Whether a deferred load is still waiting to start (for tests).
    var loadIsPending: Bool { recordsGate.hasPendingStart }

    /// After a failed background load: reads the file again (throws when it still cannot).
    func catchUpAfterFailedLoad() throws {
        guard let file = autosaveFile else { return }
        let fileLock = try SimulatorStateFileLock.acquire(directory: file.deletingLastPathComponent(), shared: true)
        defer { fileLock.release() }
        try changeLock.withLock { try catchUp(with: file, holding: fileLock) }
        backgroundLoadFailure = nil
    }

    /// Waits until records loading in the background are there.
    public func waitUntilLoaded() { recordsGate.wait() }
}

/// A gate that is open unless records are loading; waiting at an open gate costs a lock. A
/// gate closed for a load that has not started yet starts it when somebody first waits.
final class RecordsGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = true
    private var pendingStart: (() -> Void)?

    /// Closes the gate; `start`, when given, begins the load later (`startPending`, `wait`).
    func close(startingWith start: (() -> Void)? = nil) {
        condition.lock()
        isOpen = false
        pendingStart = start
        condition.unlock()
    }

    /// Runs the pending start, once.
    func startPending() {
        condition.lock()
        let start = pendingStart
        pendingStart = nil
        condition.unlock()
        start?()
    }

    var hasPendingStart: Bool {
        condition.lock()
        defer { condition.unlock() }
        return pendingStart != nil
    }

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    func wait() {
        startPending()
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }
}
