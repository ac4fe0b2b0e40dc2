import Foundation
import PurchaseStore

/// What an import from bench-worker processes cost, apart from how many cores the machine has
/// (issue 30): CPU seconds of the importing processes (each its own /proc/self/stat from `go`
/// to `done`), of PostgreSQL's backends serving them (every client session of the database
/// but the sampler's, from pg_stat_activity, read from /proc/PID/stat at `go` or when first
/// seen and at every sample: `importStream` opens a second session per worker) and of the server's other
/// processes (WAL writer, checkpointer…: /proc/PID/stat of every non-client process in
/// pg_stat_activity, read by the parent at go and after the last done); and the time spent
/// waiting for locks: on SQLite the seconds each worker slept in the product's busy handler
/// (`SQLiteLockWaits`), on PostgreSQL the share of samples, every 10 ms, in which a worker's
/// session waited on a heavyweight lock (`wait_event_type = 'Lock'` in pg_stat_activity:
/// advisory, row, transaction locks), and among those the samples in which it waited for its own
/// import's previous batch (`ImportTurn`: an advisory lock whose class is the process id of the
/// import's first lane).
struct ImportCost {
    var importerCPU = 0.0
    /// Nil when a backend's /proc entry could not be read (a server on another machine).
    var serverCPU: Double? = 0
    var otherServerCPU: Double?
    /// SQLite: seconds slept in busy handlers, and seconds the workers' write transactions held
    /// the file's write lock, each summed over the workers.
    var sqliteWaits = 0.0
    var sqliteHeld = 0.0
    /// PostgreSQL: lock-waiting samples and samples taken (each covers every worker), and the
    /// lock-waiting samples in which the wait was for the import's own previous batch.
    var lockSamples = 0
    var samples = 0
    var ownTurnSamples = 0

    /// Adds a worker's `done N cpu=S server=S lockwait=S lockheld=S` fields.
    mutating func add(workerLine line: String) {
        for field in line.split(separator: " ") {
            let parts = field.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let value = Double(parts[1]) else { continue }
            switch parts[0] {
            case "cpu": importerCPU += value
            case "server": serverCPU = value < 0 ? nil : serverCPU.map { $0 + value }
            case "lockwait": sqliteWaits += value
            case "lockheld": sqliteHeld += value
            default: break
            }
        }
    }

    /// The share of the workers' wall time spent waiting for locks, in percent.
    func lockWaitPercent(backend: String, workers: Int, seconds: Double) -> Double {
        if backend == "postgresql" { return sampleShare(lockSamples, workers: workers) }
        return seconds > 0 ? sqliteWaits / (seconds * Double(workers)) * 100 : 0
    }

    /// PostgreSQL: `count` waiting samples as a share of every worker's samples, in percent.
    private func sampleShare(_ count: Int, workers: Int) -> Double {
        samples > 0 ? min(100, Double(count) / Double(samples * workers) * 100) : 0
    }

    /// The cost rows of one batched import (`name` ends before the unit), aims: importer +
    /// server ≤ 100 µs per transaction on PostgreSQL, the importer ≤ 50 µs on SQLite, lock
    /// waits < 5% of wall time from 4 processes.
    func figures(_ name: String, backend: String, processes: Int, transactions: Int64, seconds: Double, into report: inout LedgerBenchReport) {
        let perTransaction = { (cpu: Double) in transactions > 0 ? cpu / Double(transactions) * 1e6 : 0 }
        report.figures.append(LedgerFigure(name: name + "importer CPU µs per transaction", value: perTransaction(importerCPU),
                                           aim: backend == "sqlite" ? .atMost(50) : .none))
        if backend == "postgresql" {
            if let serverCPU {
                report.figures.append(LedgerFigure(name: name + "server backends' CPU µs per transaction", value: perTransaction(serverCPU), aim: .none))
                report.figures.append(LedgerFigure(name: name + "importer + server backends' CPU µs per transaction",
                                                   value: perTransaction(importerCPU + serverCPU), aim: .atMost(100)))
            } else {
                report.notes.append("backends: \(name)the server's backends are not readable in /proc here (another machine?): no server CPU rows")
            }
            if let otherServerCPU {
                report.figures.append(LedgerFigure(name: name + "server's other processes' CPU µs per transaction (WAL writer, checkpointer…)",
                                                   value: perTransaction(otherServerCPU), aim: .none))
            }
        }
        report.figures.append(LedgerFigure(name: name + "lock waits, % of wall time", value: lockWaitPercent(backend: backend, workers: processes, seconds: seconds),
                                           aim: processes >= 4 ? .below(5) : .none))
        if backend == "sqlite" {
            // No aim: why the row above is what it is. A file has one write lock; held nearly
            // all the time, every importer that wants it while another has it waits.
            report.figures.append(LedgerFigure(name: name + "write lock held by one of the importers, % of wall time",
                                               value: seconds > 0 ? min(100, sqliteHeld / seconds * 100) : 0, aim: .none))
        }
        if backend == "postgresql" {
            // No aim of its own: part of the row above, which keeps its aim.
            report.figures.append(LedgerFigure(name: name + "lock waits for the import's own previous batch (its other session's turn), % of wall time",
                                               value: sampleShare(ownTurnSamples, workers: processes), aim: .none))
        }
    }

