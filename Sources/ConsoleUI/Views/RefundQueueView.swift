import Foundation
import PurchaseStore

/// The refund requests queue over the panes: one request a row, most urgent first, with how
/// long is left before Apple decides without the merchant ("due in 3h 20m") or how long ago
/// that was ("OVERDUE by 1h 5m", in the danger colour).
enum RefundQueueView {
    static func draw(_ state: ConsoleState, _ queue: RefundQueueState, on screen: Screen) {
        let rect = state.layout.overlay(maxColumns: 140, maxRows: max(8, state.size.rows - 4))
        Frame.clear(screen, rect)
        let open = queue.requests.filter { $0.status == .open }.count
        let overdue = queue.requests.filter { $0.isOverdue(at: state.now) }.count
        var title: StyledLine = [Span("Refund requests", CellStyle(.accent, bold: true)),
                                 Span(" \(open) open\(queue.all ? " · answered ones too" : "")", .muted)]
        if overdue > 0 { title.append(Span(" · \(overdue) OVERDUE", CellStyle(.danger, bold: true))) }
        Frame.box(screen, rect, title: title, focused: true)
        let inner = rect.inside
        let rows = lines(queue.requests, now: state.now)
        if !queue.loaded {
            screen.put(" loading…", row: inner.row, column: inner.column, style: .muted, maxWidth: inner.columns)
        } else if rows.isEmpty {
            let text = queue.all ? " no refund requests" : " no refund request waiting (a shows answered ones)"
            screen.put(text, row: inner.row, column: inner.column, style: .muted, maxWidth: inner.columns)
        }
        let visible = max(1, inner.rows - 1)
        let first = max(0, min(queue.selected - visible + 1, rows.count - visible))
        for (offset, line) in rows.dropFirst(max(0, first)).prefix(visible).enumerated() {
            let index = max(0, first) + offset
            var spans = line
            if index == queue.selected { spans = spans.map { Span($0.text, CellStyle($0.style.role, bold: $0.style.bold, reverse: true)) } }
            screen.put(spans, row: inner.row + offset, column: inner.column, width: inner.columns)
        }
        screen.put(ConsoleFormat.fitHints(" Enter reviews the draft, then consent, preference and a reason, then sends · a answered ones · Esc closes",
                                          width: inner.columns),
                   row: inner.row + inner.rows - 1, column: inner.column, style: .muted, maxWidth: inner.columns)
    }

    /// One line per request.
    static func lines(_ requests: [RefundRequest], now: Date) -> [StyledLine] {
        requests.map { r in
            let timing = r.timing(at: now)
            let style: CellStyle = r.isOverdue(at: now) ? CellStyle(.danger, bold: true) : r.status == .open ? CellStyle(.warning) : .muted
            return [Span(" #\(r.requestId) ".padding(toLength: 7, withPad: " ", startingAt: 0), .bold),
                    Span(DisplayWidth.fit(timing, to: 18), style),
                    Span(" " + DisplayWidth.fit(r.customerId ?? "(no known customer)", to: 18), .bold),
                    Span(" " + DisplayWidth.fit(r.productId ?? "?", to: 28)),
                    Span(" tx \(r.transactionId)", .muted),
                    Span("  \(r.environment.lowercased())  deadline \(ConsoleFormat.dateTime(r.deadline))", .muted)]
                + (r.requestReason.map { [Span("  why: \(RefundRequest.reasonWords($0))")] } ?? [])
        }
    }
}
