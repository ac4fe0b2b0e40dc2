import Foundation

/// Opening a simulator's state without waiting for its records: the demo's state.json holds
/// every transaction and notification the simulator ever issued (tens of megabytes for a large
/// demo), and a console must not wait for it before its first screen. The records load on a
/// thread of their own; anything that reads or changes them meanwhile waits for that load
/// (`RecordsGate`), and a load that failed leaves them unread, so the next request reads the
/// file again and reports what is wrong.
extension SimulatorState {
    /// Loads `file` (the state's `autosaveFile`) in the background, under the directory's lock
    /// shared with other readers; until it is loaded every use of the records waits.
    func loadInBackground(_ file: URL) {
        recordsGate.close()
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
        thread.start()
    }

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

/// A gate that is open unless records are loading; waiting at an open gate costs a lock.
final class RecordsGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = true

    func close() {
        condition.lock()
        isOpen = false
        condition.unlock()
    }

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    func wait() {
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }
}
