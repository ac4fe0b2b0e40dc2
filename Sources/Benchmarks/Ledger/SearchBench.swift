import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// The search box on the generated 1,000,000-transaction database (`LedgerLookupBench`): what the
/// console runs when a search is entered (every list counted, capped at 1,000, and the first
/// page of the current list), timed for an id prefix (a customer id without its last digit:
/// ten customers), a name fragment (a surname: about 4,000 customers) and a search that
/// matches nothing. Median and p99 ms; aim: median under 50 ms.
enum SearchBench {
    static let runs = 200
    static let cases = ["id prefix", "name fragment", "no match"]
    static var names: [String] {
        ["search on 1,000,000 transactions"] + cases.flatMap { [figureName($0, "median"), figureName($0, "p99")] }
    }

    static func figureName(_ query: String, _ statistic: String, backend: String = "") -> String {
        "search \(query) on 1,000,000 transactions\(backend), \(statistic) ms"
    }

    static func run(into report: inout LedgerBenchReport, progress: Bool) throws {
        let database = try LedgerLookupBench.openGenerated(into: &report, progress: progress)
        try measure(database, backend: "", into: &report, progress: progress)
    }

    /// The same searches on PostgreSQL: the generated database copied (`db copy`) into a
    /// temporary schema at `url`, analysed, searched, dropped.
    static func runPostgres(url: String, into report: inout LedgerBenchReport, progress: Bool) throws {
        let source = try LedgerLookupBench.openGenerated(into: &report, progress: progress)
        let scratch = try BenchScratch(postgresURL: url)
        defer { scratch.remove() }
        let location = try scratch.newDatabase("postgresql")
        let target = try PurchaseDatabase.open(location)
        LedgerBenchCases.say("search: copying the 1,000,000-transaction database to PostgreSQL…", progress)
        let copy = try DatabaseCopy.copy(from: source, to: target)
        try LedgerBenchCases.expect(copy.isVerified, "the copy to PostgreSQL does not verify")
        report.notes.append(String(format: "search: db copy of the 1,000,000-transaction database to PostgreSQL took %.1f s (verified)", copy.seconds))
        try measure(target, backend: " on PostgreSQL", into: &report, progress: progress)
        // The console over the same copy (issue 15: the console on PostgreSQL with 1,000,000 transactions).
        try ConsoleBench.runPostgres(target, into: &report, progress: progress)
    }

    /// Times the three searches on `database`, as the console runs them.
    static func measure(_ database: SQLDatabase, backend: String, into report: inout LedgerBenchReport, progress: Bool) throws {
        let browser = Browser(database)
        var random = SplitMix64(seed: 0x5EA4C4)
        func any(_ count: Int) -> Int { Int.random(in: 0..<count, using: &random) }
        LedgerBenchCases.say("search\(backend): \(runs) of each search…", progress)
        /// One search as the console runs it; returns the count of customers and of transactions.
        func search(_ text: String) throws -> (customers: MatchCount, transactions: MatchCount) {
            let filter = try BrowseFilter(parsing: text)
            var counts: [BrowseTable: MatchCount] = [:]
            for table in BrowseTable.allCases { counts[table] = try browser.matchCount(table, filter: filter) }
            _ = try browser.page(.customers, filter: filter, cursor: .first, limit: 40)
            return (counts[.customers] ?? MatchCount(count: -1, isLowerBound: false), counts[.transactions] ?? MatchCount(count: -1, isLowerBound: false))
        }
        let timings = [
            try LedgerLookupBench.sample(runs: runs) {
                let customer = LedgerLookupBench.customerId(any(LedgerLookupBench.customerCount / 10) * 10)
                let found = try search(String(customer.dropLast()).uppercased())
                try LedgerBenchCases.expect(found.customers == MatchCount(count: 10, isLowerBound: false),
                                            "\(customer.dropLast()) found \(found.customers.count) customers, not 10")
            },
            try LedgerLookupBench.sample(runs: runs) {
                let surname = LedgerLookupBench.lastNames[any(LedgerLookupBench.lastNames.count)]
                let found = try search(String(surname.prefix(5)).lowercased())
                try LedgerBenchCases.expect(found.customers.count == 1_000 && found.customers.isLowerBound,
                                            "the surname fragment \(surname.prefix(5)) found \(found.customers.count) customers, not 1,000+")
            },
            try LedgerLookupBench.sample(runs: runs) {
                let found = try search("zq\(any(1_000_000))x-nothing")
                try LedgerBenchCases.expect(found.customers.count == 0 && found.transactions.count == 0, "a search for nothing found something")
            },
        ]
        for (query, sorted) in zip(cases, timings) {
            let median = (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
            let p99 = sorted[max(0, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
            report.figures.append(LedgerFigure(name: figureName(query, "median", backend: backend), value: median, aim: .below(50)))
            report.figures.append(LedgerFigure(name: figureName(query, "p99", backend: backend), value: p99, aim: .none))
        }
    }
}
