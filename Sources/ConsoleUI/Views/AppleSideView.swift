import Foundation
import PurchaseStore
import ReceiptCore

/// Apple's side of a customer in the customer view: each subscription as Apple last reported it
/// (its status in words and colour, the one line that says why it stopped or what happens next,
/// auto-renew, prices as money, the offer, where the state came from), the refund requests
/// waiting for an answer, and Apple's events for the timeline's list.
enum AppleSideView {
    /// The colour of Apple's status: active ok; grace period and billing retry a warning;
    /// expired and revoked danger.
    static func role(_ state: SubscriptionState) -> ColorRole {
        switch state.status {
        case 1: return .ok
        case 3, 4: return .warning
        case 2, 5: return .danger
        default: return .muted
        }
    }

    static func mark(_ state: SubscriptionState) -> String {
        switch state.status {
        case 1: return "●"
        case 3, 4: return "◐"
        case 2, 5: return "✗"
        default: return "?"
        }
    }

    static func subscriptions(_ side: CustomerAppleSide, width: Int, now: Date) -> [DetailLine] {
        var lines = [DetailLines.heading("Subscriptions (Apple)", side.states.isEmpty ? "" : "\(side.states.count)")]
        if side.states.isEmpty {
            lines.append(DetailLine([Span("  Apple has not reported on a subscription of theirs (a asks Apple)", .muted)]))
        }
        for state in side.states {
            let role = role(state)
            var head: StyledLine = [Span(" \(mark(state)) ", CellStyle(role)), Span(state.productId ?? "?", .bold),
                                    Span("  " + state.statusName.uppercased(), CellStyle(role, bold: true))]
            let environment = ConsoleFormat.environment(state.environment)
            if environment != .production { head += [Span("  "), ConsoleFormat.badge(environment)] }
            head.append(Span("  original \(state.originalTransactionId)", .muted))
            lines.append(DetailLine(head, action: .open(.transaction(state.originalTransactionId))))
            lines += DetailLines.paragraph(SubscriptionStory.line(state, now: now, day: ConsoleFormat.date), width: width, indent: 4,
                                           style: CellStyle(role == .ok ? .plain : role))
            var renew = "auto-renew " + (state.autoRenew.map { $0 ? "on" : "off" } ?? "not said")
            if let next = state.autoRenewProductId, state.autoRenew != false { renew += " → \(next)" }
            if let expires = state.expiresDate { renew += " · expires \(ConsoleFormat.date(expires))" }
            lines += DetailLines.paragraph(renew, width: width, indent: 4, style: .muted)
            var money: [String] = []
            if let price = AppleMoney.format(state.price, currency: state.currency) { money.append("price \(price)") }
            if let next = AppleMoney.format(state.renewalPrice, currency: state.currency) { money.append("next \(next)") }
            if let storefront = state.storefront { money.append("storefront \(storefront)") }
            if let offer = state.offerName { money.append(offer) }
            if let winBack = state.winBackEligibility { money.append(winBack) }
            if !money.isEmpty { lines += DetailLines.paragraph(money.joined(separator: " · "), width: width, indent: 4, style: .plain) }
            for e in side.extensions where e.original == state.originalTransactionId {
                let when = e.requestedAt.map(ConsoleFormat.date) ?? "?"
                lines += DetailLines.paragraph("extension of \(Plural.of(e.days, "day")) asked \(when) by \(e.by): \(e.outcome)", width: width, indent: 4,
                                               style: CellStyle(e.outcome.hasPrefix("refused") ? .danger : .accent))
            }
            lines += DetailLines.paragraph("from \(state.source), signed \(ConsoleFormat.dateTime(state.signedDate))", width: width, indent: 4,
                                           style: .muted)
        }
        let waiting = side.refundRequests.filter { $0.status == .open || $0.status == .sent }
        if !waiting.isEmpty {
            lines.append(DetailLines.heading("Refund requests", "\(waiting.count)"))
            for request in waiting { lines.append(refundLine(request, now: now)) }
        }
        return lines
    }

    static func refundLine(_ r: RefundRequest, now: Date) -> DetailLine {
        let overdue = r.isOverdue(at: now)
        let style: CellStyle = overdue ? CellStyle(.danger, bold: true) : r.status == .open ? CellStyle(.warning) : .muted
        return DetailLine([Span(overdue ? " ⚠ " : " ? ", style), Span("#\(r.requestId) ", .bold), Span(r.timing(at: now), style),
                           Span("  \(r.productId ?? "?")  transaction \(r.transactionId)"),
                           Span("  deadline \(ConsoleFormat.dateTime(r.deadline))", .muted)]
                            + (r.requestReason.map { [Span("  why: \(RefundRequest.reasonWords($0))")] } ?? []),
                          action: .open(.transaction(r.transactionId)))
    }

    /// The newest of Apple's events, one a line, for under the timeline.
    static func events(_ side: CustomerAppleSide, width: Int, limit: Int = 12) -> [DetailLine] {
        guard !side.events.isEmpty else { return [] }
        var lines = [DetailLine([Span(" Apple's events", .bold), Span("  newest last (\(side.events.count))", .muted)])]
        if side.events.count > limit { lines.append(DetailLine([Span("  … \(side.events.count - limit) older", .muted)])) }
        for event in side.events.suffix(limit) {
            let glyph = TimelineGlyph.apple(event.kind)
            lines.append(DetailLine([Span("  " + ConsoleFormat.date(event.occurredAt) + " ", .muted), Span(glyph.text, glyph.style),
                                     Span(" " + DisplayWidth.fit(event.kind, to: 17), .bold),
                                     Span(" " + DisplayWidth.truncate(event.detail, to: max(10, width - 34)))],
                                    value: (title: "Apple's event \(event.kind) (\(event.source))", text: event.detail)))
        }
        return lines
    }
}

/// The glyphs of Apple's events on the timeline (each with a word in the legend).
enum TimelineGlyph {
    static func apple(_ kind: String) -> Span {
        switch kind {
        case "renewed", "subscribed", "billing recovered", "charged": return Span("↺", CellStyle(.ok))
        case "billing retry", "grace period", "grace period ended": return Span("!", CellStyle(.warning, bold: true))
        case "refund requested": return Span("?", CellStyle(.warning, bold: true))
        case "refund", "revoked": return Span("✗", CellStyle(.danger, bold: true))
        case "refund declined": return Span("⊘", CellStyle(.accent))
        case "refund reversed": return Span("↩", CellStyle(.ok, bold: true))
        case "extended", "mass extension": return Span("»", CellStyle(.accent, bold: true))
        case "expired": return Span("■", CellStyle(.danger))
        case "offer": return Span("★", CellStyle(.accent))
        case "price increase": return Span("$", CellStyle(.warning))
        default: return Span("·", .muted)
        }
    }

    static let legend = " Apple: ↺ renewed  ! billing retry/grace  ? refund asked  ⊘ declined  ↩ reversed  » extended  ■ expired  ★ offer  $ price"
}
