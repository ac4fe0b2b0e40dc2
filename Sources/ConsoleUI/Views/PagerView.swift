import ReceiptCore

/// Draws the pager: the value in a box over the screen, wrapped at the box's width (or cut, with
/// → where a line goes on), matches of the search highlighted, and its keys or prompt below.
enum PagerView {
    static func draw(_ state: ConsoleState, _ pager: PagerState, on screen: Screen) {
        let rect = state.layout.overlay(maxColumns: state.size.columns, maxRows: state.size.rows)
        Frame.clear(screen, rect)
        let title: StyledLine = [Span(pager.title, CellStyle(.accent, bold: true)),
                                 Span("  \(Plural.of(pager.lines.count, "line")) · \(Plural.of(pager.text.utf8.count, "byte"))"
                                      + (pager.wrap ? " · wrapped" : ""), .muted)]
        Frame.box(screen, rect, title: title, focused: true)
        let inner = rect.inside
        let width = max(1, inner.columns - 1)
        let rows = visibleRows(pager, width: width)
        let visible = max(1, inner.rows - 1)
        let first = min(pager.scroll, max(0, rows.count - visible))
        for (offset, row) in rows.dropFirst(first).prefix(visible).enumerated() {
            var line = ConsoleFormat.highlighted(row.text, row.isMatch ? CellStyle(bold: true) : .plain, pager.search.isEmpty ? [] : [pager.search])
            if row.continues { line.append(Span("→", .muted)) }
            screen.put([Span(" ")] + line, row: inner.row + offset, column: inner.column, width: inner.columns)
        }
        Frame.scrollbar(screen, rect, offset: first, visible: visible, total: rows.count)
        let bottom = inner.row + inner.rows - 1
        switch pager.prompt {
        case .search(let field)?:
            prompt("/", field.text, hint: "Enter finds (any case) · Esc cancels", row: bottom, inner: inner, on: screen)
        case .save(let field)?:
            let folder = state.exportFolder.map { "in \($0) (a path from / or ~ goes there)" } ?? "(this console writes no files)"
            prompt("save to ", field.text, hint: "Enter writes a new file · \(folder) · Esc cancels", row: bottom, inner: inner, on: screen)
        case nil where pager.shownOnce:
            let k = { (action: ModeAction) in ModeKeys.key(action, in: .pager, table: state.modeBindings) }
            screen.put(ConsoleFormat.fitHints(" shown once, not kept: \(k(.copy)) copy (OSC 52) · \(k(.down))/\(k(.up)) scroll · \(k(.wrap)) wrap · \(k(.close)) close (it is gone then)",
                                              width: inner.columns), row: bottom,
                       column: inner.column, style: CellStyle(.warning), maxWidth: inner.columns)
        case nil:
            let k = { (action: ModeAction) in ModeKeys.key(action, in: .pager, table: state.modeBindings) }
            screen.put(ConsoleFormat.fitHints(" \(k(.down))/\(k(.up)) scroll · \(k(.wrap)) wrap · \(k(.search)) search · \(k(.next)) next · \(k(.copy)) copy (OSC 52) · \(k(.save)) save to a file · \(k(.close)) close",
                                              width: inner.columns), row: bottom,
                       column: inner.column, style: .muted, maxWidth: inner.columns)
        }
    }

    private static func prompt(_ sigil: String, _ text: String, hint: String, row: Int, inner: Rect, on screen: Screen) {
        var line: StyledLine = [Span(" " + sigil, CellStyle(.accent, bold: true)), Span(text, .bold), Span(" ", CellStyle(reverse: true))]
        line.append(Span(ConsoleFormat.fitHints("  " + hint, width: max(0, inner.columns - line.width)), .muted))
        screen.put(line, row: row, column: inner.column, width: inner.columns)
    }

    struct Row {
        let text: String
        let continues: Bool
        let isMatch: Bool
    }

    /// The rows the lines make at `width`: each line cut into pieces when wrapping, else cut once.
    static func visibleRows(_ pager: PagerState, width: Int) -> [Row] {
        var rows: [Row] = []
        for (index, raw) in pager.lines.enumerated() {
            let line = DisplayWidth.sanitized(raw)
            let isMatch = index == pager.matchLine
            guard DisplayWidth.of(line) > width else {
                rows.append(Row(text: line, continues: false, isMatch: isMatch))
                continue
            }
            guard pager.wrap else {
                rows.append(Row(text: DisplayWidth.truncate(line, to: width - 1, ellipsis: false), continues: true, isMatch: isMatch))
                continue
            }
            var piece = ""
            var used = 0
            for character in line {
                let w = DisplayWidth.of(character)
                if used + w > width {
                    rows.append(Row(text: piece, continues: false, isMatch: isMatch))
                    piece = ""
                    used = 0
                }
                piece.append(character)
                used += w
            }
            rows.append(Row(text: piece, continues: false, isMatch: isMatch))
        }
        return rows
    }
}
