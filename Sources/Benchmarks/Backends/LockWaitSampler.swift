import Foundation
import PurchaseStore

/// What a PostgreSQL session waiting on a heavyweight lock (`wait_event_type = 'Lock'`) waited
/// for, told from its `wait_event` and its ungranted lock in `pg_locks`. The bench splits the
/// import's lock waits by these, so the aimed total says where it comes from.
enum LockWaitKind: CaseIterable, Sendable {
    /// Its own import's other session: an advisory lock whose class (`classid`) is the process
    /// id of a session of the database (`ImportTurn`: the import's first lane's), or any lock
    /// held only by sessions of the same import (a row the other lane's batch holds).
    case ownTurn
    /// The audit chain's writer lock (`PostgresDatabase.writerLockKey`, the one-key form):
    /// another writer appending its audit entries and committing.
    case auditChain
    /// A table or index growing by a page while another session grows it (`wait_event` extend).
    case relationExtension
    /// Everything else: write keys (customers, transaction ids, receipts), rows, transactions,
    /// and a wait whose lock was granted between the two reads of a sample.
    case other

    /// The bench row's name after the import's prefix.
    var rowName: String {
        switch self {
        case .ownTurn: return "lock waits for the import's own other session (its previous batch's turn or rows), % of wall time"
        case .auditChain: return "lock waits for the audit chain's writer lock (another import's append and commit), % of wall time"
        case .relationExtension: return "lock waits for a table or index to grow (relation extension), % of wall time"
        case .other: return "lock waits on write keys, rows and the rest, % of wall time"
        }
    }

    /// The kind of one waiting session: its `wait_event`, and its ungranted lock's `locktype`,
    /// `classid`, `objid` and `objsubid` (nil when none was found), whether that `classid` is the
    /// process id of a session of the database, whether every session blocking it belongs to
    /// its own import, and the database's writer lock key.
    static func of(waitEvent: String?, lockType: String?, classId: Int64?, objectId: Int64?, objectSubId: Int64?,
                   classIsSession: Bool, blockedByOwnImport: Bool = false, writerLockKey: Int64) -> LockWaitKind {
        if waitEvent == "extend" || lockType == "extend" { return .relationExtension }
        if (lockType == "advisory" && classIsSession) || blockedByOwnImport { return .ownTurn }
        guard lockType == "advisory" else { return .other }
        // pg_advisory_xact_lock(bigint) keeps the key's upper half in classid, its lower in objid.
        if objectSubId == 1, let classId, let objectId,
           UInt64(UInt32(truncatingIfNeeded: classId)) << 32 | UInt64(UInt32(truncatingIfNeeded: objectId)) == UInt64(bitPattern: writerLockKey) {
            return .auditChain
        }
        return .other
    }
}

/// Samples pg_stat_activity on its own connection while an import runs, and reads the server's
/// non-client processes' CPU at the start and the end.
final class LockWaitSampler: @unchecked Sendable {
    private let database: PostgresDatabase
    private let pids: [Int64]
    private let lock = NSLock()
    private var running = true
    private var samples = 0
    private var waits: [LockWaitKind: Int] = [:]
    private var others: [Int64: Double] = [:]
    /// Each client backend's CPU seconds when first seen (0 when it started after `go`) and last read.
    private var clients: [Int64: (first: Double, last: Double)] = [:]
    private let done = DispatchSemaphore(value: 0)

    /// Connects to `url` (the import's database, and schema: its writer lock is the one told
    /// apart) to watch the backends `pids` and every other client session of the database.
    init(url: String, pids: [Int64]) throws {
        database = try PostgresDatabase(url: url)
        self.pids = pids
        others = try Self.otherProcesses(database)
        for pid in try clientPids() { if let cpu = ProcessStats.cpuSeconds(pid: String(pid)) { clients[pid] = (cpu, cpu) } }
    }

    /// The client backends of this database but the sampler's own: the workers' sessions,
    /// including the second session `importStream` opens on PostgreSQL (`ImportLanes`).
    private func clientPids() throws -> [Int64] {
        try database.query("""
            SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND datname = current_database() AND pid <> pg_backend_pid()
            """, []).compactMap { $0.int("pid") }
    }

    /// The client backends' CPU seconds from `go` to the last sample (a session that ended
    /// between samples loses at most one sampling interval of its time).
    var serverCPU: Double? {
        lock.withLock { clients.isEmpty ? nil : clients.values.reduce(0) { $0 + max(0, $1.last - $1.first) } }
    }

    /// The samples so far, and the lock-waiting ones by kind (one per waiting session in each sample).
    var progress: (samples: Int, waits: [LockWaitKind: Int]) { lock.withLock { (samples, waits) } }

