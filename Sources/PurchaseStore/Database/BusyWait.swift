import CSQLite
import Foundation

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
            // Sleeps of 1, 2, 5, 10, then 20 ms: about as SQLite's own handler waits.
            let steps: [Int32] = [1, 2, 5, 10, 20]
            let waited = (0..<Int(count)).reduce(Int32(0)) { $0 + steps[min($1, steps.count - 1)] }
            guard waited < SQLiteDatabase.busyTimeoutMilliseconds else { return 0 }
            usleep(useconds_t(steps[min(Int(count), steps.count - 1)]) * 1000)
            return state.isCancelled?() == true ? 0 : 1
        }, Unmanaged.passUnretained(state).toOpaque())
    }
}
