import Foundation
import PurchaseStore
import Testing
@testable import Benchmarks

/// Issue 30's scale benchmark: the shape of its data, the rows it prints (on a tiny database,
/// no timing asserted) on SQLite and, with RECEIPTDESK_TEST_POSTGRES_URL, on PostgreSQL; and
/// the import cost rows that replace the 4-processes ÷ 1 aim.
@Suite("Bench scale")
struct ScaleBenchTests {
    @Test func theCustomersLookLikeRealDataAndAreAlwaysTheSame() {
        let customers = (0..<3_000).map(ScaleCustomer.init)
        #expect(customers[42].id == "cust-0042" && ScaleCustomer(42).name == customers[42].name && ScaleCustomer(42).purchases.count == customers[42].purchases.count)
        #expect(customers[17].id.count == 36 && customers[17].id.split(separator: "-").count == 5, "a UUID: \(customers[17].id)")
        #expect(customers[19].id == "1000000019")
        #expect(Set(customers.map(\.id)).count == customers.count, "ids are unique")
        let names = customers.compactMap(\.name)
        let unnamed = customers.count - names.count
        #expect(unnamed > 300 && unnamed < 600, "about 15% without a name: \(unnamed)")
        // Han, kana, Hangul, Cyrillic, Arabic, Greek, and Latin with diacritics.
        let scripts: [ClosedRange<UInt32>] = [0x4E00...0x9FFF, 0x3040...0x30FF, 0xAC00...0xD7AF, 0x0400...0x04FF, 0x0600...0x06FF, 0x0370...0x03FF, 0x1F00...0x1FFF, 0x00C0...0x024F]
        let seen = scripts.filter { range in names.contains { $0.unicodeScalars.contains { range.contains($0.value) } } }
        #expect(seen.count >= 7, "names in several scripts: \(seen.count) of the ranges")
        #expect(customers.compactMap(\.email).allSatisfy { $0.contains("@") && $0.unicodeScalars.allSatisfy(\.isASCII) })
        let transactions = customers.reduce(0) { $0 + $1.transactionCount }
        #expect(transactions > 3_000 * 5 && transactions < 3_000 * 12, "several transactions per customer: \(transactions)")
        #expect(customers.contains { $0.purchases.contains { $0.renewals >= 12 } }, "long renewal chains")
    }

