import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// `receiptdesk bench --postgres URL` (and `receiptdesk db bench --postgres URL --processes`):
/// import throughput from 1 and from 4 *processes* on PostgreSQL beside SQLite, each process a
/// `receiptdesk db bench-worker` with its own connection, plus the ledger lookups. Each worker
/// builds and verifies its share of the receipts first and reports ready; the clock runs from
/// the moment all are told to go until the last one finishes. Two ways of importing, each its
/// own rows: the batched import as `receiptdesk import FILE…` runs it (the receipts read from
/// files by `importStream`, batches of 100: the rows with aims), the same into a database that
/// already holds a shop's purchases (filled first, unmeasured: its indexes are deeper and its
/// log is copied back into the file while the import runs, which an empty database never
/// reaches; the same aims), and one `importArtefact` per receipt (a receipt pasted into the
/// console: no aim, kept because it is a different path).
enum PostgresBench {
    /// How a bench worker imports its receipts.
    enum Mode: CaseIterable {
        /// `importStream` in batches of 100, the receipts read from files (`receiptdesk import FILE…`).
        case batched
        /// As `batched`, into a database already holding `fillFactor` times as many receipts.
        case batchedIntoFilled
        /// One `importArtefact` (one write transaction) per receipt.
        case oneEach

        /// The `--batch` the worker gets.
        var batchSize: Int { self == .oneEach ? 1 : 100 }

        /// How the rows name it, when `receipts` receipts are measured.
        func label(receipts: Int) -> String {
            switch self {
            case .batched: return "batches of 100 as receiptdesk import (importStream)"
            case .batchedIntoFilled:
                let held = receipts * PostgresBench.fillFactor * LedgerImportBench.purchasesPerReceipt
                return Mode.batched.label(receipts: receipts) + " into a database already holding \(ScaleBench.label(held)) transactions"
            case .oneEach: return "one importArtefact each"
            }
        }
    }

    /// The filled database holds this many times the receipts measured (imported first, by two
    /// processes, not measured): 4,000 measured receipts go into a database of 48,000 transactions.
    static let fillFactor = 4

    static let names = ["postgresql import from", "postgresql lookup", "sqlite import from", "processes ÷ 1 process"]
    /// PostgreSQL's batched import from one process must reach this many transactions/s.
    static let batchedAim = 10_000.0

    /// The figures for `receipts` receipts of 3 transactions on both backends, fresh databases
    /// (a temporary file; a temporary schema at `url`, dropped afterwards).
    static func run(url: String, receipts: Int, runs: Int, progress: Bool) throws -> LedgerBenchReport {
        var report = LedgerBenchReport()
        let scratch = try BenchScratch(postgresURL: url)
        defer { scratch.remove() }
        for mode in Mode.allCases {
            let label = mode.label(receipts: receipts)
            for backend in ["sqlite", "postgresql"] {
                var single: Double = 0
                var singleLoad: MachineLoad.Share?
                for processes in [1, 4] {
                    let location = try scratch.newDatabase(backend)
                    _ = try PurchaseDatabase.open(location)  // migrated once, before timing
                    if mode == .batchedIntoFilled { try fill(location, measured: receipts, backend: backend, progress: progress) }
                    LedgerBenchCases.say("backends: \(backend), \(label), from \(processes) process(es)…", progress)
                    let (transactions, seconds, load, cost) = try importFromProcesses(processes, location: location, receipts: receipts,
                                                                                      batch: mode.batchSize, sampleLocks: backend == "postgresql")
                    try LedgerBenchCases.expect(transactions == Int64(receipts * LedgerImportBench.purchasesPerReceipt),
                                                "\(backend): \(transactions) transactions recorded by \(processes) processes (\(label)), not \(receipts * 3)")
                    let rate = seconds > 0 ? Double(transactions) / seconds : 0
                    let aimed = backend == "postgresql" && mode == .batched
                    let name = "\(backend) import from \(processes) process\(processes == 1 ? "" : "es"), \(label), "
                    report.figures.append(LedgerFigure(name: name + "transactions/s", value: rate, aim: aimed && processes == 1 ? .atLeast(batchedAim) : .none))
                    if mode != .oneEach {
                        cost.figures(name, backend: backend, processes: processes, transactions: transactions, seconds: seconds, into: &report)
                    }
                    if processes == 1 {
                        single = rate
                        singleLoad = load
                        if mode == .oneEach { try BackendFigures.lookups(location, backend: backend, count: receipts, runs: runs, into: &report) }
                    } else if single > 0 {
                        // No aim: how far 4 processes go past one depends on the cores the machine
                        // has; the CPU per transaction and lock-wait rows are what it is held to.
                        report.figures.append(LedgerFigure(name: "\(backend) import, \(label), \(processes) processes ÷ 1 process", value: rate / single,
                                                           aim: .none))
                        if mode != .oneEach, let singleLoad {
                            report.notes.append(MachineLoad.ceilingNote("backends: \(backend), \(label)", single: singleLoad, processes: processes, theirs: load))
                        }
                    }
                }
            }
        }
        report.notes.append(ImportCost.note)
        report.notes.append("backends: \(receipts) receipts × 3 transactions from receiptdesk processes with a connection each, in batches of 100 through importStream reading files (as receiptdesk import FILE… does) and one importArtefact each; PostgreSQL writers queue only on the audit chain and per customer, SQLite's on its one write lock")
        return report
    }

