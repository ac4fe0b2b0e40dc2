import Foundation
import Glibc

/// The exclusive lock every process takes on a simulator state directory before it reads the
/// records to change them, held until the changed records are saved: `flock(2)` on
/// `DIR/state.lock`, so `simulator mint` processes and simulator servers over one directory take
/// turns, each starting from what the one before saved.
///
/// The file also holds the generation of the last save made under it, as decimal text
/// ("17"), so a process can tell cheaply whether state.json changed since it last read it
/// (`SimulatorStateVersion`). The lock goes with the open file: closing it (`release()`, or the
/// process ending, however it ends) lets the next process in. Never delete state.lock while a
/// process may be using the directory.
final class SimulatorStateFileLock {
    /// The lock file's name inside the state directory.
    static let fileName = "state.lock"

    /// The lock file's path.
    let path: String
    private var descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Waits until this process holds the lock of `directory` (made, with the lock file, when
    /// missing): alone, or with `shared` together with other readers (no writer). Throws
    /// `SimulatorError(.persistence)` naming the file when it cannot be opened or locked.
    static func acquire(directory: URL, shared: Bool = false) throws -> SimulatorStateFileLock {
        // Cannot be nil: a lock that may wait is always taken in the end.
        guard let lock = try acquire(directory: directory, shared: shared, wait: true) else {
            throw SimulatorError(.persistence, "cannot lock the simulator state lock in \(directory.path)")
        }
        return lock
    }

    /// As `acquire(directory:shared:)`, but without `wait` returns nil at once when another
    /// process holds the lock in a way that excludes this one.
    static func acquire(directory: URL, shared: Bool, wait: Bool) throws -> SimulatorStateFileLock? {
        let path = directory.appendingPathComponent(fileName).path
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            // Another process may have made it a moment ago; only a missing directory is a failure.
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw SimulatorError(.persistence, "cannot make the simulator state directory \(directory.path): \(error.localizedDescription)")
            }
        }
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw SimulatorError(.persistence, "cannot open the simulator state lock \(path): \(String(cString: strerror(errno)))")
        }
        while flock(descriptor, (shared ? LOCK_SH : LOCK_EX) | (wait ? 0 : LOCK_NB)) != 0 {
            let failure = errno
            if failure == EINTR { continue }
            close(descriptor)
            if failure == EWOULDBLOCK, !wait { return nil }
            throw SimulatorError(.persistence, "cannot lock the simulator state lock \(path): \(String(cString: strerror(failure)))")
        }
        return SimulatorStateFileLock(path: path, descriptor: descriptor)
    }

    /// The generation the lock file holds (0 when empty, as a new one is). Throws when it cannot
    /// be read or holds something else than a number.
    func generation() throws -> Int64 {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else {
            throw SimulatorError(.persistence, "cannot read the simulator state lock \(path): \(String(cString: strerror(errno)))")
        }
        let text = String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { return 0 }
        guard let value = Int64(text), value >= 0 else {
            throw SimulatorError(.persistence, "simulator state lock \(path) holds '\(text.prefix(40))', not a generation number")
        }
        return value
    }

    /// Writes `generation` into the lock file (after a save).
    func setGeneration(_ generation: Int64) throws {
        let bytes = Array("\(generation)\n".utf8)
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard written == bytes.count, ftruncate(descriptor, off_t(bytes.count)) == 0 else {
            throw SimulatorError(.persistence, "cannot write the generation into the simulator state lock \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Lets the next process in (closing the file drops the lock). Calling it again does nothing.
    func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