    @Test func theBenchPrintsEveryRowWithItsAimOnATinyDatabase() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-scale-test-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }  // best effort: a temporary folder
        let postgres = ProcessInfo.processInfo.environment["RECEIPTDESK_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
        var report = LedgerBenchReport()
        try ScaleBench.run(transactions: 20_000, folder: folder, postgres: postgres, runs: ScaleBench.Runs(console: 3, search: 2, lookups: 2),
                           into: &report, progress: false)
        let path = ScaleBench.path(transactions: 20_000, folder: folder)
        let database = try PurchaseDatabase.open(path, create: false)
        #expect(try database.queryFirst("SELECT count(*) AS n FROM transactions", [])?.int("n") == 20_000)
        #expect(try AuditLog.verify(database).isIntact, "the generated audit chain verifies")
        #expect(try database.queryFirst("SELECT count(*) AS n FROM receipts", [])?.int("n") ?? 0 > 7_000, "several receipts per customer")
        let lines = report.figures.map(\.line)
        for backend in ["SQLite"] + (postgres == nil ? [] : ["PostgreSQL"]) {
            let prefix = "scale 20,000 transactions, \(backend): "
            var aimed = ["console first screen 160×48, median ms", "console filter by transaction id, median ms",
                         "console page-down (transactions), median ms", "console page-down (customers), median ms", "console peak memory MB"]
            aimed += ScaleSearch.cases(ScaleKeys()).map { "search \($0.name), median ms" }
            aimed += ["customerSummary", "transaction by id", "order by id", "transactions by original transaction id"].map { "lookup \($0), median ms" }
            if backend == "PostgreSQL" { aimed.append("db copy from SQLite (verified), s") }
            for name in aimed {
                let line = lines.first { $0.hasPrefix(prefix + name + ": ") }
                #expect(line.map { $0.contains("(aim ") && ($0.contains(" ✓") || $0.contains(" ✗")) } == true, "\(prefix + name): \(line ?? "missing")")
            }
            #expect(lines.contains { $0.hasPrefix(prefix + "search id prefix cust-2, p99 ms: ") })
            #expect(lines.contains { $0.hasPrefix(prefix + "size, MB per million transactions: ") })
            #expect(lines.contains { $0.hasPrefix(prefix + "index on transactions transactions_by_customer, MB per million transactions: ") })
        }
        #expect(lines.contains { $0.hasPrefix("scale 20,000 transactions, SQLite: FTS5 trigram name search customer_search, MB per million") })
        #expect(lines.contains { $0.hasPrefix("scale 20,000 transactions, SQLite: building the database, s: ") })
    }

    /// A search check that fails (a search finding nothing it should) no longer stops the bench
    /// before it prints: every case is still timed and the failures come after the figures.
    @Test func aFailedSearchCheckKeepsEveryFigure() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-scale-check-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }  // best effort: a temporary folder
        let database = try PurchaseDatabase.open(folder + "/empty.sqlite", create: true)
        var report = LedgerBenchReport()
        try ScaleSearch.measure(database, keys: ScaleKeys(), runs: 1, prefix: "t: ", into: &report)
        let cases = ScaleSearch.cases(ScaleKeys())
        for search in cases {
            #expect(report.figures.contains { $0.name == "t: search \(search.name), median ms" }, "\(search.name)")
        }
        // An empty database: every search that should find something found nothing.
        #expect(report.failures.count == cases.filter(\.expectsMatches).count)
        #expect(report.failures.first == "search 'cust-2' found 0 rows, expected some")
        let output = BenchOutput(json: .null, lines: [], failures: report.failures)
        #expect(output.failure != nil)
        #expect(BenchOutput(json: .null, lines: []).failure == nil)
    }

    @Test func theImportCostRowsAreCPUPerTransactionAndLockWaitShares() {
        var cost = ImportCost()
        cost.add(workerLine: "done 3000 cpu=0.090 server=0.120 lockwait=0.000")
        cost.add(workerLine: "done 3000 cpu=0.060 server=0.030 lockwait=0.500")
        (cost.samples, cost.waitSamples, cost.otherServerCPU) = (100, [.ownTurn: 4, .auditChain: 6], 0.06)
        var report = LedgerBenchReport()
        cost.figures("postgresql import from 4 processes, batched, ", backend: "postgresql", processes: 4, transactions: 6_000, seconds: 2, into: &report)
        let values = Dictionary(report.figures.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        let prefix = "postgresql import from 4 processes, batched, "
        #expect(abs((values[prefix + "importer CPU µs per transaction"] ?? 0) - 25) < 1e-6)
        #expect(abs((values[prefix + "server backends' CPU µs per transaction"] ?? 0) - 25) < 1e-6)
        #expect(abs((values[prefix + "importer + server backends' CPU µs per transaction"] ?? 0) - 50) < 1e-6)
        #expect(abs((values[prefix + "server's other processes' CPU µs per transaction (WAL writer, checkpointer…)"] ?? 0) - 10) < 1e-6)
        #expect(abs((values[prefix + "lock waits, % of wall time"] ?? 0) - 2.5) < 1e-6, "10 waiting of 100 samples × 4 backends")
        let ownTurn = report.figures.first { $0.name == prefix + "lock waits for the import's own other session (its previous batch's turn or rows), % of wall time" }
        #expect(abs((ownTurn?.value ?? 0) - 1) < 1e-6 && ownTurn?.line.contains("aim") == false, "4 of the 10 waits were the import's own turn: part of the aimed row, no aim")
        #expect(report.figures.first { $0.name.hasSuffix("importer + server backends' CPU µs per transaction") }?.line.contains("(aim ≤ 100) ✓") == true)
        #expect(report.figures.first { $0.name.hasSuffix("lock waits, % of wall time") }?.line.contains("(aim < 5) ✓") == true)

        var sqlite = ImportCost()
        sqlite.add(workerLine: "done 3000 cpu=0.300 server=0.000 lockwait=0.500 lockheld=1.500")
        var rows = LedgerBenchReport()
        sqlite.figures("sqlite import from 1 process, batched, ", backend: "sqlite", processes: 1, transactions: 3_000, seconds: 2, into: &rows)
        #expect(rows.figures.map(\.name) == ["sqlite import from 1 process, batched, importer CPU µs per transaction",
                                             "sqlite import from 1 process, batched, lock waits, % of wall time",
                                             "sqlite import from 1 process, batched, write lock held by one of the importers, % of wall time"])
        #expect(rows.figures[0].line.contains("100.000 (aim ≤ 50) ✗") && abs(rows.figures[1].value - 25) < 1e-6, "\(rows.figures.map(\.line))")
        #expect(!rows.figures[1].line.contains("aim"), "from 1 process the share has no aim")
        #expect(abs(rows.figures[2].value - 75) < 1e-6 && !rows.figures[2].line.contains("aim"), "1.5 s of 2 held: no aim")
        var four = ImportCost()
        for _ in 0..<4 { four.add(workerLine: "done 3000 cpu=0.300 server=0.000 lockwait=0.500 lockheld=0.490") }
        var fourRows = LedgerBenchReport()
        four.figures("sqlite import from 4 processes, batched, ", backend: "sqlite", processes: 4, transactions: 12_000, seconds: 2, into: &fourRows)
        #expect(abs((fourRows.figures.last?.value ?? 0) - 98) < 1e-6, "summed over the processes: 1.96 s of 2")

        var remote = ImportCost()
        remote.add(workerLine: "done 3000 cpu=0.300 server=-1 lockwait=0")
        var remoteRows = LedgerBenchReport()
        remote.figures("postgresql import from 1 process, batched, ", backend: "postgresql", processes: 1, transactions: 3_000, seconds: 1, into: &remoteRows)
        #expect(!remoteRows.figures.contains { $0.name.contains("server") } && remoteRows.notes.count == 1, "no server rows when /proc cannot show it")
    }

    @Test func processCPUIsReadFromProc() {
        #expect((ProcessStats.cpuSeconds(pid: "self") ?? -1) >= 0)
        #expect(ProcessStats.cpuSeconds(pid: "999999999") == nil)
    }
}
