import Foundation
import PurchaseStore
import ReceiptCore

/// A customer's history laid out on one time axis: one lane per subscription chain or product,
/// one for manual grants and revocations, one for re-verifications.
struct TimelineModel {
    /// Something drawn on a lane.
    enum Mark {
        /// A subscription period (purchase to expiry).
        case period(Date, Date, Environment)
        /// A one-time purchase.
        case purchase(Date, Environment)
        /// A refund, cancellation or revocation.
        case refund(Date)
        /// A manual grant, to its end (nil: forever).
        case grant(Date, Date?)
        /// A re-verification.
        case reverify(Date)
        /// Something Apple said happened (`SubscriptionEvent.kind`: renewed, billing retry, refund, …).
        case apple(Date, String)
    }

    struct Lane {
        let label: String
        var marks: [Mark]
    }

    var lanes: [Lane] = []
    /// What the bars cannot say, one line each: an upgrade and to what, a prorated refund's
    /// share, a family revoke, a downgrade or crossgrade and when it takes effect.
    var notes: [String] = []
    let now: Date

    init(_ detail: CustomerDetail, now: Date) {
        self.now = now
        let transactions = detail.summary.transactions
        var order: [String] = []
        var byLane: [String: Lane] = [:]
        for t in transactions {
            let subscription = t.expiresDate != nil
            let key = subscription ? "sub:" + (t.originalTransactionId ?? t.transactionId) : "one:" + t.productId
            if byLane[key] == nil {
                order.append(key)
                byLane[key] = Lane(label: t.productId, marks: [])
            }
            let environment = ConsoleFormat.environment(t.environment)
            if let start = t.purchaseDate {
                if let end = t.expiresDate {
                    byLane[key]?.marks.append(.period(start, end, environment))
                } else {
                    byLane[key]?.marks.append(.purchase(start, environment))
                }
            }
            if let refunded = t.revocationDate ?? t.cancellationDate { byLane[key]?.marks.append(.refund(refunded)) }
        }
        let products = Dictionary((detail.apple?.states ?? []).map { ($0.originalTransactionId, $0.productId ?? $0.originalTransactionId) },
                                  uniquingKeysWith: { first, _ in first })
        for event in detail.apple?.events ?? [] {
            let key = "sub:" + event.originalTransactionId
            if byLane[key] == nil {
                order.append(key)
                byLane[key] = Lane(label: products[event.originalTransactionId] ?? event.originalTransactionId, marks: [])
            }
            byLane[key]?.marks.append(.apple(event.occurredAt, event.kind))
        }
        lanes = order.compactMap { byLane[$0] }
        notes = Self.notes(transactions, states: detail.apple?.states ?? [])
        var manual = Lane(label: "grants", marks: [])
        for grant in detail.summary.grants {
            manual.marks.append(.grant(grant.startsAt, grant.revokedAt ?? grant.endsAt))
            if let revoked = grant.revokedAt { manual.marks.append(.refund(revoked)) }
        }
        for revocation in detail.revocations { manual.marks.append(.refund(revocation.revokedAt)) }
        if !manual.marks.isEmpty { lanes.append(manual) }
        let checks = detail.attempts.map { Mark.reverify($0.attemptedAt) }
        if !checks.isEmpty { lanes.append(Lane(label: "re-verified", marks: checks)) }
    }

    /// The timeline's notes, oldest first (see `notes`).
    static func notes(_ transactions: [TransactionRecord], states: [SubscriptionState]) -> [String] {
        var dated: [(Date, String)] = []
        for t in transactions {
            guard let at = t.revocationDate ?? t.cancellationDate else { continue }
            let day = ConsoleFormat.date(at)
            if t.isUpgraded == true {
                let target = transactions.filter {
                    $0.originalTransactionId == t.originalTransactionId && $0.productId != t.productId
                        && ($0.purchaseDate.map { date in t.purchaseDate.map { date >= $0 } ?? true } ?? false)
                }.min { ($0.purchaseDate ?? .distantFuture) < ($1.purchaseDate ?? .distantFuture) }
                dated.append((at, "↑ \(t.productId) upgraded to \(target?.productId ?? "another product of the group") on \(day)"))
            } else if t.revocationType == RevocationType.familyRevoke.rawValue {
                dated.append((at, "✗ \(t.productId) family sharing revoked on \(day) (this member's copy)"))
            } else if t.revocationType == RevocationType.refundProrated.rawValue, let words = t.revocationWords {
                dated.append((at, "✗ \(t.productId) \(words) on \(day)"))
            }
        }
        for s in states where s.status == 1 {
            guard let next = s.autoRenewProductId, let product = s.productId, next != product, s.autoRenew != false else { continue }
            let at = s.renewalDate ?? s.expiresDate
            dated.append((at ?? .distantFuture, "→ \(product) changes to \(next) at the renewal on \(at.map(ConsoleFormat.date) ?? "(date unknown)") (downgrade or crossgrade)"))
        }
        return dated.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The dates the axis must span.
    var range: (Date, Date) {
        var dates: [Date] = [now]
        for lane in lanes {
            for mark in lane.marks {
                switch mark {
                case .period(let a, let b, _): dates += [a, b]
                case .purchase(let a, _), .refund(let a), .reverify(let a), .apple(let a, _): dates.append(a)
                case .grant(let a, let b): dates.append(a); if let b { dates.append(b) }
                }
            }
        }
        let start = dates.min() ?? now
        var end = dates.max() ?? now
        if end.timeIntervalSince(start) < 86_400 { end = start.addingTimeInterval(86_400) }
        return (start, end)
    }
}

/// Draws the timeline: bars for subscription periods (█, each renewal starting with ▕), ● for
/// purchases, ✗ for refunds and revocations, ◆─ for grants (→ when forever), ↻ for
/// re-verifications, │ for now; then the axis with its dates and a legend.
enum TimelineView {
    static let maxLanes = 8

