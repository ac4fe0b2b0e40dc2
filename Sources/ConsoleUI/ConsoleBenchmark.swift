import Foundation
import PurchaseStore
import ReceiptCore

/// The console's speed on a real database, driven through `ConsoleController` against a
/// `VirtualScreen` (everything but the terminal): the first screen after start, a filter by
/// transaction id, and page-downs, each the median of `runs` timings in milliseconds, plus the
/// process's peak memory. For `receiptdesk bench` on the generated 1,000,000-transaction database.
public enum ConsoleBenchmark {
    /// A benchmark that could not run as designed (an empty database, a filter that found nothing).
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Figure names and values: "console first screen 160×48, median ms", "console filter by
    /// transaction id, median ms", "console page-down …, median ms", "console peak memory MB".
    /// Read-only: nothing is written to the database.
    public static func run(ledger: PurchaseLedger, size: ScreenSize = ScreenSize(rows: 48, columns: 160),
                           runs: Int = 25, clock: @escaping @Sendable () -> Date = { Date() }) throws -> [(String, Double)] {
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

        // First screen: a new controller (counts, first page, first customer's detail) drawn once.
        var first: [Double] = []
        for index in 0..<(runs + 3) {
            let time = milliseconds {
                let controller = ConsoleController(environment: environment, size: size)
                controller.render(on: screen)
            }
            if index >= 3 { first.append(time) }
        }
        guard screen.text.contains("Customers") else { throw Failure(description: "the first screen shows no Customers tab") }

        // Filter by transaction id: "/", the id, Enter, drawn; ids spread over the whole table.
        let ids = try sampleTransactionIds(ledger.database, count: runs + 3)
        guard !ids.isEmpty else { throw Failure(description: "the database holds no transactions") }
        let controller = ConsoleController(environment: environment, size: size)
        controller.render(on: screen)
        controller.handle(.character("3"))
        var filter: [Double] = []
        for (index, id) in ids.enumerated() {
            let time = milliseconds {
                controller.handle(.character("/"))
                controller.handle(.control("u"))
                controller.type(id)
                controller.handle(.enter)
                controller.render(on: screen)
            }
            guard screen.text.contains(id) else { throw Failure(description: "filtering by transaction \(id) did not show it") }
            if index >= 3 { filter.append(time) }
        }
        controller.handle(.character("\\"))

        // Page-downs on the transactions and on the customers list, from the top.
        var figures: [(String, Double)] = [("console first screen \(size), median ms", median(first)),
                                           ("console filter by transaction id, median ms", median(filter))]
        for (key, name) in [(Character("3"), "transactions"), (Character("1"), "customers")] {
            controller.handle(.character(key))
            controller.handle(.home)
            controller.render(on: screen)
            var pages: [Double] = []
            for index in 0..<(runs + 3) {
                let time = milliseconds {
                    controller.handle(.pageDown)
                    controller.render(on: screen)
                }
                if index >= 3 { pages.append(time) }
            }
            figures.append(("console page-down (\(name)), median ms", median(pages)))
        }
        // A 50 KB paste (a long artefact from a ticket) into the filter prompt, drawn: one step.
        let pasted = String(repeating: "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0\n", count: 1_400)
        var pastes: [Double] = []
        for index in 0..<(runs + 3) {
            let time = milliseconds {
                controller.handle(.character("/"))
                controller.handle(.paste(pasted))
                controller.render(on: screen)
            }
            controller.handle(.escape)
            if index >= 3 { pastes.append(time) }
        }
        figures.append(("console paste 50 KB, median ms", median(pastes)))
        if let peak = peakMegabytes() { figures.append(("console peak memory MB", peak)) }
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

    /// The peak resident set size (Linux `VmHWM`), in MiB.
    static func peakMegabytes() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }  // not Linux
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        return line?.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Double($0) }.map { $0 / 1024 }
    }
}
