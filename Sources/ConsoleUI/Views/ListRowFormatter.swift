import Foundation
import PurchaseStore
import ReceiptCore

/// One list row as columns, per tab, narrowed for small panes by leaving out the least
/// important columns first; filter matches are highlighted.
enum ListRowFormatter {
    /// The column heading of `table` at `width`.
    static func heading(_ table: BrowseTable, width: Int) -> StyledLine {
        let wide = width >= 50
        let cells: [Columns.Cell]
        switch table {
        case .customers:
            cells = [.init("customer", .muted, nil), .init("tx", .muted, 5, right: true)]
                + (wide ? [.init("entitled", .muted, 12)] : []) + [.init("env", .muted, 10)]
        case .orders:
            cells = [.init("order", .muted, nil), .init("product", .muted, wide ? 18 : 12)]
                + (wide ? [.init("customer", .muted, 12)] : []) + [.init("status", .muted, 8)]
        case .transactions:
            cells = [.init("transaction", .muted, wide ? 16 : 12), .init("product", .muted, nil)]
                + (wide ? [.init("customer", .muted, 12)] : []) + [.init("env", .muted, 10)]
        case .receipts:
            cells = [.init("#", .muted, 5), .init("customer", .muted, nil)] + (wide ? [.init("format", .muted, 9)] : [])
                + [.init("env", .muted, 10), .init(wide ? "verdict" : "ok", .muted, wide ? 9 : 2)]
        case .conflicts:
            cells = [.init("#", .muted, 4), .init("transaction", .muted, nil)] + (wide ? [.init("owner → claimant", .muted, 24)] : [])
                + [.init("status", .muted, 8)]
        case .audit:
            cells = [.init("#", .muted, 6)] + (wide ? [.init("at", .muted, 16), .init("operator", .muted, 8)] : [])
                + [.init("action", .muted, wide ? 16 : 12), .init("target", .muted, nil)]
        }
        return Columns.layout(cells, total: width)
    }

    /// A row of the list at `width` columns.
    static func row(_ row: BrowseRow, width: Int, highlight: [String]) -> StyledLine {
        let wide = width >= 50
        func id(_ text: String, _ style: CellStyle = .plain) -> StyledLine { ConsoleFormat.highlighted(DisplayWidth.sanitized(text), style, highlight) }
        let cells: [Columns.Cell]
        switch row {
        case .customer(_, let c):
            var env: StyledLine
            if c.environmentMismatch {
                env = [ConsoleFormat.mismatch]
            } else if let notable = c.environments.map(ConsoleFormat.environment).sorted(by: { rank($0) > rank($1) }).first {
                env = [ConsoleFormat.badge(notable)]
            } else {
                env = [Span("–", .muted)]
            }
            var entitled: StyledLine = c.activeEntitlements.isEmpty ? [Span("–", .muted)]
                : [Span(c.activeEntitlements.joined(separator: ","), CellStyle(.ok)), Span(" ●", CellStyle(.ok))]
            if c.openConflicts > 0 { entitled = [Span("⚠ ", CellStyle(.warning))] + entitled }
            var name = id(c.customerId, .bold)
            if c.isTester { name.append(Span(" T", CellStyle(.sandbox))) }
            if c.openConflicts > 0 && !wide { name.append(Span(" ⚠", CellStyle(.warning))) }
            let count = c.transactionCountCapped ? "\(c.transactionCount)+" : String(c.transactionCount)
            cells = [.init(name, nil), .init(count, .plain, 5, right: true)]
                + (wide ? [.init(entitled, 12)] : []) + [.init(env, 10)]
        case .order(_, let o):
            let role: ColorRole = o.status == "paid" ? .ok : o.status == "pending" ? .warning : .danger
            cells = [.init(id(o.orderId, .bold), nil), .init(id(ConsoleFormat.product(o.productId, width: wide ? 18 : 12)), wide ? 18 : 12)]
                + (wide ? [.init(id(o.customerId), 12)] : []) + [.init(o.status, CellStyle(role), 8)]
        case .transaction(_, let t):
            let r = t.record
            var env: StyledLine = [ConsoleFormat.badge(ConsoleFormat.environment(r.environment))]
            if r.revocationDate != nil || r.cancellationDate != nil {
                env = r.isUpgraded == true ? [Span("↑ upgraded", CellStyle(.accent, bold: true))] : [Span("✗ refund", CellStyle(.danger, bold: true))]
            }
            if t.inOpenConflict { env = [Span("⚠ conflict", CellStyle(.warning, bold: true))] }
            let idWidth = wide ? 16 : 12
            let shown = DisplayWidth.of(r.transactionId) > idWidth ? ConsoleFormat.shortId(r.transactionId, idWidth) : r.transactionId
            let productWidth = max(4, width - idWidth - 10 - 3 - (wide ? 13 : 0))
            // A family member's copy says so after its product (Family Sharing, not bought by them).
            let family = r.isFamilyShared ? " family" : ""
            cells = [.init(id(shown), idWidth),
                     .init(id(ConsoleFormat.product(r.productId, width: max(4, productWidth - family.count))) + (family.isEmpty ? [] : [Span(family, CellStyle(.accent))]), nil)]
                + (wide ? [.init(id(r.customerId), 12)] : []) + [.init(env, 10)]
        case .receipt(_, let r):
            let record = r.record
            let env: StyledLine = r.environmentMismatch ? [ConsoleFormat.mismatch] : [ConsoleFormat.badge(ConsoleFormat.environment(record.environment))]
            let format = ["unified": "unified", "legacy": "legacy", "jws-transaction": "jws tx", "jws-renewal-info": "renewal",
                          "jws-app-transaction": "app tx", "notification": "notif", "verify-receipt-response": "answer"][record.format] ?? record.format
            let verdict = ConsoleFormat.verdict(record.verdict)
            let glyph = Span(String(verdict.text.prefix(1)), verdict.style)
            cells = [.init(id("#\(record.receiptId)", .bold), 5), .init(id(record.customerId ?? "–"), nil)]
                + (wide ? [.init(format, .muted, 9)] : []) + [.init(env, 10), .init([wide ? verdict : glyph], wide ? 9 : 2)]
        case .conflict(_, let c):
            let open = c.status == "open"
            cells = [.init("#\(c.conflictId)", .bold, 4), .init(id(c.transactionId), nil)]
                + (wide ? [.init(id(c.ownerCustomerId) + [Span(" → ", .muted)] + id(c.claimantCustomerId), 24)] : [])
                + [.init(open ? "⚠ open" : "✓ done", CellStyle(open ? .warning : .muted), 8)]
        case .audit(_, let a):
            cells = [.init("#\(a.seq)", .bold, 6)] + (wide ? [.init(ConsoleFormat.dateTime(a.at), .muted, 16), .init(a.operatorName, .plain, 8)] : [])
                + [.init(a.action, CellStyle(.accent), wide ? 16 : 12), .init(id(a.target), nil)]
        }
        return Columns.layout(cells, total: width)
    }

    /// Which badge a customer row shows when they have several: the least ordinary.
    static func rank(_ environment: Environment) -> Int {
        switch environment {
        case .xcode, .localTesting: return 3
        case .sandbox: return 2
        case .production: return 1
        case .unknown: return 0
        }
    }
}
