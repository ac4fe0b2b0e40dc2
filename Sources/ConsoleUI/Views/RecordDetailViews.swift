import Foundation
import PurchaseStore
import ReceiptCore

/// The detail of an order, a transaction, a conflict and an audit entry: their fields, with the
/// customer, receipt and order they name one Enter away.
enum RecordDetailViews {
    static func order(_ detail: OrderDetail, width: Int) -> [DetailLine] {
        let o = detail.order
        var lines = [DetailLine([Span("order ", .heading), Span(o.orderId, .heading)])]
        lines.append(DetailLines.field("customer", [Span(o.customerId, .bold), Span("  (Enter opens)", .muted)]))
        lines[lines.count - 1].action = .open(.customer(o.customerId))
        lines.append(DetailLines.field("product", [Span(o.productId)]))
        let role: ColorRole = o.status == "paid" ? .ok : o.status == "pending" ? .warning : .danger
        lines.append(DetailLines.field("status", [Span(o.status, CellStyle(role, bold: true))]))
        lines.append(DetailLines.field("created", [Span(ConsoleFormat.dateTime(o.createdAt))]))
        if let token = o.appAccountToken { lines.append(DetailLines.field("account token", [Span(token)])) }
        if let reason = o.failureReason { lines.append(DetailLines.field("failed payment", [Span(reason, CellStyle(.danger))])) }
        if let t = detail.transaction {
            lines.append(DetailLines.heading("Bound transaction", "binding: \(t.binding)"))
            lines.append(CustomerDetailView.transactionLine(t, prefix: " ", width: width, highlight: []))
        } else {
            lines.append(DetailLine([Span(" no transaction bound yet", CellStyle(.warning))]))
        }
        return lines
    }

    static func transaction(_ detail: TransactionDetail, width: Int) -> [DetailLine] {
        let t = detail.record
        var lines = [DetailLine([Span("transaction ", .heading), Span(t.transactionId, .heading)])]
        var customer = DetailLines.field("customer", [Span(t.customerId, .bold)])
        customer.action = .open(.customer(t.customerId))
        lines.append(customer)
        lines.append(DetailLines.field("environment", [ConsoleFormat.badge(ConsoleFormat.environment(t.environment))]))
        lines.append(DetailLines.field("product", [Span(t.productId)] + (t.productType.map { [Span("  " + $0, .muted)] } ?? [])))
        if let original = t.originalTransactionId, original != t.transactionId {
            lines.append(DetailLines.field("original id", [Span(original)]))
        }
        lines.append(DetailLines.field("quantity", [Span(String(t.quantity))]))
        if let date = t.purchaseDate { lines.append(DetailLines.field("purchased", [Span(ConsoleFormat.dateTime(date))])) }
        if let date = t.expiresDate { lines.append(DetailLines.field("expires", [Span(ConsoleFormat.dateTime(date))])) }
        if t.isFamilyShared {
            lines.append(DetailLines.field("ownership", [Span("family shared", CellStyle(.accent)), Span("  a family organiser's purchase, this member's own copy", .muted)]))
        }
        if let date = t.revocationDate ?? t.cancellationDate {
            if t.isUpgraded == true {
                lines.append(DetailLines.field("upgraded", [Span("↑ " + ConsoleFormat.dateTime(date), CellStyle(.accent, bold: true)),
                                                            Span("  stopped granting at the upgrade", .muted)]))
            } else {
                lines.append(DetailLines.field("refunded", [Span("✗ " + ConsoleFormat.dateTime(date), CellStyle(.danger, bold: true))]
                                               + (t.revocationWords.map { [Span("  " + $0, CellStyle(.danger))] } ?? [])))
            }
        }
        if t.billingPlanType != nil || t.commitment != nil {
            var text = t.billingPlanType.map(BillingPlanType.describe) ?? "commitment plan"
            if let c = t.commitment { text += ", " + c.describe(currency: nil, day: ConsoleFormat.date) }
            lines.append(DetailLines.field("billing plan", [Span(text)]))
        }
        if let finished = t.finishedAt {
            lines.append(DetailLines.field("Apple", [Span("finished at Apple " + ConsoleFormat.dateTime(finished)),
                                                     Span("  by \(t.finishedBy ?? "unknown") (Finish Transaction)", .muted)]))
        }
        var binding: StyledLine = [Span(t.binding, t.binding == "ambiguous" ? CellStyle(.warning) : .plain)]
        if let order = t.orderId { binding += [Span(" → order "), Span(order, .bold)] }
        var bindingLine = DetailLines.field("order binding", binding)
        if let order = t.orderId { bindingLine.action = .open(.order(order)) }
        lines.append(bindingLine)
        if t.binding == "ambiguous" || (t.orderId == nil && t.binding == "unbound") {
            lines += DetailLines.paragraph(t.binding == "ambiguous"
                ? "more than one order fits: an operator must decide which order this pays"
                : "bound to no merchant order (the app sent no applicationUsername / appAccountToken)",
                width: width, indent: 1, style: CellStyle(.warning), first: "⚠ ")
        }
        if let receipt = detail.receipt {
            lines.append(DetailLine([Span(" first seen in ", .muted), Span("receipt #\(receipt.receiptId)", .bold), Span(" "),
                                     ConsoleFormat.verdict(receipt.verdict), Span("  (Enter opens; r re-verifies it)", .muted)],
                                    action: .open(.receipt(receipt.receiptId))))
        }
        for conflict in detail.conflicts {
            lines.append(DetailLine([Span(" ⚠ ", CellStyle(.warning)), Span("conflict #\(conflict.conflictId): claimed by \(conflict.claimantCustomerId) (\(conflict.status))")],
                                    action: .open(.conflict(conflict.conflictId))))
        }
        lines += HistoryLines.arrivals(detail, width: width)
        return lines
    }

