import ConsoleUI
import Foundation
import PurchaseStore
import ReceiptCore

/// The console's speed on a real database, driven through `ConsoleController` against a
/// `VirtualScreen` (everything but the terminal): the first screen after start, a filter by
/// transaction id, and page-downs, each the median of `runs` timings in milliseconds, plus the
/// process's peak memory. For `receiptdesk bench` on the generated 1,000,000-transaction database.
///
/// The floor: each timed step is paired with one read of the first page of transactions
/// straight through the database (`floorSQL`: SQLite's or PostgreSQL's own speed at that
/// moment, no console code), taken just before or just after it (alternating). The ratio of
/// each pair (floor time ÷ step time: the step's speed in bare page reads) moves with the
/// console's code, not with a busy machine, which slows both alike. A step's later rounds
/// against its first round were considered and rejected: that ratio measures warm caches
/// against cold, not the console against the machine.
public enum ConsoleBenchmark {
    /// One console figure: its name, the median in ms (or MB), and its per-round ratio to the floor.
    public struct Figure {
        public let name: String
        public let value: Double
        public let ratio: RatioSummary?
    }

    /// What the floor reads: one page of the biggest list, by its key, as rows.
    static let floorSQL = "SELECT * FROM transactions ORDER BY transaction_id LIMIT 40"
    /// The floor's name in the figures' lines and JSON.
    static let floorName = "a bare read of 40 transactions"

    /// Figure names and values: "console first screen 160×48, median ms", "console filter by
    /// transaction id, median ms", "console page-down …, median ms", "console peak memory MB".
    /// Read-only: nothing is written to the database.
    public static func run(ledger: PurchaseLedger, size: ScreenSize = ScreenSize(rows: 48, columns: 160),
                           runs: Int = 25, clock: @escaping @Sendable () -> Date = { Date() }) throws -> [(String, Double)] {
        try measure(ledger: ledger, size: size, runs: runs, clock: clock).map { ($0.name, $0.value) }
    }

