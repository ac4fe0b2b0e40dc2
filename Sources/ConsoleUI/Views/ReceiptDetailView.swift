import Foundation
import PurchaseStore
import ReceiptCore

/// The receipt view: environment badges (MISMATCH when Apple reported another environment), the
/// verdict with the chain it saw, warnings with advice, Apple's answer after a re-verification,
/// and the receipt tree with Apple's field names and attribute numbers, foldable.
enum ReceiptDetailView {
    static func lines(_ r: ReceiptDetail, report: ReverifyReport?, expanded: Set<String>, width: Int, now: Date,
                      highlight: [String]) -> [DetailLine] {
        let record = r.stored.record
        var lines: [DetailLine] = []
        let format = ArtefactFormat(rawValue: record.format)?.displayName ?? record.format
        var title: StyledLine = [Span("receipt #\(record.receiptId)", .heading), Span(" · \(format)", .bold)]
        if let customer = record.customerId {
            title += [Span(" · customer ", .muted)] + ConsoleFormat.highlighted(customer, .plain, highlight)
        }
        lines.append(DetailLine(title, action: record.customerId.map { .open(.customer($0)) }))
        lines.append(DetailLine([Span(" imported \(ConsoleFormat.dateTime(record.importedAt)) by \(record.importedBy) from \(record.source)", .muted)]))
        // The artefact as it was imported, and Apple's last answer as it came: v reads, y copies, s (in the reader) saves.
        let raw = Self.rawText(r.stored.raw)
        lines.append(DetailLine([Span(" raw artefact ", .bold), Span("\(Plural.of(r.stored.raw.count, "byte")) · v reads it whole, y copies it", .muted)],
                                value: ("receipt #\(record.receiptId): raw artefact", raw)))
        if let answer = r.reverifications.first(where: { $0.rawAnswer != nil }), let text = answer.rawAnswer {
            lines.append(DetailLine([Span(" Apple's raw answer ", .bold),
                                     Span("\(Plural.of(text.utf8.count, "byte")), \(ConsoleFormat.dateTime(answer.at)) · v reads it, y copies it", .muted)],
                                    value: ("receipt #\(record.receiptId): Apple's answer of \(RFC3339.format(answer.at))", text)))
        }

        // Environment: the receipt's own word, and Apple's when it differs.
        let local = r.environment?.environment ?? ConsoleFormat.environment(record.environment)
        var environmentLine: StyledLine = [Span(" "), ConsoleFormat.badge(local)]
        let apple = ConsoleFormat.environment(r.stored.appleEnvironment)
        if r.stored.appleEnvironment != nil, apple != .unknown {
            if apple != local && local != .unknown {
                environmentLine += [Span("  "), ConsoleFormat.mismatch, Span(" Apple says ", CellStyle(.danger)), ConsoleFormat.badge(apple)]
            } else {
                environmentLine += [Span("  Apple agrees", .muted)]
            }
        }
        lines.append(DetailLine(environmentLine))
        if let reading = r.environment {
            lines.append(DetailLine([Span("   from \(reading.source.rawValue)" + (reading.rawValue.map { ": \($0)" } ?? "")
                                          + " · \(reading.signedWord)", .muted)]))
            if let claim = reading.claim {
                let said = "\(claim.source.rawValue): \(claim.rawValue ?? "absent") (claims \(claim.environment.rawValue), unsigned)"
                lines.append(DetailLine(claim.disagrees
                    ? [Span("   "), ConsoleFormat.mismatch, Span(" \(said); treated as sandbox", CellStyle(.danger))]
                    : [Span("   \(said)", .muted)]))
            }
        }

        // The verdict and the chain it saw.
        if let verdict = r.verdict {
            let mark = ConsoleFormat.verdict(verdict.status.rawValue)
            for (index, text) in ConsoleFormat.wrap(verdict.reason, first: width - 3 - mark.width, rest: width - 3).enumerated() {
                lines.append(DetailLine(index == 0 ? [Span(" "), mark, Span("  " + text)] : [Span("   " + text)]))
            }
            if !verdict.chain.isEmpty {
                lines += DetailLines.paragraph(verdict.chain.joined(separator: " ← "), width: width, indent: 3, style: .muted, first: "chain: ")
            }
            if let anchor = verdict.extraAnchor, !verdict.reason.contains(anchor) {
                lines.append(DetailLine([Span("   ⚠ trusted through an extra anchor: \(anchor)", CellStyle(.warning))]))
            }
            if verdict.status.rawValue != record.verdict {
                lines.append(DetailLine([Span("   at import: ", .muted), ConsoleFormat.verdict(record.verdict), Span(" " + record.verdictReason, .muted)]))
            }
        } else {
            lines.append(DetailLine([Span(" "), ConsoleFormat.verdict(record.verdict), Span("  " + record.verdictReason)]))
        }
        if let revocation = r.stored.revocationAtImport {
            lines += DetailLines.paragraph(revocation.summary, width: width, indent: 3,
                                           style: revocation.outcome == "good" ? .muted : CellStyle(.warning),
                                           first: revocation.outcome == "good" ? "at import, " : "⚠ at import, ")
        }
        if let contradiction = r.stored.appleContradiction {
            lines += DetailLines.paragraph(contradiction, width: width, indent: 1, style: CellStyle(.danger, bold: true), first: "✗ ")
        }
        if let error = r.decodeError {
            lines += DetailLines.paragraph(error, width: width, indent: 1, style: CellStyle(.danger), first: "✗ does not decode: ")
        }

        // Warnings, each once, with where they are and the advice they carry.
        var warnings = r.tree.map(located) ?? []
        if !r.paidEra.isEmpty {
            // Bought while the app was paid: no in-app purchase is expected, and restoring would not add one.
            warnings.removeAll { $0.warning.kind == .emptyPurchaseList }
            lines += DetailLines.paragraph("no in-app purchases, and none are needed: " + r.paidEra.joined(separator: "; "),
                                           width: width, indent: 1, style: CellStyle(.ok), first: "✓ ")
        } else if r.tree != nil, r.purchases.isEmpty, !warnings.contains(where: { $0.warning.kind == .emptyPurchaseList }) {
            lines += DetailLines.paragraph(TreeWarning.emptyPurchaseList.message, width: width, indent: 1, style: CellStyle(.warning), first: "⚠ ")
        }
        // The same warning on several nodes is one line naming them all.
        var order: [String] = []
        var places: [String: [String]] = [:]
        for (place, warning) in warnings where warning.kind != .sandbox {
            if places[warning.message] == nil { order.append(warning.message) }
            places[warning.message, default: []] += place.isEmpty ? [] : [place]
        }
        // What the ledger made of its purchases: callbacks seen before, purchases bound to no order.
        var unbound = 0
        for purchase in r.purchases {
            guard let id = purchase.transactionId, let recorded = r.recorded[id] else { continue }
            if recorded.firstReceiptId != record.receiptId {
                order.append("duplicate callback: transaction \(id) was first recorded from receipt #\(recorded.firstReceiptId); it was not recorded again")
            }
            if recorded.binding == "ambiguous" {
                order.append("unbound order: transaction \(id) fits more than one order; an operator must choose")
            } else if recorded.orderId == nil {
                unbound += 1
            }
            if let customer = record.customerId, recorded.customerId != customer {
                order.append("transaction \(id) belongs to \(recorded.customerId), not to \(customer) (see Conflicts)")
            }
        }
        if unbound > 0 {
            let text = r.purchases.count == 1 ? "its purchase is bound to no merchant order"
                : unbound == r.purchases.count ? "none of its \(unbound) purchases is bound to a merchant order"
                : "\(unbound) of its \(r.purchases.count) purchases are bound to no merchant order"
            order.append("unbound order: " + text)
        }
        for message in order {
            let where_ = places[message] ?? []
            let text = where_.count == 1 ? "\(where_[0]): \(message)"
                : where_.isEmpty ? message : "\(message) (\(where_.joined(separator: ", ")))"
            lines += DetailLines.paragraph(text, width: width, indent: 1, style: CellStyle(.warning), first: "⚠ ")
        }

        if let report {
            lines.append(DetailLine([]))
            lines += ReverifyAnswerView.lines(report, width: width)
        } else if let stored = r.reverifications.first {
            // Stored with the receipt: what any operator's re-verification found.
            lines += HistoryLines.reverification(stored, count: r.reverifications.count, width: width)
        } else if let verified = r.stored.lastVerifiedAt {
            lines.append(DetailLine([Span(" last re-verified \(ConsoleFormat.dateTime(verified))", .muted)]))
        } else if let attempt = r.stored.attempts.first {
            lines.append(DetailLine([Span(" last asked Apple \(ConsoleFormat.dateTime(attempt.attemptedAt)): \(attempt.outcome)", .muted)]))
        }

        if var tree = r.tree {
            if !r.paidEra.isEmpty { tree = Self.removing(.emptyPurchaseList, from: tree) }
            lines.append(DetailLine([]))
            lines += treeLines(tree, path: "r", depth: 0, expanded: expanded, width: width, highlight: highlight)
        }
        return lines
    }

