import CSQLite
import Foundation

/// Copies a connection's write-ahead log back into the database file on a thread of its own,
/// with a connection of its own, instead of inside the writer's COMMIT (SQLite's automatic
/// checkpoint): a long import keeps writing while the pages it wrote earlier are copied and
/// synced. Installed as the writing connection's WAL hook, which SQLite calls after every commit
/// with the log's size in pages.
///
/// - Once the log holds `backgroundPages`, the thread copies it (a PASSIVE checkpoint, which
///   never blocks the writer or readers).
/// - When little is left beyond what the thread last copied (at most a quarter of
///   `backgroundPages`), the writer copies that remainder itself, so the whole log is in the
///   database file and the next write starts it afresh: the log stays bounded however long the
///   import runs.
/// - Should the log ever reach `inlinePages` (the thread cannot keep up), the writer waits for
///   the thread's copy under way and copies the rest now, as SQLite's own automatic checkpoint
///   would.
final class SQLiteCheckpointer: @unchecked Sendable {
    let path: String
    let backgroundPages: Int32
    let inlinePages: Int32
    // Every field below is read and written under `condition`'s lock.
    private let condition = NSCondition()
    private var requested = false
    private var copying = false
    private var stopping = false
    private var running = false
    /// The log's frames the last background checkpoint had copied, when it ended.
    private var copiedThrough: Int32 = 0
    /// Background checkpoints run so far, and the sum over them of the log frames each found
    /// copied when it ended.
    private var runs = 0
    private var frames = 0
    /// The log's size after the previous commit, and whether it has started afresh since the
    /// last background copy (read and written on the writer's thread only).
    private var previousPages: Int32 = 0
    private var restarted = false

    init(path: String, backgroundPages: Int32, inlinePages: Int32) {
        self.path = path
        self.backgroundPages = max(1, backgroundPages)
        self.inlinePages = max(self.backgroundPages, inlinePages)
    }

    /// The background checkpoints run so far and the sum over them of the log frames each found
    /// copied when it ended (for tests).
    var backgroundProgress: (runs: Int, frames: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (runs, frames)
    }

    /// Installs the checkpointer as `db`'s WAL hook (replacing SQLite's automatic checkpoint).
    /// The connection must call `stop()` before it closes.
    func install(on db: OpaquePointer) {
        sqlite3_wal_hook(db, { context, db, _, pages in
            guard let context, let db else { return SQLITE_OK }
            Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(db, pages: pages)
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// After a commit that left `pages` frames in the log.
    func committed(_ db: OpaquePointer, pages: Int32) {
        if pages < previousPages { restarted = true }  // the log was copied whole and started afresh
        previousPages = pages
        guard pages >= backgroundPages else { return }
        condition.lock()
        if restarted && !copying {
            copiedThrough = 0  // what was copied belonged to the log before
            restarted = false
        }
        let left = pages >= copiedThrough ? pages - copiedThrough : pages
        if pages >= inlinePages {
            // The thread cannot keep up: the writer waits for its copy under way (a checkpoint
            // next to it would find the log busy and copy nothing), takes over the request and
            // copies the rest itself, so the next write starts the log afresh.
            while copying { condition.wait() }
            requested = false
        }
        let finishHere = !copying && !requested && left <= backgroundPages / 4
        if finishHere || pages >= inlinePages {
            condition.unlock()
            // Passive: whatever a reader still needs stays in the log, to be copied next time.
            sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        }
        if !copying {
            requested = true
            if !running { startThread() }
            condition.broadcast()
        }
        condition.unlock()
    }

    /// Stops the thread, waiting for a checkpoint under way, and closes its connection.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    /// Called with the lock held.
    private func startThread() {
        running = true
        let thread = Thread { [self] in work() }
        thread.name = "receiptdesk checkpoint"
        thread.start()
    }

    private func work() {
        var connection: OpaquePointer?
        var readOnce = false
        if sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let connection {
            sqlite3_busy_timeout(connection, 1_000)
        }
        condition.lock()
        while true {
            while !requested && !stopping { condition.wait() }
            if stopping { break }
            requested = false
            copying = true
            condition.unlock()
            var log: Int32 = 0
            var copied: Int32 = 0
            // A connection learns that the file is in WAL mode only when it first reads it; until
            // then a checkpoint on it does nothing and says so with a log of -1 frames.
            if let connection, !readOnce {
                readOnce = sqlite3_exec(connection, "SELECT count(*) FROM sqlite_master", nil, nil, nil) == SQLITE_OK
            }
            // A connection that could not open leaves the work to the writer (inlinePages).
            let code = connection.map { sqlite3_wal_checkpoint_v2($0, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &copied) } ?? SQLITE_CANTOPEN
            condition.lock()
            copying = false
            condition.broadcast()  // a writer at the inline limit waits for this copy to end
            runs += 1
            if code == SQLITE_OK && copied >= 0 {
                copiedThrough = copied
                frames += Int(copied)
            }
        }
        condition.unlock()
        // Closed before `stop()` returns, so that the writer's connection, closing next, is the
        // last one and folds the log into the file as SQLite does on a last close.
        sqlite3_close_v2(connection)
        condition.lock()
        running = false
        condition.broadcast()
        condition.unlock()
    }
}