    /// Imports `fillFactor` × `measured` receipts (numbered from `measured` on, so none is one the
    /// measured workers import) into `location` from two processes, unmeasured.
    static func fill(_ location: String, measured: Int, backend: String, progress: Bool) throws {
        let receipts = measured * fillFactor
        LedgerBenchCases.say("backends: \(backend), filling the database with \(receipts) receipts first…", progress)
        let (transactions, _, _, _) = try importFromProcesses(2, location: location, receipts: receipts, batch: Mode.batchedIntoFilled.batchSize,
                                                              sampleLocks: false, from: measured)
        try LedgerBenchCases.expect(transactions == Int64(receipts * LedgerImportBench.purchasesPerReceipt),
                                    "\(backend): the fill recorded \(transactions) transactions, not \(receipts * LedgerImportBench.purchasesPerReceipt)")
    }

    /// Starts `count` workers on `location` (receipts numbered from `from`), waits until each is
    /// ready, lets them go at once and returns the transactions they recorded, the seconds from go
    /// to the last one's `done` and how busy the whole machine was meanwhile; with `sampleLocks`
    /// (PostgreSQL) the lock waits too.
    static func importFromProcesses(_ count: Int, location: String, receipts: Int, batch: Int, sampleLocks: Bool, from: Int = 0) throws
        -> (Int64, Double, MachineLoad.Share?, ImportCost) {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]  // not Linux: argv[0]
        var workers: [(process: Process, input: Pipe, output: Pipe)] = []
        for index in 0..<count {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["db", "bench-worker", "--db", location, "--receipts", String(receipts), "--worker", String(index), "--workers", String(count), "--batch", String(batch),
                                 "--from", String(from)]
            let (input, output) = (Pipe(), Pipe())
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            workers.append((process, input, output))
        }
        defer { for worker in workers where worker.process.isRunning { worker.process.terminate() } }
        var backends: [Int64] = []
        for worker in workers {
            guard let line = readLine(worker.output), line.hasPrefix("ready") else { throw BenchmarkError.ledger("a bench worker did not start (\(location))") }
            if let pid = Int64(line.dropFirst("ready".count).trimmingCharacters(in: .whitespaces)), pid > 0 { backends.append(pid) }
        }
        let sampler = sampleLocks ? try LockWaitSampler(url: location, pids: backends) : nil
        sampler?.start()
        let machineAtStart = MachineLoad.now()
        let start = ContinuousClock.now
        for worker in workers { worker.input.fileHandleForWriting.write(Data("go\n".utf8)) }
        // The import ends with the last `done`: a worker's exit after it (removing its receipt
        // files, closing its sessions) is not import time.
        let lines = workers.map { readLine($0.output) ?? "" }
        let seconds = LedgerBenchCases.seconds(ContinuousClock.now - start)
        let load = machineAtStart.flatMap { start in MachineLoad.now()?.since(start) }
        var cost = ImportCost()
        if let sampled = sampler?.stop() {
            (cost.samples, cost.waitSamples, cost.otherServerCPU) = (sampled.samples, sampled.waits, sampled.otherCPU)
        }
        let sessionsCPU = sampler?.serverCPU
        var transactions: Int64 = 0
        for (worker, line) in zip(workers, lines) {
            worker.process.waitUntilExit()
            let fields = line.split(separator: " ")
            guard worker.process.terminationStatus == 0, fields.first == "done", fields.count > 1, let recorded = Int64(fields[1]) else {
                throw BenchmarkError.ledger("a bench worker failed (exit \(worker.process.terminationStatus)): \(line)")
            }
            transactions += recorded
            cost.add(workerLine: line)
        }
        // The workers' own reading covers the session pg_backend_pid() names only; the
        // sampler's covers every session of theirs (importStream's second lane too).
        if let sessionsCPU, cost.serverCPU != nil { cost.serverCPU = sessionsCPU }
        return (transactions, seconds, load, cost)
    }

    /// One line from a worker's output, without its newline; nil at the end.
    private static func readLine(_ pipe: Pipe) -> String? {
        var bytes: [UInt8] = []
        while true {
            let chunk = pipe.fileHandleForReading.readData(ofLength: 1)
            guard let byte = chunk.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == 10 { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    /// `receiptdesk db bench-worker --db LOCATION --receipts N --worker K --workers W [--batch B] [--from F]`:
    /// builds receipts F+K, F+K+W, F+K+2W, … (below F+N) of the import benchmark, says `ready BACKEND_PID` (0 on
    /// SQLite), waits for a line on standard input, imports them and says `done TRANSACTIONS
    /// cpu=S server=S lockwait=S lockheld=S` (`ImportCost`: its own and its backend's CPU
    /// seconds, the seconds its SQLite busy handler slept and its SQLite write transactions held
    /// the write lock, meanwhile). With `batch` 1, one
    /// `importArtefact` each; otherwise the receipts are written to files before `ready` and
    /// imported as `receiptdesk import FILE…` does (`importStream` in batches of `batch`, each
    /// file read on a worker thread).
    static func worker(location: String, total: Int, index: Int, count: Int, batch: Int = 1, from first: Int = 0) throws {
        let authority = try TestCertificateAuthority.shared()
        let mine = Array(stride(from: first + index, to: first + total, by: count))
        let receipts = try mine.map { try LedgerImportBench.receipt($0, authority) }
        let ledger = PurchaseLedger(database: try PurchaseDatabase.open(location, create: false), configuration: LedgerBenchCases.configuration,
                                    verifier: ReceiptVerifier(trust: authority.trustStore(), expectedBundleIds: Set(LedgerBenchCases.configuration.bundleIds)),
                                    clock: { LedgerBenchCases.now })
        if let first = receipts.first { _ = ledger.verifier.verify(try ReceiptDecoder.decode(first)) }  // the chain cache warm, as in a running process
        let customers = mine.map { LedgerImportBench.customerId($0 % LedgerImportBench.customerCount) }
        var files: [String] = []
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-bench-worker-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort: a leftover temp folder is harmless
        if batch > 1 {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (position, bytes) in receipts.enumerated() {
                let path = folder.appendingPathComponent("receipt-\(mine[position])").path
                guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { throw BenchmarkError.ledger("cannot write \(path)") }
                files.append(path)
            }
        }
        // The backend serving this connection, whose CPU counts as the import's (0: SQLite).
        let backend = PostgresDatabase.isURL(location) ? try ledger.database.queryFirst("SELECT pg_backend_pid() AS pid", [])?.int("pid") ?? 0 : 0
        FileHandle.standardOutput.write(Data("ready \(backend)\n".utf8))  // unbuffered: the parent waits for it
        guard Swift.readLine() != nil else { return }  // the parent went away: nothing to measure
        let started = (cpu: ProcessStats.cpuSeconds(pid: "self") ?? 0, server: ProcessStats.cpuSeconds(pid: String(backend)),
                       waits: SQLiteLockWaits.seconds, held: SQLiteLockWaits.heldSeconds)
        var recorded: Int64 = 0
        if batch > 1 {
            let (paths, owners) = (files, customers)
            try ledger.importStream(count: paths.count, batchSize: batch, operatorName: "bench-\(index)", item: { position in
                PurchaseLedger.ImportItem(bytes: try LedgerImportBench.readFile(paths[position]), customer: owners[position], source: "bench")
            }, report: { position, outcome in
                do { recorded += Int64(try outcome.get().transactions.count) } catch {
                    throw BenchmarkError.ledger("bench worker \(index): \(paths[position]) failed to import: \(error)")
                }
            })
        } else {
            for (position, bytes) in receipts.enumerated() {
                recorded += Int64(try ledger.importArtefact(bytes, customer: customers[position], source: "bench", operatorName: "bench-\(index)").transactions.count)
            }
        }
        let cpu = (ProcessStats.cpuSeconds(pid: "self") ?? 0) - started.cpu
        var server = 0.0  // SQLite: no server; -1: its backend not readable here
        if backend > 0 {
            if let before = started.server, let after = ProcessStats.cpuSeconds(pid: String(backend)) { server = after - before } else { server = -1 }
        }
        FileHandle.standardOutput.write(Data(String(format: "done %lld cpu=%.3f server=%.3f lockwait=%.6f lockheld=%.6f\n", recorded, cpu, server,
                                                    SQLiteLockWaits.seconds - started.waits, SQLiteLockWaits.heldSeconds - started.held).utf8))
    }
}
