import PurchaseStore

/// The header (row 0: database, operator, read-only, who Apple is, the running job) and the tab
/// bar (row 1: each list with its count, the active one reversed, and the filter).
enum TabBarView {
    static let spinner = Array("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

    /// The header: the least important parts give way first when the terminal is narrow (the
    /// title, then "operator:", then "read-write"; the database name is cut last but one; the
    /// Apple label and READ-ONLY stay).
    static func drawHeader(_ state: ConsoleState, on screen: Screen) {
        let width = state.size.columns
        var right: StyledLine = []
        if let applying = state.applying {
            let frame = spinner[(state.tick - applying.startedTick) % spinner.count]
            right.append(Span("\(frame) \(applying.label) ", CellStyle(.accent, bold: true)))
            if width >= 120 { right.append(Span("Esc gives up  ", .muted)) }
        }
        if let job = state.job {
            let frame = spinner[(state.tick - job.startedTick) % spinner.count]
            right.append(Span("\(frame) \(job.label) ", CellStyle(.accent, bold: true)))
            if width >= 120 { right.append(Span("Esc cancels  ", .muted)) }
        }
        if let apple = state.appleJob {
            let frame = spinner[(state.tick - apple.startedTick) % spinner.count]
            right.append(Span("\(frame) \(apple.label) ", CellStyle(.accent, bold: true)))
        }
        if state.auditProblem != nil {
            right.append(Span("⚠ AUDIT LOG ALTERED ", CellStyle(.danger, bold: true, reverse: true)))
            right.append(Span(" "))
        }
        // How fresh the ledger is: its newest arrival (a served purchase or notification, an import).
        if let arrival = state.counts.lastArrival, width >= 100 {
            right.append(Span("live: \(Self.ago(state.now.timeIntervalSince(arrival))) ", .muted))
        }
        // The zone every time on screen is in (u switches to UTC and back).
        right.append(Span(DisplayZone.abbreviation(for: state.now) + "  ", state.showUTC ? CellStyle(.accent, bold: true) : .muted))
        right += [Span("? ", CellStyle(.accent, bold: true)), Span("help ", .muted)]
        let room = max(0, width - right.width - 1)
        let h = state.header
        let demo = h.appleLabel.hasPrefix("DEMO")
        let apple = Span(h.appleLabel, demo ? CellStyle(.sandbox, bold: true) : .muted)
        let access = h.readOnly ? Span("READ-ONLY", CellStyle(.warning, bold: true, reverse: true)) : Span("read-write", .muted)
        func compose(title: Bool, operatorWord: Bool, access showAccess: Bool, database: String) -> StyledLine {
            var line: StyledLine = title ? [Span(" receiptdesk ", CellStyle(.accent, bold: true, reverse: true)), Span("  ")] : [Span(" ")]
            line += [Span(database, .bold), Span(operatorWord ? "  operator: " : "  ", .muted), Span(h.operatorName, .bold)]
            if showAccess { line += [Span("  "), access] }
            return line + [Span("  "), apple]
        }
        var left = compose(title: true, operatorWord: true, access: true, database: h.database)
        for (title, word, access) in [(false, true, true), (false, false, true), (false, false, h.readOnly)] where left.width > room {
            left = compose(title: title, operatorWord: word, access: access, database: h.database)
        }
        if left.width > room {
            let without = compose(title: false, operatorWord: false, access: h.readOnly, database: "").width
            left = compose(title: false, operatorWord: false, access: h.readOnly,
                           database: DisplayWidth.truncate(h.database, to: max(8, room - without)))
        }
        screen.put(Columns.fit(left, to: room), row: 0, column: 0, width: room)
        screen.put(right, row: 0, column: room + 1, width: width - room - 1)
    }

    /// "3 s ago", "4 min ago", "2 h ago", "12 d ago" ("just now" under a second or in the future).
    static func ago(_ seconds: Double) -> String {
        guard seconds >= 1 else { return "just now" }
        switch seconds {
        case ..<60: return "\(Int(seconds)) s ago"
        case ..<3600: return "\(Int(seconds / 60)) min ago"
        case ..<86_400: return "\(Int(seconds / 3600)) h ago"
        default: return "\(Int(seconds / 86_400)) d ago"
        }
    }

    /// The tab labels at the most detailed level that fits, with their columns.
    static func segments(_ state: ConsoleState) -> [(table: BrowseTable, column: Int, label: StyledLine)] {
        let filterWidth = state.filter.isEmpty ? 0 : min(state.size.columns / 3, DisplayWidth.of(state.filter.text) + 4)
        let room = state.size.columns - filterWidth - 1
        for level in 0..<3 {
            var column = 1
            var out: [(BrowseTable, Int, StyledLine)] = []
            for table in BrowseTable.allCases {
                let label = tabLabel(table, state, level: level)
                out.append((table, column, label))
                column += label.width
            }
            if column <= room || level == 2 { return out }
        }
        return []
    }

    static func tabLabel(_ table: BrowseTable, _ state: ConsoleState, level: Int) -> StyledLine {
        let short = ["Customers": "Cust", "Orders": "Ord", "Transactions": "Tx", "Receipts": "Rcpt", "Conflicts": "Confl", "Audit": "Audit"]
        let title = level == 2 ? (short[table.title] ?? table.title) : table.title
        let count = table == .conflicts ? state.counts.openConflicts : state.counts.rows[table] ?? 0
        var number = level == 0 ? ConsoleFormat.count(count) : compact(count)
        let active = table == state.tab
        let style = active ? CellStyle(.accent, bold: true, reverse: true) : CellStyle.plain
        var label: StyledLine = [Span(" " + title + " ", style)]
        if !state.filter.isEmpty {
            // Searching: each tab says how many rows match ("–" where the search does not apply).
            if let matches = state.matchCounts[table] {
                number = !matches.applies ? "–" : level == 0 ? ConsoleFormat.matchCount(matches) : compact(matches.count) + (matches.isLowerBound ? "+" : "")
                let found = matches.applies && matches.count > 0
                label.append(Span(number, found ? CellStyle(.match, bold: true, reverse: active) : (active ? style : .muted)))
            } else {
                label.append(Span("…", active ? style : .muted))
            }
        } else if table == .conflicts && count > 0 {
            label.append(Span("⚠" + number, CellStyle(.warning, bold: true, reverse: active)))
        } else {
            label.append(Span(number, active ? style : .muted))
        }
        label.append(Span(" ", style))
        return label
    }

    /// "1.2M", "120k", "999".
    static func compact(_ n: Int64) -> String {
        if n >= 1_000_000 { return String(format: "%.1fM", Double(n) / 1_000_000).replacingOccurrences(of: ".0M", with: "M") }
        if n >= 10_000 { return "\(n / 1000)k" }
        return String(n)
    }

    static func drawTabs(_ state: ConsoleState, on screen: Screen) {
        let row = state.layout.tabRow
        for segment in segments(state) {
            screen.put(segment.label, row: row, column: segment.column, width: max(0, state.size.columns - segment.column))
        }
        guard !state.filter.isEmpty else { return }
        let text = "/ " + state.filter.text
        let width = min(state.size.columns / 3, DisplayWidth.of(text) + 1)
        screen.put(DisplayWidth.truncate(text, to: width), row: row, column: state.size.columns - width,
                   style: CellStyle(.match, bold: true), maxWidth: width)
    }

    /// The tab under a click on the tab bar.
    static func tab(at column: Int, state: ConsoleState) -> BrowseTable? {
        segments(state).first { column >= $0.column && column < $0.column + $0.label.width }?.table
    }
}