    static func conflict(_ detail: ConflictDetail, width: Int, readOnly: Bool) -> [DetailLine] {
        let c = detail.conflict
        let open = c.status == "open"
        var lines = [DetailLine([Span("conflict #\(c.conflictId) ", .heading),
                                 Span(open ? "⚠ open" : "✓ resolved", CellStyle(open ? .warning : .ok, bold: true))])]
        var transaction = DetailLines.field("transaction", [Span(c.transactionId, .bold)])
        transaction.action = .open(.transaction(c.transactionId))
        lines.append(transaction)
        if let t = detail.transaction { lines.append(DetailLines.field("product", [Span(t.productId)])) }
        lines.append(DetailLines.field("opened", [Span(ConsoleFormat.dateTime(c.openedAt))]))
        for (role, customer, states) in [(open ? "owner" : "owner before", c.ownerCustomerId, detail.ownerEntitlements),
                                         ("claimant", c.claimantCustomerId, detail.claimantEntitlements)] {
            let held = states.filter(\.isActive).map(\.name)
            var line = DetailLines.field(role, [Span(customer, .bold), Span("  holds: " + (held.isEmpty ? "nothing" : held.joined(separator: ", ")), .muted)])
            line.action = .open(.customer(customer))
            lines.append(line)
        }
        if let receipt = c.receiptId {
            // A receipt is stored once, under whoever presented it first: the claimant may have
            // presented the owner's receipt, which then is not theirs.
            var spans: StyledLine = [Span("#\(receipt)", .bold)]
            if let holder = c.receiptCustomerId, holder != c.claimantCustomerId {
                spans.append(Span("  stored under \(holder), who presented it first", .muted))
            }
            var line = DetailLines.field("presented in", spans)
            line.action = .open(.receipt(receipt))
            lines.append(line)
        }
        if open {
            lines += DetailLines.paragraph(readOnly
                ? "the transaction stays with its owner until an operator chooses (read-only: resolving is not available here)"
                : "the transaction stays with its owner until an operator chooses: press o to choose the owner",
                width: width, indent: 1, style: CellStyle(.warning), first: "⚠ ")
        } else if let owner = c.resolvedOwner {
            lines.append(DetailLines.field("resolved for", [Span(owner, CellStyle(.ok, bold: true))]))
            let when = [c.resolvedBy.map { "by \($0)" }, c.resolvedAt.map { ConsoleFormat.dateTime($0) }].compactMap { $0 }
            if !when.isEmpty { lines.append(DetailLines.field("resolved", [Span(when.joined(separator: " at "))])) }
            if let reason = c.resolutionReason {
                lines += DetailLines.paragraph("\"\(reason)\"", width: width, indent: 20, style: .plain, first: "")
            }
        }
        return lines
    }

    static func audit(_ entry: AuditEntry, width: Int) -> [DetailLine] {
        var lines = [DetailLine([Span("audit entry #\(entry.seq)", .heading)])]
        lines.append(DetailLines.field("at", [Span(ConsoleFormat.dateTimeZoned(entry.at))]))
        lines.append(DetailLines.field("operator", [Span(entry.operatorName, .bold)]))
        if let user = entry.databaseUser {
            // Who the database says wrote it: the name above is the client's word, this is not.
            lines.append(DetailLines.field("database user", [Span(user)]))
        }
        lines.append(DetailLines.field("action", [Span(entry.action, CellStyle(.accent, bold: true))]))
        var target = DetailLines.field("target", [Span(entry.target)])
        if let colon = entry.target.firstIndex(of: ":") {
            let id = String(entry.target[entry.target.index(after: colon)...])
            switch entry.target[..<colon] {
            case "customer": target.action = .open(.customer(id))
            case "transaction": target.action = .open(.transaction(id))
            case "order": target.action = .open(.order(id))
            case "receipt": target.action = Int64(id).map { .open(.receipt($0)) }
            default: break
            }
        }
        lines.append(target)
        let details = SelectedValue.prettyJSON(entry.details)
        lines.append(DetailLine([Span("Details", .heading), Span("  v reads them whole, y copies them", .muted)],
                                value: ("audit entry #\(entry.seq): details", details)))
        lines += DetailLines.paragraph(entry.details, width: width, indent: 2, style: .plain)
                  .map { DetailLine($0.spans, value: ("audit entry #\(entry.seq): details", details)) }
        var hash = DetailLines.field("hash", [Span(String(entry.hash.prefix(16)) + "…", .muted)])
        hash.value = ("audit entry #\(entry.seq): hash", entry.hash)
        var previous = DetailLines.field("previous hash", [Span(String(entry.previousHash.prefix(16)) + "…", .muted)])
        previous.value = ("audit entry #\(entry.seq): previous hash", entry.previousHash)
        lines += [hash, previous]
        return lines
    }
}