    static func lines(_ model: TimelineModel, width: Int) -> [StyledLine] {
        guard !model.lanes.isEmpty else { return [[Span("  nothing yet: no purchases, grants or re-verifications", .muted)]] }
        let labelWidth = min(16, max(8, width / 4))
        let chart = max(10, width - labelWidth - 3)
        let (start, end) = model.range
        let span = end.timeIntervalSince(start)
        func column(_ date: Date) -> Int {
            min(chart - 1, max(0, Int((date.timeIntervalSince(start) / span * Double(chart - 1)).rounded())))
        }
        let nowColumn = column(model.now)
        var out: [StyledLine] = []
        for lane in model.lanes.prefix(maxLanes) {
            var cells = Array(repeating: Span(" "), count: chart)
            cells[nowColumn] = Span("│", .muted)
            for mark in lane.marks {
                switch mark {
                case .period(let a, let b, let environment):
                    let (from, to) = (column(a), max(column(a), column(b) - 1))
                    let role = ConsoleFormat.role(environment) == .muted ? ColorRole.production : ConsoleFormat.role(environment)
                    for c in from...to { cells[c] = Span(c == from ? "▕" : "█", CellStyle(role)) }
                case .purchase(let a, let environment):
                    cells[column(a)] = Span("●", CellStyle(ConsoleFormat.role(environment) == .muted ? .production : ConsoleFormat.role(environment)))
                case .grant(let a, let b):
                    let from = column(a)
                    let to = b.map(column) ?? chart - 1
                    if to > from { for c in (from + 1)...to { cells[c] = Span(b == nil && c == chart - 1 ? "→" : "─", CellStyle(.accent)) } }
                    cells[from] = Span("◆", CellStyle(.accent, bold: true))
                case .reverify(let a): cells[column(a)] = Span("↻", CellStyle(.accent))
                case .refund, .apple: break
                }
            }
            // Apple's events over the bars, refunds last, so a bar never hides them.
            for case .apple(let a, let kind) in lane.marks { cells[column(a)] = TimelineGlyph.apple(kind) }
            for case .refund(let a) in lane.marks { cells[column(a)] = Span("✗", CellStyle(.danger, bold: true)) }
            out.append([Span(" " + DisplayWidth.fit(ConsoleFormat.product(lane.label, width: labelWidth), to: labelWidth) + " ", .muted)] + merge(cells))
        }
        if model.lanes.count > maxLanes {
            out.append([Span("  … \(model.lanes.count - maxLanes) more lanes", .muted)])
        }
        // The axis: its two ends and now.
        let pad = String(repeating: " ", count: labelWidth + 2)
        var axis = Array(repeating: "─", count: chart)
        axis[0] = "└"
        axis[chart - 1] = "┘"
        axis[nowColumn] = "┴"
        out.append([Span(pad, .muted), Span(axis.joined(), .muted)])
        var labels = Array(repeating: Character(" "), count: chart)
        func place(_ text: String, at c: Int) {
            let characters = Array(text)
            let first = min(max(0, c), max(0, chart - characters.count))
            guard first + characters.count <= chart, labels[first..<(first + characters.count)].allSatisfy({ $0 == " " }) else { return }
            for (i, ch) in characters.enumerated() { labels[first + i] = ch }
        }
        place(ConsoleFormat.date(start), at: 0)
        place(ConsoleFormat.date(end), at: chart - 10)
        place("now", at: nowColumn - 1)
        out.append([Span(pad, .muted), Span(String(labels), .muted)])
        // The legend wraps rather than cutting a word ("↻ re-verifie").
        var legend = ""
        for item in ["▕█ subscription", "● purchase", "✗ refund/revoked", "◆ grant", "↻ re-verified"] {
            if !legend.isEmpty, DisplayWidth.of(legend + "  " + item) + 1 > width {
                out.append([Span(" " + legend, .muted)])
                legend = ""
            }
            legend += (legend.isEmpty ? "" : "  ") + item
        }
        out.append([Span(" " + legend, .muted)])
        let hasApple = model.lanes.contains { $0.marks.contains { if case .apple = $0 { return true } else { return false } } }
        if hasApple { out.append([Span(TimelineGlyph.legend, .muted)]) }
        for note in model.notes.suffix(maxLanes) { out.append([Span(" " + DisplayWidth.truncate(note, to: max(10, width - 2)), .muted)]) }
        return out
    }

    /// Adjacent cells of one style as one span.
    static func merge(_ cells: [Span]) -> StyledLine {
        var out: StyledLine = []
        for cell in cells {
            if let last = out.last, last.style == cell.style {
                out[out.count - 1].text += cell.text
            } else {
                out.append(cell)
            }
        }
        return out
    }
}
