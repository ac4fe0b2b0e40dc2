import Foundation
import PurchaseStore
import ReceiptCore

/// One list row as cells, per tab, and each tab's columns (`ListColumns` lays them out for the
/// page and the width: ids whole, the least important columns leaving a narrow pane first).
/// Filter matches are highlighted, and a customer's name and email show beside the id, the
/// email first when that is where the search matched.
enum ListRowFormatter {
    /// The columns of `table`.
    static func columns(_ table: BrowseTable) -> [ListColumns.Column] {
        switch table {
        case .customers:
            return [.init("customer", cap: 32), .init("name", cut: 6, cap: 60, drop: 2, grows: true), .init("tx", drop: 3, right: true),
                    .init("entitled", cut: 8, cap: 24, drop: 4), .init("env", drop: 1)]
        case .orders:
            return [.init("order", cap: 40), .init("product", cut: 7, cap: 48, drop: 2, grows: true), .init("customer", cut: 8, cap: 32, drop: 3),
                    .init("status", drop: 1)]
        case .transactions:
            return [.init("transaction", cap: 40), .init("product", cut: 7, cap: 48, drop: 2, grows: true),
                    .init("customer", cut: 8, cap: 32, drop: 3), .init("env", drop: 1)]
        case .receipts:
            return [.init("#"), .init("customer", cut: 8, cap: 32, drop: 2, grows: true), .init("format", drop: 4), .init("env", drop: 1),
                    .init("verdict", drop: 3)]
        case .conflicts:
            return [.init("#"), .init("transaction", cap: 40), .init("owner → claimant", cut: 16, cap: 64, drop: 2, grows: true),
                    .init("status", drop: 1)]
        case .audit:
            return [.init("#"), .init("at", drop: 4), .init("operator", cut: 8, cap: 16, drop: 5), .init("action", cap: 24, drop: 1),
                    .init("target", cut: 8, cap: 80, drop: 2, grows: true)]
        }
    }

