import Foundation
import PurchaseStore
import ReceiptCore

/// The customer view: entitlements each with the reason it holds (or not), orders with the
/// transactions bound to them, transactions bound to no order, receipts, conflicts, and the
/// timeline. Orders, transactions, receipts and conflicts open with Enter.
enum CustomerDetailView {
    static func lines(_ detail: CustomerDetail, reports: [ReverifyReport], width: Int, now: Date, highlight: [String]) -> [DetailLine] {
        let s = detail.summary
        var lines: [DetailLine] = []
        let open = s.conflicts.filter { $0.status == "open" }.count
        var title: StyledLine = [Span("customer ", .heading)] + ConsoleFormat.highlighted(s.customerId, .heading, highlight)
        if s.isTester { title.append(Span("  TESTER", CellStyle(.sandbox, bold: true))) }
        lines.append(DetailLine(title))
        var facts = "\(s.orders.count) order\(s.orders.count == 1 ? "" : "s") · \(s.transactions.count) transaction\(s.transactions.count == 1 ? "" : "s") · \(s.receipts.count) receipt\(s.receipts.count == 1 ? "" : "s")"
        if open > 0 { facts += " · \(open) open conflict\(open == 1 ? "" : "s")" }
        lines.append(DetailLine([Span(" " + facts, .muted)]))
        if let money = s.lifetimeSpend?.line {
            lines += DetailLines.paragraph("money: " + money, width: width, indent: 1, style: .muted)
        }

        if let erased = s.erasedAt {
            lines.append(DetailLine([Span(" personal data erased \(ConsoleFormat.dateTime(erased)) by \(s.erasedBy ?? "?")", CellStyle(.warning))]))
        }
        lines += notes(s.notes, width: width)

        if !reports.isEmpty {
            lines.append(DetailLine([Span("Apple's answers", .heading)]))
            for report in reports.sorted(by: { $0.receiptId < $1.receiptId }) {
                let good = report.outcome == .verified
                lines.append(DetailLine([Span(" #\(report.receiptId) ", .bold),
                                         Span(good ? "✓ " : "✗ ", CellStyle(good ? .ok : .danger)),
                                         Span(DisplayWidth.truncate(report.summary, to: max(10, width - 12)), good ? .plain : CellStyle(.danger))],
                                        action: .open(.receipt(report.receiptId))))
            }
        }

        lines.append(DetailLines.heading("Entitlements"))
        if s.entitlements.isEmpty { lines.append(DetailLine([Span("  none", .muted)])) }
        let nameWidth = min(14, max(6, s.entitlements.map { DisplayWidth.of($0.name) }.max() ?? 6))
        for state in s.entitlements {
            let mark = state.isActive ? Span(" ● ", CellStyle(.ok)) : Span(" ○ ", .muted)
            var status = state.isActive ? (state.ends.map { "until " + ConsoleFormat.date($0) } ?? "no end") : "not held"
            if let balance = state.balance { status += " · balance \(balance)" }
            lines.append(DetailLine([mark, Span(DisplayWidth.fit(state.name, to: nameWidth), .bold),
                                     Span(" " + status, state.isActive ? CellStyle(.ok) : .muted)]))
            lines += DetailLines.paragraph(state.reasonAfterName, width: width, indent: 4 + nameWidth, style: .muted)
        }

        // Apple's side, for a customer with a subscription or anything Apple said about them.
        if let apple = detail.apple, !apple.isEmpty || s.transactions.contains(where: { $0.productType == "auto-renewable" }) {
            lines += AppleSideView.subscriptions(apple, width: width, now: now)
        }

        lines.append(DetailLines.heading("Orders"))
        if s.orders.isEmpty { lines.append(DetailLine([Span("  none", .muted)])) }
        let byOrder = Dictionary(grouping: s.transactions.filter { $0.orderId != nil }, by: { $0.orderId ?? "" })
        for order in s.orders {
            let statusRole: ColorRole = order.status == "paid" ? .ok : order.status == "failed" || order.status == "refunded" ? .danger : .warning
            lines.append(DetailLine([Span(" ")] + ConsoleFormat.highlighted(order.orderId, .bold, highlight)
                                    + [Span("  "), Span(order.productId), Span("  " + order.status, CellStyle(statusRole)),
                                       Span("  " + ConsoleFormat.date(order.createdAt), .muted)],
                                    action: .open(.order(order.orderId))))
            for transaction in byOrder[order.orderId] ?? [] {
                lines += wrapped(transactionLine(transaction, prefix: "   └ ", width: width, highlight: highlight), width: width, indent: 6)
            }
            if let reason = order.failureReason { lines.append(DetailLine([Span("   ✗ " + reason, CellStyle(.danger))])) }
        }
        let unbound = s.transactions.filter { $0.orderId == nil }
        if !unbound.isEmpty {
            lines.append(DetailLines.heading("Transactions bound to no order", "\(unbound.count)"))
            for transaction in unbound.prefix(200) {
                lines += wrapped(transactionLine(transaction, prefix: " ", width: width, highlight: highlight), width: width, indent: 3)
            }
            if unbound.count > 200 { lines.append(DetailLine([Span("  … \(unbound.count - 200) more: see the Transactions tab", .muted)])) }
        }

        lines.append(DetailLines.heading("Receipts"))
        // Receipts they presented that are stored under someone else (who presented them first).
        let presented = s.conflicts.filter { $0.claimantCustomerId == s.customerId && $0.receiptId != nil
            && $0.receiptCustomerId != nil && $0.receiptCustomerId != s.customerId }
        for conflict in presented {
            guard let receipt = conflict.receiptId, let holder = conflict.receiptCustomerId else { continue }
            lines += DetailLines.paragraph("#\(receipt) presented by them is stored under \(holder), who presented it first (conflict #\(conflict.conflictId))",
                                           width: width, indent: 1, style: .plain, first: "▸ ").map {
                var line = $0
                line.action = .open(.receipt(receipt))
                return line
            }
        }
        if s.receipts.isEmpty && presented.isEmpty {
            lines += DetailLines.paragraph("no receipt on file: ask the customer to restore purchases so the app refreshes its receipt, then import it",
                                           width: width, indent: 1, style: CellStyle(.warning), first: "⚠ ")
        }
        for receipt in s.receipts.suffix(50) {
            let format = ArtefactFormat(rawValue: receipt.format)?.displayName ?? receipt.format
            lines.append(DetailLine([Span(" ▸ ", CellStyle(.accent)), Span("#\(receipt.receiptId) ", .bold),
                                     ConsoleFormat.badge(ConsoleFormat.environment(receipt.environment)), Span(" "),
                                     ConsoleFormat.verdict(receipt.verdict),
                                     Span("  " + DisplayWidth.truncate(format, to: 24) + "  " + ConsoleFormat.date(receipt.importedAt), .muted)],
                                    action: .open(.receipt(receipt.receiptId))))
        }

        if !s.conflicts.isEmpty {
            lines.append(DetailLines.heading("Conflicts"))
            for conflict in s.conflicts {
                let isOpen = conflict.status == "open"
                let presented = conflict.receiptId.map { " (presented in receipt #\($0))" } ?? ""
                let text = "#\(conflict.conflictId) transaction \(conflict.transactionId): owner \(conflict.ownerCustomerId), claimed by \(conflict.claimantCustomerId)\(presented)"
                lines.append(DetailLine([Span(isOpen ? " ⚠ " : " ✓ ", CellStyle(isOpen ? .warning : .ok)),
                                         Span(DisplayWidth.truncate(text, to: max(10, width - 14))),
                                         Span(isOpen ? "  open" : "  resolved", CellStyle(isOpen ? .warning : .muted))],
                                        action: .open(.conflict(conflict.conflictId))))
            }
        }

        lines += HistoryLines.customer(detail, width: width)

        lines.append(DetailLines.heading("Timeline"))
        lines += TimelineView.lines(TimelineModel(detail, now: now), width: width).map { DetailLine($0) }
        if let apple = detail.apple { lines += AppleSideView.events(apple, width: width) }
        return lines
    }