    /// The note saying how these were measured.
    static let note = "backends: CPU per transaction from /proc/PID/stat (user + system, 10 ms ticks) from go to done: each importer's own, every client backend of the database (pg_stat_activity; importStream opens two sessions per worker: the one pg_backend_pid() names and its second lane), and the server's other processes (non-client rows of pg_stat_activity, read by the parent; any other work on that server counts too); lock waits: SQLite, seconds slept in the product's busy handler (BEGIN IMMEDIATE behind another writer) ÷ (wall × processes), and the write lock held: seconds from each write transaction's BEGIN IMMEDIATE to the end of its COMMIT, summed over the workers, ÷ wall; PostgreSQL, the share of 10 ms samples of pg_stat_activity in which a session of the workers waited on a lock (wait_event_type Lock: advisory, row, transaction), per worker; of those, the waits for the import's own previous batch: the session's ungranted lock in pg_locks is an advisory lock of its import's class (ImportTurn: importStream's second session waits for the first's batch before it appends to the audit chain, by design, even from one process)"
}

/// Samples pg_stat_activity on its own connection while an import runs, and reads the server's
/// non-client processes' CPU at the start and the end.
final class LockWaitSampler: @unchecked Sendable {
    private let database: PostgresDatabase
    private let pids: [Int64]
    private let lock = NSLock()
    private var running = true
    private var lockSamples = 0, samples = 0, ownTurnSamples = 0
    private var others: [Int64: Double] = [:]
    /// Each client backend's CPU seconds when first seen (0 when it started after `go`) and last read.
    private var clients: [Int64: (first: Double, last: Double)] = [:]
    private let done = DispatchSemaphore(value: 0)

    /// Connects to `url` (the import's database) to watch the backends `pids`.
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

    /// Starts sampling on a thread of its own.
    func start() {
        let list = pids.map(String.init).joined(separator: ", ")
        Thread.detachNewThread { [self] in
            defer { done.signal() }
            while lock.withLock({ running }) {
                // A failed sample is skipped: the figure is the share of the samples taken.
                // An import's turn locks are advisory locks whose class (classid) is the process
                // id of its first lane's session (`ImportTurn.key`), a session of this database;
                // the product's other advisory locks (write keys, the writer lock) are 64-bit
                // hashes, whose upper half names a live session only by a one-in-a-billion chance.
                if let row = try? database.queryFirst("""
                    SELECT count(*) FILTER (WHERE a.wait_event_type = 'Lock') AS waiting,
                           count(*) FILTER (WHERE a.wait_event_type = 'Lock' AND EXISTS (
                             SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND NOT l.granted AND l.locktype = 'advisory'
                             AND l.classid::bigint IN (SELECT s.pid FROM pg_stat_activity s WHERE s.datname = current_database()))) AS own_turn
                    FROM pg_stat_activity a
                    WHERE a.pid IN (\(list)) OR (a.backend_type = 'client backend' AND a.datname = current_database() AND a.pid <> pg_backend_pid())
                    """, []) {
                    lock.withLock {
                        lockSamples += Int(row.int("waiting") ?? 0)
                        ownTurnSamples += Int(row.int("own_turn") ?? 0)
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

    /// Stops sampling; the lock-waiting samples (one per waiting backend), the samples, the
    /// lock-waiting samples that waited for their own import's previous batch, and the server's
    /// other processes' CPU seconds meanwhile (nil when unreadable).
    func stop() -> (lockSamples: Int, samples: Int, ownTurnSamples: Int, otherCPU: Double?) {
        lock.withLock { running = false }
        done.wait()
        let after = (try? Self.otherProcesses(database)) ?? [:]  // unreadable: no row, said in the note
        let common = others.keys.filter { after[$0] != nil }
        let cpu = common.isEmpty ? nil : common.reduce(0.0) { $0 + max(0, (after[$1] ?? 0) - (others[$1] ?? 0)) }
        return lock.withLock { (lockSamples, samples, ownTurnSamples, cpu) }
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
