import Foundation

/// Changing the records as one read-modify-write of the state directory, safe against other
/// threads and other processes using the same directory:
///
///     let state = try SimulatorStateDirectory.open(directory)
///     let minted = try state.change {
///         try state.mintSignedTransaction(environment: .sandbox, purchase: purchase, signedDate: now)
///     }
///
/// With an `autosaveFile`, `change` takes the directory's lock (`SimulatorStateFileLock`),
/// reads state.json again when another process saved it since these records were read or
/// saved here (`SimulatorStateVersion`), runs the body, and saves (atomically: a temporary file,
/// then rename) before letting go. Two `simulator mint` processes so get different transaction
/// ids, and a long-running simulator server does not write over what a mint added meanwhile.
/// Within one process changes take turns too. What the body changed is undone in memory when
/// it throws or the save fails, so memory and file stay alike. Without an `autosaveFile` the
/// body simply runs (each single record change is under the in-memory lock anyway).
///
/// A notification minted inside a change is POSTed with the lock held (for at most
/// `notificationTimeout`). Records changed outside `change` on a state with an `autosaveFile`
/// are saved by the next change only if no other process saved in between; otherwise that
/// change (or `catchUp()`) reads the file and they are gone. Reads need no `change`; a
/// long-running server calls `catchUp()` before each request that only reads, so it answers
/// with what other processes minted meanwhile.
extension SimulatorState {
    /// Runs `body` as one change of the records, saved before this returns (see above). A change
    /// inside another is part of the outer one. Throws what `body` throws, or
    /// `SimulatorError(.persistence)` when the state directory cannot be locked, read or written.
    @discardableResult
    public func change<T>(_ body: () throws -> T) throws -> T {
        // Without a file each record change is under the in-memory lock already; changes need
        // not take turns (a slow notification receiver then stalls only its own request).
        guard let file = autosaveFile else { return try body() }
        changeLock.lock()
        defer { changeLock.unlock() }
        guard changeDepth == 0 else {
            changeDepth += 1
            defer { changeDepth -= 1 }
            return try body()
        }
        let fileLock = try SimulatorStateFileLock.acquire(directory: file.deletingLastPathComponent())
        defer { fileLock.release() }
        try catchUp(with: file, holding: fileLock)
        let before = snapshot()
        do {
            changeDepth += 1
            defer { changeDepth -= 1 }
            let result = try body()
            try write(to: file, holding: fileLock)
            return result
        } catch {
            withRecords { $0 = before }
            throw error
        }
    }

    /// Reads `autosaveFile` again, under the directory's lock shared with other readers, when
    /// another process saved it since these records were read or saved here. Never waits: does
    /// nothing without an `autosaveFile`, or while a change runs in this process or another
    /// (what it is about to save is not there yet; a read then answers as before it). Throws
    /// `SimulatorError(.persistence)` when the lock file cannot be opened or the state file
    /// read (the records then stay as they were).
    public func catchUp() throws {
        guard autosaveFile != nil, changeLock.try() else { return }
        defer { changeLock.unlock() }
        guard changeDepth == 0, let file = autosaveFile,
              let fileLock = try SimulatorStateFileLock.acquire(directory: file.deletingLastPathComponent(), shared: true, wait: false)
        else { return }
        defer { fileLock.release() }
        try catchUp(with: file, holding: fileLock)
    }

    /// Loads `file` when it is not the version these records were read from or saved as; call
    /// it holding `changeLock` and the directory's lock.
    func catchUp(with file: URL, holding fileLock: SimulatorStateFileLock) throws {
        let current = try SimulatorStateVersion(file: file, lock: fileLock)
        if current != seenVersion, current.stamp != nil { try load(from: file) }
        seenVersion = current
    }

    /// Saves the records to `file` and counts the save in the lock file; call it holding
    /// `changeLock` and the directory's lock.
    func write(to file: URL, holding fileLock: SimulatorStateFileLock) throws {
        let generation = try fileLock.generation() % Int64.max + 1
        try save(to: file)
        try fileLock.setGeneration(generation)
        seenVersion = try SimulatorStateVersion(file: file, lock: fileLock)
    }
}
