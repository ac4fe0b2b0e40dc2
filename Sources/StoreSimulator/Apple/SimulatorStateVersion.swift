import Foundation
import Glibc

/// Which version of a state.json a process last read or wrote: the generation in state.lock
/// and what `stat(2)` says about the file (device, inode, size, modification and change
/// times). Every save replaces the file (write to a temporary file, then rename), so a save by
/// any process changes the inode and the times; one made under the lock also changes the
/// generation, which catches what a reused inode within one clock tick would hide.
struct SimulatorStateVersion: Equatable {
    /// The generation in state.lock.
    let generation: Int64
    /// The file's identity and times; nil when there is no file.
    let stamp: [Int64]?

    /// The version on disk now; call it holding `lock`.
    init(file: URL, lock: SimulatorStateFileLock) throws {
        generation = try lock.generation()
        var info = stat()
        if stat(file.path, &info) == 0 {
            stamp = [Int64(bitPattern: UInt64(info.st_dev)), Int64(bitPattern: UInt64(info.st_ino)), Int64(info.st_size),
                     Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec), Int64(info.st_ctim.tv_sec), Int64(info.st_ctim.tv_nsec)]
        } else if errno == ENOENT {
            stamp = nil
        } else {
            throw SimulatorError(.persistence, "cannot look at simulator state \(file.path): \(String(cString: strerror(errno)))")
        }
    }
}
