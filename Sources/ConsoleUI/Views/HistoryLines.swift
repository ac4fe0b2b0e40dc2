import Foundation
import PurchaseStore
import ReceiptCore

/// What the team did, as every operator sees it: transfers in and out of a customer, resolved
/// conflicts, transactions that arrived again, and the stored re-verifications of a receipt.
enum HistoryLines {
    /// The customer's "History" section: newest first; empty when nothing happened.
    static func customer(_ detail: CustomerDetail, width: Int) -> [DetailLine] {
        let id = detail.summary.customerId
        var events: [(Date, DetailLine)] = []
        for t in detail.transfers {
            let inbound = t.toCustomer == id
            let what = t.kind == "restore"
                ? (inbound ? "restored from \(t.fromCustomer)" : "transferred out to \(t.toCustomer) (restore)")
                : (inbound ? "awarded from \(t.fromCustomer) (conflict)" : "transferred out to \(t.toCustomer) (conflict)")
            let text = "\(ConsoleFormat.dateTime(t.at))  \(t.transactionId) \(what), by \(t.operatorName): \(t.reason)"
            var line = DetailLine([Span(inbound ? " ⇤ " : " ⇥ ", CellStyle(.accent)),
                                   Span(DisplayWidth.truncate(text, to: max(10, width - 4)))])
            line.action = .open(.transaction(t.transactionId))
            events.append((t.at, line))
        }
        for c in detail.summary.conflicts where c.status == "resolved" {
            let at = c.resolvedAt ?? c.openedAt
            let text = "\(ConsoleFormat.dateTime(at))  conflict #\(c.conflictId) on \(c.transactionId) resolved for \(c.resolvedOwner ?? "?")"
                + " (owner was \(c.ownerCustomerId), claimed by \(c.claimantCustomerId))"
                + (c.resolvedBy.map { " by \($0)" } ?? "") + (c.resolutionReason.map { ": \($0)" } ?? "")
            var line = DetailLine([Span(" ✓ ", CellStyle(.ok)), Span(DisplayWidth.truncate(text, to: max(10, width - 4)))])
            line.action = .open(.conflict(c.conflictId))
            events.append((at, line))
        }
        // Repeated arrivals: one line per transaction, with how many times and the newest.
        var order: [String] = []
        var byTransaction: [String: [ArrivalRecord]] = [:]
        for arrival in detail.arrivals {
            if byTransaction[arrival.transactionId] == nil { order.append(arrival.transactionId) }
            byTransaction[arrival.transactionId, default: []].append(arrival)
        }
        for transaction in order {
            guard let all = byTransaction[transaction], let newest = all.first else { continue }
            let elsewhere = newest.presentedFor.map { $0 != id ? " for \($0)" : "" } ?? ""
            let text = "\(ConsoleFormat.dateTime(newest.at))  \(transaction) arrived again \(all.count == 1 ? "once" : "\(all.count) times")"
                + ", last from \(newest.source)\(elsewhere), by \(newest.operatorName)"
            var line = DetailLine([Span(" ↺ ", CellStyle(.warning)), Span(DisplayWidth.truncate(text, to: max(10, width - 4)))])
            line.action = .open(.transaction(transaction))
            events.append((newest.at, line))
        }
        guard !events.isEmpty else { return [] }
        return [DetailLines.heading("History")] + events.sorted { $0.0 > $1.0 }.prefix(50).map(\.1)
    }

    /// A transaction's repeated arrivals, newest first.
    static func arrivals(_ detail: TransactionDetail, width: Int) -> [DetailLine] {
        let count = detail.record.repeatArrivals
        guard count > 0 else { return [] }
        var lines = DetailLines.paragraph("arrived again \(count == 1 ? "once" : "\(count) times") after it was recorded (what it grants is unchanged)",
                                          width: width, indent: 1, style: CellStyle(.warning), first: "↺ ")
        for arrival in detail.arrivals.prefix(8) {
            let text = "\(ConsoleFormat.dateTime(arrival.at))  from \(arrival.source)"
                + (arrival.presentedFor.map { " for \($0)" } ?? "") + ", by \(arrival.operatorName)"
            lines.append(DetailLine([Span("    " + DisplayWidth.truncate(text, to: max(10, width - 5)), .muted)]))
        }
        return lines
    }

    /// The newest stored re-verification of a receipt, as any operator sees it.
    static func reverification(_ result: ReverificationResult, count: Int, width: Int) -> [DetailLine] {
        var lines = [DetailLine([]), DetailLine([Span(" Apple's answer ", .heading),
                                                 Span("re-verified \(ConsoleFormat.dateTime(result.at)) by \(result.operatorName)"
                                                      + (count > 1 ? " (\(count) on record)" : ""), .muted)])]
        var summary: StyledLine = [Span("  "), Span(result.outcome, CellStyle(result.outcome == "verified" ? .ok : .warning, bold: true))]
        if let environment = result.appleEnvironment { summary += [Span("  "), ConsoleFormat.badge(ConsoleFormat.environment(environment))] }
        lines.append(DetailLine(summary))
        lines += DetailLines.paragraph(result.summary, width: width, indent: 2, style: .plain)
        for difference in result.differences.prefix(12) {
            lines += DetailLines.paragraph(difference, width: width, indent: 4, style: CellStyle(.warning), first: "≠ ")
        }
        if result.differences.isEmpty { lines.append(DetailLine([Span("  no difference from the local decode", .muted)])) }
        for applied in result.applied.prefix(12) {
            lines += DetailLines.paragraph(applied, width: width, indent: 4, style: CellStyle(.ok), first: "applied: ")
        }
        return lines
    }
}