    /// The team's notes on the customer, newest first (none: no section).
    static func notes(_ notes: [NoteRecord], width: Int) -> [DetailLine] {
        guard !notes.isEmpty else { return [] }
        var lines = [DetailLines.heading("Notes", "\(notes.count)")]
        for note in notes.reversed().prefix(20) {
            lines.append(DetailLine([Span(" " + ConsoleFormat.dateTime(note.writtenAt), .muted), Span("  " + note.writtenBy, .bold)]))
            lines += DetailLines.paragraph(note.text ?? "(erased with the customer's personal data)", width: width, indent: 3,
                                           style: note.text == nil ? .muted : .plain)
        }
        if notes.count > 20 { lines.append(DetailLine([Span("   … \(notes.count - 20) older: see the case file (e)", .muted)])) }
        return lines
    }

    /// A line too long for the pane continues on the next ones (a date is never cut after
    /// "expires"), each opening what the line does.
    static func wrapped(_ line: DetailLine, width: Int, indent: Int) -> [DetailLine] {
        guard line.spans.width > width else { return [line] }
        return Columns.wrap(line.spans, width: width, indent: indent).map { wrapped in
            var spans = wrapped
            if let last = spans.last, last.text.allSatisfy({ $0 == " " }) { spans.removeLast() }  // the padding
            return DetailLine(spans, action: line.action)
        }
    }

    static func transactionLine(_ t: TransactionRecord, prefix: String, width: Int, highlight: [String]) -> DetailLine {
        // What says something is wrong comes right after the id, so a narrow pane cuts the
        // product and the dates, never the refund, the conflict or the environment.
        var spans: StyledLine = [Span(prefix, .muted)] + ConsoleFormat.highlighted(t.transactionId, .plain, highlight)
        if t.revocationDate != nil || t.cancellationDate != nil { spans.append(ConsoleFormat.revocation(t)) }
        if t.isFamilyShared { spans.append(Span("  family shared", CellStyle(.accent))) }
        if t.binding == "ambiguous" { spans.append(Span("  ⚠ ambiguous order", CellStyle(.warning))) }
        let environment = ConsoleFormat.environment(t.environment)
        if environment != .production { spans += [Span("  "), ConsoleFormat.badge(environment)] }
        if t.repeatArrivals > 0 { spans.append(Span("  ↺\(t.repeatArrivals)", CellStyle(.warning))) }
        spans += [Span("  ")] + ConsoleFormat.highlighted(t.productId, .plain, highlight)
        if t.quantity > 1 { spans.append(Span(" ×\(t.quantity)")) }
        if let date = t.purchaseDate { spans.append(Span("  " + ConsoleFormat.date(date), .muted)) }
        if let expires = t.expiresDate { spans.append(Span("  expires\u{00A0}" + ConsoleFormat.date(expires), .muted)) }
        if let plan = t.billingPlanType {
            spans.append(Span("  " + BillingPlanType.describe(plan) + (t.commitment?.billingPeriodNumber.map { " \($0)/\(t.commitment?.totalBillingPeriods.map(String.init) ?? "?")" } ?? ""), .muted))
        }
        if let finished = t.finishedAt { spans.append(Span("  finished at Apple " + ConsoleFormat.date(finished), .muted)) }
        return DetailLine(spans, action: .open(.transaction(t.transactionId)))
    }
}