    /// `run`'s figures with the ratio of each step to the floor.
    public static func measure(ledger: PurchaseLedger, size: ScreenSize = ScreenSize(rows: 48, columns: 160),
                               runs: Int = 25, clock: @escaping @Sendable () -> Date = { Date() }) throws -> [Figure] {
        let runs = max(3, runs)
        let environment = ConsoleEnvironment(ledger: ledger, apple: nil, operatorName: "bench", readOnly: true,
                                             databaseLabel: (ledger.database.location as NSString).lastPathComponent, clock: clock)
        let screen = VirtualScreen(size: size)
        let timer = ContinuousClock()
        func milliseconds(_ body: () throws -> Void) rethrows -> Double {
            let start = timer.now
            try body()
            let (seconds, attoseconds) = (timer.now - start).components
            return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
        }
        let floorRows = try ledger.database.query(floorSQL, []).count
        guard floorRows > 0 else { throw BenchmarkError(.notAsDesigned, "console benchmark: the database holds no transactions") }
        var floors: [String: [Double]] = [:]
        /// Times `body` and, before or after it (alternating with `index`), the floor; the step's ms.
        func paired(_ key: String, _ index: Int, _ body: () throws -> Void) throws -> Double {
            let floor = { try milliseconds { _ = try ledger.database.query(floorSQL, []) } }
            var floorTime = 0.0
            if index % 2 == 1 { floorTime = try floor() }
            let time = try milliseconds(body)
            if index % 2 == 0 { floorTime = try floor() }
            if index >= 3 { floors[key, default: []].append(floorTime) }
            return time
        }
        func figure(_ name: String, _ key: String, _ times: [Double]) -> Figure {
            Figure(name: name, value: median(times), ratio: RatioSummary(caseSeconds: times, floorSeconds: floors[key] ?? []))
        }

        // First screen: a new controller (counts, first page, first customer's detail) drawn once.
        var first: [Double] = []
        for index in 0..<(runs + 3) {
            let time = try paired("first", index) {
                let controller = ConsoleController(environment: environment, size: size)
                controller.render(on: screen)
            }
            if index >= 3 { first.append(time) }
        }
        guard screen.text.contains("Customers") else { throw BenchmarkError(.notAsDesigned, "console benchmark: the first screen shows no Customers tab") }

        // Filter by transaction id: "/", the id, Enter, drawn; ids spread over the whole table.
        let ids = try sampleTransactionIds(ledger.database, count: runs + 3)
        guard !ids.isEmpty else { throw BenchmarkError(.notAsDesigned, "console benchmark: the database holds no transactions") }
        let controller = ConsoleController(environment: environment, size: size)
        controller.render(on: screen)
        controller.handle(.character("3"))
        var filter: [Double] = []
        for (index, id) in ids.enumerated() {
            let time = try paired("filter", index) {
                controller.handle(.character("/"))
                controller.handle(.control("u"))
                controller.type(id)
                controller.handle(.enter)
                controller.render(on: screen)
            }
            guard screen.text.contains(id) else { throw BenchmarkError(.notAsDesigned, "console benchmark: filtering by transaction \(id) did not show it") }
            if index >= 3 { filter.append(time) }
        }
        controller.handle(.character("\\"))

        // Page-downs on the transactions and on the customers list, from the top.
        var figures = [figure("console first screen \(size), median ms", "first", first),
                       figure("console filter by transaction id, median ms", "filter", filter)]
        for (key, name) in [(Character("3"), "transactions"), (Character("1"), "customers")] {
            controller.handle(.character(key))
            controller.handle(.home)
            controller.render(on: screen)
            var pages: [Double] = []
            for index in 0..<(runs + 3) {
                let time = try paired(name, index) {
                    controller.handle(.pageDown)
                    controller.render(on: screen)
                }
                if index >= 3 { pages.append(time) }
            }
            figures.append(figure("console page-down (\(name)), median ms", name, pages))
        }
        // A 50 KB paste (a long artefact from a ticket) into the filter prompt, drawn: one step.
        let pasted = String(repeating: "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0\n", count: 1_400)
        var pastes: [Double] = []
        for index in 0..<(runs + 3) {
            let time = try paired("paste", index) {
                controller.handle(.character("/"))
                controller.handle(.paste(pasted))
                controller.render(on: screen)
            }
            controller.handle(.escape)
            if index >= 3 { pastes.append(time) }
        }
        figures.append(figure("console paste 50 KB, median ms", "paste", pastes))
        if let peak = ProcessStats.peakMegabytes() { figures.append(Figure(name: "console peak memory MB", value: peak, ratio: nil)) }
        return figures
    }

    /// Transaction ids at evenly spaced rowids (each an index lookup); on PostgreSQL, at evenly
    /// spaced offsets of the first 100,000 ids (no rowid there).
    static func sampleTransactionIds(_ database: SQLDatabase, count: Int) throws -> [String] {
        guard database.dialect.name == SQLDialect.sqlite.name else {
            let total = try database.queryFirst("SELECT count(*) AS n FROM (SELECT 1 FROM transactions LIMIT 100000) AS capped", [])?.int("n") ?? 0
            guard total > 0 else { return [] }
            return try (0..<count).compactMap { index in
                try database.queryFirst("SELECT transaction_id FROM transactions ORDER BY transaction_id LIMIT 1 OFFSET ?",
                                        [.integer(total * Int64(index * 2 + 1) / Int64(count * 2))])?.string("transaction_id")
            }
        }
        let high = try database.queryFirst("SELECT max(rowid) AS n FROM transactions", [])?.int("n") ?? 0
        guard high > 0 else { return [] }
        var ids: [String] = []
        for index in 0..<count {
            let rowid = max(1, high * Int64(index * 2 + 1) / Int64(count * 2))
            if let id = try database.queryFirst("SELECT transaction_id FROM transactions WHERE rowid >= ? ORDER BY rowid LIMIT 1",
                                                [.integer(rowid)])?.string("transaction_id") {
                ids.append(id)
            }
        }
        return ids
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
    }
}
