/// The help screen: every binding of every mode (the binding table as remapped, the mouse, the
/// pager's, the prompts', the forms' …), over the whole screen. Summaries wrap instead of being
/// cut; on a wide screen the rows flow into two columns so less of it needs scrolling.
enum HelpView {
    static func draw(_ state: ConsoleState, scroll: Int, on screen: Screen) {
        let rows = KeyBindings.helpRows(readOnly: state.header.readOnly, table: state.bindings, modes: state.modeBindings)
        // The whole screen but the hint row.
        let rect = Rect(row: 0, column: 0, rows: max(3, state.size.rows - 1), columns: state.size.columns)
        Frame.clear(screen, rect)
        var title: StyledLine = [Span("Help", CellStyle(.accent, bold: true))]
        if state.header.readOnly { title.append(Span("  read-only: changing actions are not available", CellStyle(.warning))) }
        Frame.box(screen, rect, title: title, focused: true)
        let inner = rect.inside
        let visible = max(1, inner.rows - 1)
        let columns = columnCount(width: inner.columns)
        let columnWidth = inner.columns / columns
        let lines = self.lines(rows, width: columnWidth - 1)
        let split = columns == 1 ? lines.count : splitPoint(lines)
        let parts = [Array(lines[..<split]), Array(lines[split...]).drop { $0.isEmpty }.map { $0 }]
        let perColumn = parts.map(\.count).max() ?? 0
        let first = min(max(0, scroll), max(0, perColumn - visible))
        for (column, part) in parts.enumerated() {
            for (offset, line) in part.dropFirst(first).prefix(visible).enumerated() {
                screen.put(line, row: inner.row + offset, column: inner.column + column * columnWidth, width: columnWidth - 1)
            }
        }
        let more = perColumn > visible ? " · j/k PgDn scroll: \(first + 1)–\(min(perColumn, first + visible)) of \(perColumn)" : ""
        let folder = state.exportFolder.map { " · files (e, s) go to \($0)" } ?? ""
        let footers = [" :name runs any command by name · keys: config console.keys\(folder)\(more) · Esc closes",
                       " :name runs any command by name\(folder)\(more) · Esc closes", " Esc closes\(folder)\(more)", " Esc closes\(more)"]
        let footer = footers.first { DisplayWidth.of($0) <= inner.columns } ?? " Esc closes"
        screen.put(footer, row: inner.row + inner.rows - 1, column: inner.column, style: .muted, maxWidth: inner.columns)
    }

    /// Where the second column starts: at the section heading that halves the lines best, so no
    /// section is split between the columns.
    static func splitPoint(_ lines: [StyledLine]) -> Int {
        let headings = lines.indices.filter { $0 > 0 && lines[$0 - 1].isEmpty }
        return headings.min { max($0, lines.count - $0) < max($1, lines.count - $1) } ?? lines.count
    }

    /// One column up to 155 columns, two from 156 (each then at least 78 wide).
    static func columnCount(width: Int) -> Int { width >= 156 ? 2 : 1 }

    /// The rows as lines `width` wide: keys, the command's name, and its summary wrapped under itself.
    static func lines(_ rows: [(keys: String, name: String, summary: String, heading: Bool)], width: Int) -> [StyledLine] {
        let keyWidth = min(width / 3, rows.filter { !$0.heading }.map { DisplayWidth.of($0.keys) }.max() ?? 0) + 2
        let nameWidth = min(width / 5, rows.filter { !$0.heading }.map { DisplayWidth.of($0.name) }.max() ?? 0) + 1
        var lines: [StyledLine] = []
        for row in rows {
            if row.heading {
                if !lines.isEmpty { lines.append([]) }
                lines.append([Span(" " + row.name, .heading)])
                continue
            }
            let lead = row.name.isEmpty ? keyWidth : keyWidth + nameWidth
            let keys = DisplayWidth.of(row.keys) < keyWidth ? DisplayWidth.fit(" " + row.keys, to: keyWidth) : " " + row.keys + " "
            var first: StyledLine = [Span(keys, CellStyle(.accent, bold: true))]
            if !row.name.isEmpty {  // a name is never cut ("form.previous-field"): a longer one pushes its summary on
                first.append(Span(DisplayWidth.of(row.name) < nameWidth ? DisplayWidth.fit(row.name, to: nameWidth) : row.name + " ", .bold))
            }
            let indent = max(lead, first.width)
            let wrapped = ConsoleFormat.wrap(row.summary, first: max(8, width - first.width), rest: max(8, width - indent))
            lines.append(first + [Span(wrapped.first ?? "")])
            for more in wrapped.dropFirst() { lines.append([Span(String(repeating: " ", count: indent) + more)]) }
        }
        return lines
    }
}