    /// The cells of a row, one per column of its table.
    static func cells(_ row: BrowseRow, highlight: [String]) -> [ListColumns.Cell] {
        func id(_ text: String, _ style: CellStyle = .plain) -> StyledLine { ConsoleFormat.highlighted(DisplayWidth.sanitized(text), style, highlight) }
        func product(_ productId: String, suffix: StyledLine = []) -> ListColumns.Cell {
            ListColumns.Cell(id(productId) + suffix) { width in
                id(ConsoleFormat.product(productId, width: max(4, width - suffix.width))) + suffix
            }
        }
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
            let entitled: StyledLine = c.activeEntitlements.isEmpty ? [Span("–", .muted)]
                : [Span(c.activeEntitlements.joined(separator: ","), CellStyle(.ok)), Span(" ●", CellStyle(.ok))]
            var name = id(c.customerId, .bold)
            if c.isTester { name.append(Span(" T", CellStyle(.sandbox))) }
            if c.openConflicts > 0 { name.append(Span(" ⚠", CellStyle(.warning))) }
            let count = c.transactionCountCapped ? "\(c.transactionCount)+" : String(c.transactionCount)
            let (contact, core) = contact(c, highlight: highlight)
            return [ListColumns.Cell(name), ListColumns.Cell(contact, core: core), ListColumns.Cell(count),
                    ListColumns.Cell(entitled), ListColumns.Cell(env)]
        case .order(_, let o):
            let role: ColorRole = o.status == "paid" ? .ok : o.status == "pending" ? .warning : .danger
            return [ListColumns.Cell(id(o.orderId, .bold)), product(o.productId), ListColumns.Cell(id(o.customerId)),
                    ListColumns.Cell(o.status, CellStyle(role))]
        case .transaction(_, let t):
            let r = t.record
            var env: StyledLine = [ConsoleFormat.badge(ConsoleFormat.environment(r.environment))]
            if r.revocationDate != nil || r.cancellationDate != nil {
                env = r.isUpgraded == true ? [Span("↑ upgraded", CellStyle(.accent, bold: true))] : [Span("✗ refund", CellStyle(.danger, bold: true))]
            }
            if t.inOpenConflict { env = [Span("⚠ conflict", CellStyle(.warning, bold: true))] }
            // A family member's copy says so after its product (Family Sharing, not bought by them).
            let family: StyledLine = r.isFamilyShared ? [Span(" family", CellStyle(.accent))] : []
            return [ListColumns.Cell(id(r.transactionId)), product(r.productId, suffix: family), ListColumns.Cell(id(r.customerId)), ListColumns.Cell(env)]
        case .receipt(_, let r):
            let record = r.record
            let env: StyledLine = r.environmentMismatch ? [ConsoleFormat.mismatch] : [ConsoleFormat.badge(ConsoleFormat.environment(record.environment))]
            let format = ["unified": "unified", "legacy": "legacy", "jws-transaction": "jws tx", "jws-renewal-info": "renewal",
                          "jws-app-transaction": "app tx", "notification": "notif", "verify-receipt-response": "answer"][record.format] ?? record.format
            return [ListColumns.Cell(id("#\(record.receiptId)", .bold)), ListColumns.Cell(id(record.customerId ?? "–")),
                    ListColumns.Cell(format, .muted), ListColumns.Cell(env), ListColumns.Cell([ConsoleFormat.verdict(record.verdict)])]
        case .conflict(_, let c):
            let open = c.status == "open"
            return [ListColumns.Cell("#\(c.conflictId)", .bold), ListColumns.Cell(id(c.transactionId)),
                    ListColumns.Cell(id(c.ownerCustomerId) + [Span(" → ", .muted)] + id(c.claimantCustomerId)),
                    ListColumns.Cell(open ? "⚠ open" : "✓ done", CellStyle(open ? .warning : .muted))]
        case .audit(_, let a):
            return [ListColumns.Cell("#\(a.seq)", .bold), ListColumns.Cell(ConsoleFormat.dateTime(a.at), .muted), ListColumns.Cell(a.operatorName),
                    ListColumns.Cell(a.action, CellStyle(.accent)), ListColumns.Cell(id(a.target))]
        }
    }

    /// A customer's name and email (muted), the email first when the search matched it and
    /// not the name, so a row found by its email shows why, and before both the related id a
    /// search found them through (`via txn 2000000123456789`); empty when there is none of these.
    /// Also the width of its first part (what must show before less important columns do).
    static func contact(_ c: CustomerListRow, highlight: [String]) -> (StyledLine, Int) {
        let name = c.displayName.flatMap { $0.isEmpty || $0 == c.customerId ? nil : DisplayWidth.sanitized($0) }
        let email = c.email.flatMap { $0.isEmpty ? nil : DisplayWidth.sanitized($0) }
        func matches(_ text: String?) -> Bool {
            guard let text else { return false }
            return highlight.contains { !$0.isEmpty && text.range(of: $0, options: [.caseInsensitive, .diacriticInsensitive]) != nil }
        }
        var parts: [StyledLine] = []
        if let name { parts.append(ConsoleFormat.highlighted(name, .plain, highlight)) }
        if let email {
            let shown = ConsoleFormat.highlighted(email, .muted, highlight)
            if matches(email) && !matches(name) && !matches(c.customerId) { parts.insert(shown, at: 0) } else { parts.append(shown) }
        }
        // Found through a related id (one of their transactions, an order, a token): that id and
        // what it is come first, and must show.
        if let via = c.matchedVia {
            let line = [Span("via \(via.kind.label) ", CellStyle(.accent))] + ConsoleFormat.highlighted(DisplayWidth.sanitized(via.value), .plain, highlight)
            parts.insert(line, at: 0)
        }
        guard let first = parts.first else { return ([], 0) }
        // What must show: the reason, the name, or the email the search matched; an email alone shows where it fits.
        let core = c.matchedVia != nil || name != nil || matches(email) ? first.width : 0
        return (parts.dropFirst().reduce(first) { $0 + [Span("  ")] + $1 }, core)
    }

    /// One row laid out alone at `width` (its page's layout is `lines`).
    static func row(_ row: BrowseRow, width: Int, highlight: [String]) -> StyledLine {
        let table: BrowseTable
        switch row {
        case .customer: table = .customers
        case .order: table = .orders
        case .transaction: table = .transactions
        case .receipt: table = .receipts
        case .conflict: table = .conflicts
        case .audit: table = .audit
        }
        return lines(table, rows: [row], width: width, highlight: highlight).rows.first ?? []
    }

    /// The heading and the rows of a page of `table`, laid out together at `width`. A list
    /// sorted otherwise than its own order (`sort`) marks the sorting column's title ▲ or ▼; a
    /// date the list does not show (created, purchased, expires, received) is shown after the
    /// id while it sorts.
    static func lines(_ table: BrowseTable, rows: [BrowseRow], width: Int, highlight: [String],
                      sort: BrowseSort? = nil) -> (heading: StyledLine, rows: [StyledLine]) {
        var columns = columns(table)
        // Customers a search found through a related id: that id (never cut) matters more than the badge.
        if table == .customers, rows.contains(where: { if case .customer(_, let c) = $0 { return c.matchedVia != nil } else { return false } }),
           let name = columns.firstIndex(where: { $0.title == "name" }), let env = columns.firstIndex(where: { $0.title == "env" }) {
            let (n, e) = (columns[name], columns[env])
            columns[name] = ListColumns.Column(n.title, cut: n.cut, cap: n.cap, drop: e.drop, grows: n.grows, right: n.alignRight)
            columns[env] = ListColumns.Column(e.title, cut: e.cut, cap: e.cap, drop: n.drop, grows: e.grows, right: e.alignRight)
        }
        var cells = rows.map { self.cells($0, highlight: highlight) }
        if let sort, sort != .own(table) {
            if let title = SortColumnCells.addedTitle(sort.column), columns.count > 1 {
                columns.insert(ListColumns.Column(title), at: 1)
                for index in cells.indices { cells[index].insert(SortColumnCells.cell(rows[index], sort.column), at: 1) }
            }
            let marked = sort.column == .id ? 0 : columns.firstIndex { $0.title == SortColumnCells.title(sort.column) } ?? 0
            let column = columns[marked]
            columns[marked] = ListColumns.Column(column.title + " " + sort.mark, cut: column.cut.map { $0 + 2 }, cap: column.cap + 2, drop: 0,
                                                 grows: column.grows, right: column.alignRight)
        }
        let widths = ListColumns.plan(columns, rows: cells, total: width)
        return (ListColumns.heading(columns, widths: widths, total: width),
                cells.map { ListColumns.line($0, columns: columns, widths: widths, total: width) })
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
