import CSQLite
import Foundation
import Synchronization

/// How a SQLite connection waits for another's lock: polling in short sleeps for at most
/// `SQLiteDatabase.busyTimeoutMilliseconds`, giving up at once when `isCancelled` says so
/// (SQLite's own busy_timeout cannot be interrupted).
final class BusyWait: @unchecked Sendable {
    // Set before the connection is used from the thread that then uses it; read by the handler
    // on that same thread.
    var isCancelled: (@Sendable () -> Bool)?

    /// Installs the handler on `db`; `state` must outlive the connection (the database owns it).
    static func install(on db: OpaquePointer, _ state: BusyWait) {
        sqlite3_busy_handler(db, { context, count in
            guard let context else { return 0 }
            let state = Unmanaged<BusyWait>.fromOpaque(context).takeUnretainedValue()
            if state.isCancelled?() == true { return 0 }
            // Sleeps of 1, 2, 5, 10, then 20 ms: about as SQLite's own handler waits. `slept[n]` is
            // the time the first n sleeps took.
            let steps: [Int32] = [1, 2, 5, 10, 20]
            let slept: [Int32] = [0, 1, 3, 8, 18]
            let n = Int(count)
            let waited = n < slept.count ? slept[n] : slept[slept.count - 1] + Int32(n - (slept.count - 1)) * 20
            guard waited < SQLiteDatabase.busyTimeoutMilliseconds else { return 0 }
            let asleep = DispatchTime.now().uptimeNanoseconds
            usleep(useconds_t(steps[min(n, steps.count - 1)]) * 1000)
            SQLiteLockWaits.nanoseconds.add(DispatchTime.now().uptimeNanoseconds &- asleep, ordering: .relaxed)
            return state.isCancelled?() == true ? 0 : 1
        }, Unmanaged.passUnretained(state).toOpaque())
    }
}

/// How long this process's SQLite connections have slept in the busy handler, waiting for
/// another connection's lock (a writer's `BEGIN IMMEDIATE` behind another writer): the lock
/// waits the benchmarks report as a share of wall time. Beside them, how long they held the
/// write lock (from `BEGIN IMMEDIATE` to the end of `COMMIT` or `ROLLBACK`): summed over the
/// processes writing one file, the share of wall time the file's one write lock was taken.
public enum SQLiteLockWaits {
    static let nanoseconds = Atomic<UInt64>(0)
    static let heldNanoseconds = Atomic<UInt64>(0)

    /// Seconds slept waiting for a lock since the process started, over every connection.
    public static var seconds: Double { Double(nanoseconds.load(ordering: .relaxed)) / 1e9 }

    /// Seconds this process's write transactions held the write lock since it started.
    public static var heldSeconds: Double { Double(heldNanoseconds.load(ordering: .relaxed)) / 1e9 }
}
