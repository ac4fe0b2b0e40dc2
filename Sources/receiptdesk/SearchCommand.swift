import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk search TEXT [--limit N] [--json]`: the console's search box on the command line.
/// Each list with matches: how many (exact up to 1,000) and the first N rows; a customer found
/// through a related id says which, as the console's list does (`via txn 2000000123456789`;
/// `--json`: the customers list's `matchedVia`, by customer id, each `{kind, value}`).
enum SearchCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        let limitText = try args.value("--limit") ?? "10"
        guard let limit = Int(limitText), (1...BrowseLimits.maxPage).contains(limit) else {
            throw CommandFailure.usage("search --limit takes a number from 1 to \(BrowseLimits.maxPage), not '\(limitText)'")
        }
        let words = try args.finish(maxPositionals: 64)
        guard !words.isEmpty else { throw CommandFailure.usage("search needs TEXT: an id or its start, a name or email fragment, qualifiers such as env:sandbox") }
        let filter: BrowseFilter
        do { filter = try BrowseFilter(parsing: words.joined(separator: " ")) } catch { throw CommandFailure.from(error) }
        let browser = Browser(try options.openLedgerForReading().database)
        var lists: [JSONValue] = []
        var lines: [String] = []
        for table in BrowseTable.allCases {
            let count = try browser.matchCount(table, filter: filter)
            guard count.applies, count.count > 0 else { continue }
            let page = try browser.page(table, filter: filter, cursor: .first, limit: limit)
            let shown = "\(count.count)\(count.isLowerBound ? "+" : "")"
            lines.append("\(table.rows): \(shown)")
            lines += page.rows.map { "  " + describe($0) }
            if !page.ignored.isEmpty { lines.append("  ignored here: " + page.ignored.joined(separator: ", ")) }
            var list: [(String, JSONValue)] = [("list", .string(table.rawValue)), ("count", .int(count.count)), ("atLeast", .bool(count.isLowerBound)),
                                               ("rows", .array(page.rows.map { .string(key($0)) })),
                                               ("ignored", .array(page.ignored.map(JSONValue.string)))]
            if table == .customers { list.append(("matchedVia", matchedVia(page.rows))) }
            lists.append(.object(list))
        }
        if options.json {
            print(JSONValue.object([("query", .string(filter.text)), ("lists", .array(lists))]).serialized())
        } else {
            print(lines.isEmpty ? "no matches for \(filter.text)" : lines.joined(separator: "\n"))
        }
        return lines.isEmpty ? .verificationFailed : .ok
    }

    static func key(_ row: BrowseRow) -> String {
        switch row.key {
        case .text(let text): return text
        case .integer(let number): return String(number)
        }
    }

    /// Why each customer of `rows` was found, when it was through a related id: `{"cust-0012":
    /// {"kind": "transaction", "value": "2000000123456789"}}` (kind: `SearchReason.Kind`'s name).
    static func matchedVia(_ rows: [BrowseRow]) -> JSONValue {
        .object(rows.compactMap { row -> (String, JSONValue)? in
            guard case .customer(_, let c) = row, let via = c.matchedVia else { return nil }
            return (c.customerId, .object([("kind", .string(via.kind.rawValue)), ("value", .string(via.value))]))
        })
    }

    /// One row, as a line.
    static func describe(_ row: BrowseRow) -> String {
        switch row {
        case .customer(_, let c):
            let contact = [c.displayName, c.email.map { "<\($0)>" }].compactMap { $0 }.joined(separator: " ")
            return "customer \(c.customerId)" + (contact.isEmpty ? "" : "  \(contact)") + (c.matchedVia.map { "  \($0.text)" } ?? "")
                + "  \(c.transactionCount)\(c.transactionCountCapped ? "+" : "") transaction\(c.transactionCount == 1 && !c.transactionCountCapped ? "" : "s")"
        case .order(_, let o): return "order \(o.orderId)  \(o.customerId)  \(o.productId)  \(o.status)"
        case .transaction(_, let t):
            let r = t.record
            return "transaction \(r.transactionId)  \(r.customerId)  \(r.productId)  \(r.environment.uppercased())"
                + (r.isFamilyShared ? "  family shared" : "")
                + (r.revocationDate ?? r.cancellationDate != nil ? (r.isUpgraded == true ? "  upgraded" : "  refunded") : "")
        case .receipt(_, let r): return "receipt #\(r.record.receiptId)  \(r.record.customerId ?? "–")  \(r.record.format)  \(r.record.environment)  \(r.record.verdict)"
        case .conflict(_, let c): return "conflict #\(c.conflictId)  transaction \(c.transactionId)  \(c.ownerCustomerId) ← \(c.claimantCustomerId)  \(c.status)"
        case .audit(_, let a): return "audit #\(a.seq)  \(RFC3339.format(a.at))  \(a.operatorName)  \(a.action)  \(a.target)"
        }
    }
}
