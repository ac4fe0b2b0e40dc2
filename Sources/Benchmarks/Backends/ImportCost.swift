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
/// advisory, row, transaction, relation extension locks), split by what it waited for
/// (`LockWaitKind`, read by `LockWaitSampler`).
struct ImportCost {
    var importerCPU = 0.0
    /// Nil when a backend's /proc entry could not be read (a server on another machine).
    var serverCPU: Double? = 0
    var otherServerCPU: Double?
    /// SQLite: seconds slept in busy handlers, and seconds the workers' write transactions held
    /// the file's write lock, each summed over the workers.
    var sqliteWaits = 0.0
    var sqliteHeld = 0.0
    /// PostgreSQL: samples taken (each covers every worker), and the lock-waiting samples (one
    /// per waiting session in each sample) by what they waited for.
    var samples = 0
    var waitSamples: [LockWaitKind: Int] = [:]

    /// PostgreSQL: every lock-waiting sample, whatever it waited for.
    var lockSamples: Int { waitSamples.values.reduce(0, +) }

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
            // No aims of their own: the row above, which keeps its aim, split by what was waited
            // for; the four add up to it.
            for kind in LockWaitKind.allCases {
                report.figures.append(LedgerFigure(name: name + kind.rowName, value: sampleShare(waitSamples[kind] ?? 0, workers: processes), aim: .none))
            }
        }
    }

    /// The note saying how these were measured.
    static let note = "backends: CPU per transaction from /proc/PID/stat (user + system, 10 ms ticks) from go to done: each importer's own, every client backend of the database (pg_stat_activity; importStream writes on two sessions per worker while it is the only import, then on the one pg_backend_pid() names), and the server's other processes (non-client rows of pg_stat_activity, read by the parent; any other work on that server counts too); lock waits: SQLite, seconds slept in the product's busy handler (BEGIN IMMEDIATE behind another writer) ÷ (wall × processes), and the write lock held: seconds from each write transaction's BEGIN IMMEDIATE to the end of its COMMIT, summed over the workers, ÷ wall; PostgreSQL, the share of 10 ms samples of pg_stat_activity in which a session of the workers waited on a lock (wait_event_type Lock: advisory, row, transaction, relation extension), per worker; those split by the session's ungranted lock in pg_locks and who blocks it (pg_blocking_pids): the import's own other session (an advisory lock of its import's class: ImportTurn, importStream's second session waits for the first's batch before it appends to the audit chain, by design, even from one process; or any lock whose holders all belong to the import, a session belonging to the import whose class its advisory locks carry), the audit chain's writer lock (the advisory key of the database's schema: another writer appending and committing), relation extension (wait_event extend: two sessions growing one table or index), and the rest (write keys, rows, transactions)"
}
