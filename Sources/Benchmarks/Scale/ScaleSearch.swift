import Foundation
import PurchaseStore

/// The search box on the scale benchmark's database, as the console runs a search (every list
/// counted, capped at 1,000, and the first page of customers): prefixes that match many rows
/// (`cust-2`, a 12-digit transaction id prefix), a whole customer id, an order id, name
/// fragments in Latin, Japanese and Cyrillic script, an email domain fragment, and a search
/// that finds nothing. Median (aim < 50 ms) and p99 ms of `runs` searches each.
enum ScaleSearch {
    /// One search: its row name, the text typed (from a sampled key), and what it must find.
    struct Case {
        let name: String
        let text: String
        let expectsMatches: Bool
    }

    /// The cases, their texts taken from `keys` (sampled from the database).
    static func cases(_ keys: ScaleKeys) -> [Case] {
        let transaction = keys.transactions.first ?? String(ScaleCustomer.firstTransactionId)
        let order = keys.orders.first ?? "ORD-10000001"
        return [
            Case(name: "id prefix cust-2", text: "cust-2", expectsMatches: true),
            Case(name: "whole customer id", text: keys.customers.first ?? "cust-0001", expectsMatches: true),
            Case(name: "transaction id prefix (12 digits)", text: String(transaction.prefix(12)), expectsMatches: true),
            Case(name: "order id", text: order.lowercased(), expectsMatches: true),
            Case(name: "name fragment müller", text: "müller", expectsMatches: true),
            Case(name: "name fragment 鈴木さ", text: "鈴木さ", expectsMatches: true),
            Case(name: "name fragment Иванов", text: "Иванов", expectsMatches: true),
            Case(name: "email fragment icloud", text: "icloud", expectsMatches: true),
            Case(name: "no match", text: "zq-nothing-here", expectsMatches: false),
        ]
    }

    /// Times each case `runs` times (after 3 untimed) on `database`; figures named `prefix` + "search …".
    static func measure(_ database: SQLDatabase, keys: ScaleKeys, runs: Int, prefix: String, into report: inout LedgerBenchReport) throws {
        let browser = Browser(database)
        for search in cases(keys) {
            let filter = try BrowseFilter(parsing: search.text)
            var found: Int64 = 0
            var customersFound: Int64 = 0
            var shown = 0
            let sorted = try LedgerLookupBench.sample(runs: runs) {
                found = 0
                for table in BrowseTable.allCases {
                    let count = try browser.matchCount(table, filter: filter)
                    if count.applies { found += count.count }
                    if table == .customers { customersFound = count.count }
                }
                shown = try browser.page(.customers, filter: filter, cursor: .first, limit: 40).rows.count
            }
            report.check((found > 0) == search.expectsMatches,
                         "search '\(search.text)' found \(found) rows\(search.expectsMatches ? ", expected some" : ", expected none")")
            // The page timed is the page shown: a search that counts customers shows them at once.
            report.check(shown >= Int(min(customersFound, 40)),
                         "search '\(search.text)' counts \(customersFound) customers but its first page shows \(shown)")
            let median = (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
            let p99 = sorted[max(0, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
            report.figures.append(LedgerFigure(name: prefix + "search \(search.name), median ms", value: median, aim: .below(50)))
            report.figures.append(LedgerFigure(name: prefix + "search \(search.name), p99 ms", value: p99, aim: .none))
        }
    }
}