    /// One sample: a row per waiting session with what its ungranted lock names, and whether
    /// the sessions blocking it (`pg_blocking_pids`) all belong to its own import. A session
    /// belongs to the import whose class its advisory locks carry (`ImportTurn`: each lane holds
    /// its batch's turn and customers under the first lane's process id), the first lane too.
    private var sampleSQL: String {
        let list = pids.isEmpty ? "0" : pids.map(String.init).joined(separator: ", ")
        return """
            WITH sessions AS (SELECT pid FROM pg_stat_activity WHERE datname = current_database()),
                 turns AS (SELECT DISTINCT l.pid, l.classid::bigint AS import FROM pg_locks l
                            WHERE l.locktype = 'advisory' AND l.classid::bigint IN (SELECT pid FROM sessions)),
                 member AS (SELECT pid, import FROM turns UNION SELECT import, import FROM turns),
                 waiting AS (
                   SELECT a.pid, a.wait_event, pg_blocking_pids(a.pid) AS blockers FROM pg_stat_activity a
                    WHERE a.wait_event_type = 'Lock'
                      AND (a.pid IN (\(list)) OR (a.backend_type = 'client backend' AND a.datname = current_database() AND a.pid <> pg_backend_pid())))
            SELECT w.pid, w.wait_event, l.locktype, l.classid::bigint AS classid, l.objid::bigint AS objid, l.objsubid::bigint AS objsubid,
                   CASE WHEN l.locktype = 'advisory' AND l.classid::bigint IN (SELECT pid FROM sessions) THEN 1 ELSE 0 END AS class_is_session,
                   CASE WHEN cardinality(w.blockers) > 0 AND EXISTS (
                          SELECT 1 FROM member mine WHERE mine.pid = w.pid AND NOT EXISTS (
                            SELECT 1 FROM unnest(w.blockers) AS b(pid)
                             WHERE NOT EXISTS (SELECT 1 FROM member theirs WHERE theirs.pid = b.pid AND theirs.import = mine.import)))
                        THEN 1 ELSE 0 END AS blocked_by_own_import
              FROM waiting w
              LEFT JOIN LATERAL (SELECT * FROM pg_locks g WHERE g.pid = w.pid AND NOT g.granted LIMIT 1) l ON true
            """
    }

    /// Takes one sample now: each waiting session's process id and what it waits for.
    func sampleOnce() throws -> [(pid: Int64, kind: LockWaitKind)] {
        let writerLockKey = database.writerLockKey
        return try database.query(sampleSQL, []).map { row in
            (row.int("pid") ?? 0,
             LockWaitKind.of(waitEvent: row.string("wait_event"), lockType: row.string("locktype"), classId: row.int("classid"),
                             objectId: row.int("objid"), objectSubId: row.int("objsubid"),
                             classIsSession: row.int("class_is_session") == 1, blockedByOwnImport: row.int("blocked_by_own_import") == 1,
                             writerLockKey: writerLockKey))
        }
    }

    /// Starts sampling on a thread of its own, every 10 ms.
    func start() {
        Thread.detachNewThread { [self] in
            defer { done.signal() }
            while lock.withLock({ running }) {
                // A failed sample is skipped: the figures are shares of the samples taken.
                if let waiting = try? sampleOnce() {
                    lock.withLock {
                        for (_, kind) in waiting { waits[kind, default: 0] += 1 }
                        samples += 1
                    }
                }
                for pid in (try? clientPids()) ?? [] {  // a failed read is skipped, as a sample is
                    guard let cpu = ProcessStats.cpuSeconds(pid: String(pid)) else { continue }
                    lock.withLock { clients[pid] = (clients[pid]?.first ?? 0, cpu) }
                }
                usleep(10_000)
            }
        }
    }

    /// Stops sampling; the samples, the lock-waiting samples by kind (one per waiting session in
    /// each sample), and the server's other processes' CPU seconds meanwhile (nil when unreadable).
    func stop() -> (samples: Int, waits: [LockWaitKind: Int], otherCPU: Double?) {
        lock.withLock { running = false }
        done.wait()
        let after = (try? Self.otherProcesses(database)) ?? [:]  // unreadable: no row, said in the note
        let common = others.keys.filter { after[$0] != nil }
        let cpu = common.isEmpty ? nil : common.reduce(0.0) { $0 + max(0, (after[$1] ?? 0) - (others[$1] ?? 0)) }
        return lock.withLock { (samples, waits, cpu) }
    }

    /// CPU seconds of each of the server's non-client processes that /proc shows.
    private static func otherProcesses(_ database: PostgresDatabase) throws -> [Int64: Double] {
        var found: [Int64: Double] = [:]
        for row in try database.query("SELECT pid FROM pg_stat_activity WHERE backend_type <> 'client backend'", []) {
            if let pid = row.int("pid"), let cpu = ProcessStats.cpuSeconds(pid: String(pid)) { found[pid] = cpu }
        }
        return found
    }
}