    /// Stored bytes as text: themselves when they are text (base64, a JWS, JSON), else base64.
    static func rawText(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self),  // a NUL byte is a control character: base64
           !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t" }) {
            return text
        }
        return Data(bytes).base64EncodedString()
    }

    /// The tree without one kind of warning anywhere in it.
    static func removing(_ kind: TreeWarning.Kind, from node: TreeNode) -> TreeNode {
        var node = node
        node.warnings.removeAll { $0.kind == kind }
        node.children = node.children.map { removing(kind, from: $0) }
        return node
    }

    /// Every warning of the tree with the node it is on ("in_app[2] cancellation_date"), each text once.
    static func located(_ tree: TreeNode) -> [(place: String, warning: TreeWarning)] {
        var out: [(String, TreeWarning)] = []
        var seen = Set<String>()
        func walk(_ node: TreeNode, parent: String?) {
            let place = [parent, node.label].compactMap { $0 }.joined(separator: " ")
            for warning in node.warnings where seen.insert(place + warning.message).inserted { out.append((place, warning)) }
            for child in node.children { walk(child, parent: node.label == tree.label ? nil : node.label) }
        }
        walk(tree, parent: nil)
        return out
    }

    /// The tree, one line per visible node; folded nodes hide their children.
    static func treeLines(_ node: TreeNode, path: String, depth: Int, expanded: Set<String>, width: Int,
                          highlight: [String]) -> [DetailLine] {
        let open = expanded.contains(path)
        let hasChildren = !node.children.isEmpty
        let indent = String(repeating: "  ", count: depth)
        let marker = hasChildren ? (open ? "▾ " : "▸ ") : "  "
        var label: StyledLine = [Span(" " + indent + marker, CellStyle(.accent)), Span(node.label, hasChildren ? .bold : .plain)]
        if let attribute = node.attribute { label.append(Span(" (\(attribute))", .muted)) }
        let valueColumn = min(max(24, width / 2 - 4), 38)
        var spans = label
        if let value = node.value {
            let pad = max(2, valueColumn - label.width)
            spans.append(Span(String(repeating: " ", count: pad)))
            let room = max(4, width - spans.width)
            spans += ConsoleFormat.highlighted(DisplayWidth.truncate(DisplayWidth.sanitized(value), to: room), .plain, highlight)
        }
        var lines: [DetailLine] = []
        var inline = node.warnings
        // The first warning goes on the node's line when it fits; the others (and long ones) below it.
        if let first = inline.first, spans.width + 4 + DisplayWidth.of(first.message) <= width {
            spans.append(Span("  ⚠ " + first.message, CellStyle(.warning)))
            inline.removeFirst()
        }
        lines.append(DetailLine(spans, action: hasChildren ? .toggle(path) : nil, treePath: path,
                                value: node.value.map { (node.label + (node.attribute.map { " (\($0))" } ?? ""), $0) }))
        for warning in inline {
            lines += DetailLines.paragraph(warning.message, width: width, indent: 3 + 2 * depth, style: CellStyle(.warning), first: "⚠ ")
                .map { DetailLine($0.spans, treePath: path) }
        }
        if open {
            for (index, child) in node.children.enumerated() {
                lines += treeLines(child, path: "\(path).\(index)", depth: depth + 1, expanded: expanded, width: width, highlight: highlight)
            }
        }
        return lines
    }
}
