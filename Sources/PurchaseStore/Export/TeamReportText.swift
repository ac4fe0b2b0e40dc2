import Foundation
import ReceiptCore

/// A daily series as a sparkline: one character a day, `·` for none, then ▁ to █ scaled to the
/// busiest day, so a quiet day with one event still shows.
public enum Sparkline {
    static let bars: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    public static func render(_ values: [Int64]) -> String {
        let top = values.max() ?? 0
        return String(values.map { value -> Character in
            guard value > 0, top > 0 else { return "·" }
            let index = Int((Double(value) / Double(top) * Double(bars.count)).rounded(.up)) - 1
            return bars[min(bars.count - 1, max(0, index))]
        })
    }
}

extension TeamReport {
    /// The report as text lines, as `receiptdesk report` prints it and the console shows it:
    /// each counted figure with its total and a sparkline of its days.
    public var lines: [String] {
        let title = period == .week ? "This week" : "This month"
        var out = ["\(title): \(days.first ?? "?") to \(days.last ?? "?") (UTC, up to \(RFC3339.format(end)))",
                   "  days                 " + days.map { String($0.suffix(2).last ?? " ") }.joined()]
        func row(_ name: String, _ series: Series, _ note: String = "") {
            let label = name.padding(toLength: 20, withPad: " ", startingAt: 0)
            out.append("  \(label) \(Sparkline.render(series.perDay))  \(series.total)\(note)")
        }
        row("arrivals", arrivals)
        row("refunds", refunds)
        for reason in refundReasons { out.append("      \(reason.count)  \(reason.reason)") }
        row("revocations", revocations, "  (family sharing withdrawn)")
        row("conflicts opened", conflictsOpened)
        row("conflicts resolved", conflictsResolved, "  (\(conflictsOpenNow) open now)")
        row("sandbox on prod.", sandboxOnProduction, "  (of customers who are not testers)")
        row("grants", grants)
        out.append("  by operator")
        if byOperator.isEmpty { out.append("      none") }
        for entry in byOperator {
            out.append("      \(UnsafeText.escaped(entry.operatorName, keeping: []))  \(entry.grants) grant\(entry.grants == 1 ? "" : "s"), \(entry.revokes) revoke\(entry.revokes == 1 ? "" : "s")")
        }
        out.append("  active subscriptions (production, now)")
        if activeSubscriptions.isEmpty { out.append("      none") }
        for product in activeSubscriptions { out.append("      \(product.count)  \(UnsafeText.escaped(product.productId, keeping: []))") }
        return out
    }

    /// The report as `receiptdesk report --json` prints it.
    public var json: JSONValue {
        func series(_ s: Series) -> JSONValue { .object([("total", .int(s.total)), ("perDay", .array(s.perDay.map { .int($0) }))]) }
        return .object([
            ("period", .string(period.rawValue)), ("start", .date(start)), ("end", .date(end)),
            ("days", .array(days.map { .string($0) })),
            ("arrivals", series(arrivals)), ("refunds", series(refunds)),
            ("refundReasons", .array(refundReasons.map { .object([("reason", .string($0.reason)), ("count", .int($0.count))]) })),
            ("revocations", series(revocations)), ("conflictsOpened", series(conflictsOpened)),
            ("conflictsResolved", series(conflictsResolved)), ("conflictsOpenNow", .int(conflictsOpenNow)),
            ("sandboxOnProduction", series(sandboxOnProduction)), ("grants", series(grants)),
            ("byOperator", .array(byOperator.map { .object([("operator", .string($0.operatorName)), ("grants", .int($0.grants)), ("revokes", .int($0.revokes))]) })),
            ("activeSubscriptions", .array(activeSubscriptions.map { .object([("productId", .string($0.productId)), ("count", .int($0.count))]) })),
        ])
    }
}
