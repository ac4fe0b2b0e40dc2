import PurchaseStore

/// The list pane (the window of rows, the selection, more-above / more-below marks, scan notes)
/// and the detail pane (the lines of `DetailLines`, the cursor line, a scroll mark).
enum PaneViews {
    static func drawList(_ state: ConsoleState, on screen: Screen) {
        let layout = state.layout
        let rect = layout.listRect
        let list = state.list
        let focused = state.focus == .list && isBrowsing(state)
        let count = state.counts.rows[state.tab] ?? 0
        var title: StyledLine = [Span(state.tab.title, CellStyle(.accent, bold: true))]
        if state.filter.isEmpty {
            title.append(Span(" (\(ConsoleFormat.count(count)))", .muted))
        } else if let matches = state.matchCounts[state.tab], !matches.applies {
            // Every word of the search is ignored here: say so instead of "filtered".
            title.append(Span(" not searched: \(list.ignored.joined(separator: ", "))", .muted))
        } else {
            let counted = state.matchCounts[state.tab].map { ConsoleFormat.matchCount($0) + " match" + ($0.count == 1 && !$0.isLowerBound ? "" : "es") }
            // The query itself shows at the right of the tab bar.
            title.append(Span(" · \(counted ?? "counting…")", CellStyle(.match)))
            if !list.ignored.isEmpty { title.append(Span(" · ignored here: \(list.ignored.joined(separator: ", "))", .muted)) }
        }
        let tagged = Set((state.tags[state.tab] ?? []).map(\.key))
        if !tagged.isEmpty { title.append(Span(" · \(tagged.count) tagged", CellStyle(.accent, bold: true))) }
        Frame.box(screen, rect, title: title, focused: focused)
        let inner = rect.inside
        let highlight = state.filter.highlightTexts
        let shown = Array(list.rows.prefix(layout.listRows))
        let laid = ListRowFormatter.lines(state.tab, rows: list.loaded ? shown : [], width: inner.columns - 1, highlight: highlight,
                                          sort: list.loaded ? list.sort : state.sorts[state.tab])
        screen.put(laid.heading, row: inner.row, column: inner.column + 1, width: inner.columns - 1)
        if !list.loaded {
            screen.put("loading…", row: layout.firstListRow, column: inner.column + 1, style: .muted)
            return
        }
        if list.rows.isEmpty {
            let text = state.filter.isEmpty ? "nothing here yet" : "no matches for / \(state.filter.text)" + ConsoleReducer.notQualifierNote(state.filter)
            for (offset, line) in ConsoleFormat.wrap(text, width: inner.columns - 2).prefix(layout.listRows).enumerated() {
                screen.put(line, row: layout.firstListRow + offset, column: inner.column + 1, style: .muted, maxWidth: inner.columns - 1)
            }
        }
        for (index, laidOut) in laid.rows.enumerated() {
            let screenRow = layout.firstListRow + index
            var line = laidOut
            let selected = index == list.selected
            if selected && focused { line = Columns.restyle(line) { $0.reversed } }
            // The mark column: ▸ the selection, • a tagged row (◆ both: selected and tagged).
            let isTagged = index < list.rows.count && tagged.contains(list.rows[index].key)
            screen.put(selected ? (isTagged ? "◆" : "▸") : (isTagged ? "•" : " "), row: screenRow, column: inner.column, style: CellStyle(.accent, bold: true))
            screen.put(line, row: screenRow, column: inner.column + 1, width: inner.columns - 1)
        }
        // Notes in the bottom border: more rows, a scan that stopped, filter words ignored here.
        var notes: [String] = []
        if list.moreBefore { notes.append("▲ more") }
        if list.moreAfter { notes.append("▼ more") }
        if let scanned = list.scannedThrough { notes.append("searched to \(scanned): ↓ / PgDn searches on") }
        if !notes.isEmpty {
            let text = " " + notes.joined(separator: " · ") + " "
            screen.put(text, row: rect.row + rect.rows - 1, column: rect.column + 2,
                       style: CellStyle(list.scannedThrough != nil ? .warning : .muted), maxWidth: rect.columns - 4)
        }
    }

    static func drawDetail(_ state: ConsoleState, on screen: Screen) {
        let layout = state.layout
        let rect = layout.detailRect
        let focused = state.focus == .detail && isBrowsing(state)
        var title: StyledLine = [Span(state.detail.target?.title ?? "detail", CellStyle(.accent, bold: true))]
        if state.detail.stack.count > 0 { title.append(Span("  Esc back", .muted)) }
        Frame.box(screen, rect, title: title, focused: focused)
        let lines = DetailLines.build(state)
        let inner = rect.inside
        // The detail may have shrunk under its scroll (its row changed while scrolled down): draw
        // what is left, never a range whose end is before its start.
        let first = min(state.detail.scroll, lines.count)
        for index in first..<min(lines.count, first + layout.detailRows) {
            let row = layout.firstDetailRow + index - first
            var spans = lines[index].spans
            if focused && index == state.detail.cursor {
                spans = Columns.restyle(Columns.fit(spans, to: inner.columns - 1)) { $0.reversed }
            }
            screen.put(spans, row: row, column: inner.column + 1, width: inner.columns - 1)
        }
        Frame.scrollbar(screen, rect, offset: first, visible: layout.detailRows, total: lines.count)
    }

    /// Whether no overlay covers the panes (the focused pane's border is highlighted only then).
    static func isBrowsing(_ state: ConsoleState) -> Bool {
        switch state.mode {
        case .browse, .filter, .command: return true
        default: return false
        }
    }
}
