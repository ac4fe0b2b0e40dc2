import Foundation
import PurchaseStore
import ReceiptCore

/// The detail pane's content as lines, built from the loaded model, the open tree nodes and the
/// pane's width. Pure: the reducer uses it to move the cursor, the view to draw.
enum DetailLines {
    static func build(_ state: ConsoleState) -> [DetailLine] {
        let width = max(10, state.layout.detailRect.columns - 3)
        switch state.detail.model {
        case .receipt(let receipt):
            return ReceiptDetailView.lines(receipt, report: state.reports[receipt.stored.record.receiptId],
                                           expanded: state.detail.expanded, width: width, now: state.now,
                                           highlight: state.filter.highlightTexts)
        case .customer(let customer):
            let reports = customer.summary.receipts.compactMap { state.reports[$0.receiptId] }
            return CustomerDetailView.lines(customer, reports: reports, width: width, now: state.now,
                                            highlight: state.filter.highlightTexts)
        case .order(let order): return RecordDetailViews.order(order, width: width)
        case .transaction(let transaction): return RecordDetailViews.transaction(transaction, width: width)
        case .conflict(let conflict): return RecordDetailViews.conflict(conflict, width: width, readOnly: state.header.readOnly)
        case .audit(let entry): return RecordDetailViews.audit(entry, width: width)
        case .empty(let text): return [DetailLine([Span(text, .muted)])]
        }
    }

    /// The tree nodes open when a receipt is first shown: the root and its direct children.
    static func defaultExpanded(_ model: DetailModel) -> Set<String> {
        guard case .receipt(let receipt) = model, let tree = receipt.tree else { return ["r"] }
        var open: Set<String> = ["r"]
        for (index, child) in tree.children.enumerated() where !child.children.isEmpty && child.children.count <= 50 {
            if child.children.allSatisfy({ $0.children.isEmpty }) || child.label == "in_app" || child.label == "payload" {
                open.insert("r.\(index)")
            }
        }
        return open
    }

    /// Every path of the receipt tree (for `*`).
    static func allPaths(_ model: DetailModel) -> Set<String> {
        guard case .receipt(let receipt) = model, let tree = receipt.tree else { return [] }
        var paths: Set<String> = []
        func walk(_ node: TreeNode, _ path: String) {
            paths.insert(path)
            for (index, child) in node.children.enumerated() { walk(child, "\(path).\(index)") }
        }
        walk(tree, "r")
        return paths
    }

    /// A heading line.
    static func heading(_ text: String, _ detail: String = "") -> DetailLine {
        DetailLine([Span(text, .heading)] + (detail.isEmpty ? [] : [Span("  " + detail, .muted)]))
    }

    /// `label  value` with the label padded to `labelWidth`.
    static func field(_ label: String, _ value: StyledLine, labelWidth: Int = 18, indent: Int = 1) -> DetailLine {
        DetailLine([Span(String(repeating: " ", count: indent) + DisplayWidth.fit(label, to: labelWidth), .muted)] + value)
    }

    /// Wrapped text, each line indented.
    static func paragraph(_ text: String, width: Int, indent: Int, style: CellStyle, first: String = "") -> [DetailLine] {
        let pad = String(repeating: " ", count: indent)
        let room = max(5, width - indent - DisplayWidth.of(first))
        return ConsoleFormat.wrap(text, width: room).enumerated().map { index, line in
            let lead = index == 0 ? first : String(repeating: " ", count: DisplayWidth.of(first))
            return DetailLine([Span(pad + lead, style), Span(line, style)])
        }
    }
}
