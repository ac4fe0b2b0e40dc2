/// The columns of a list laid out for the rows on screen and the pane's width, the way k9s
/// does: every column is as wide as its widest cell on the page (ids are never cut), the least
/// important columns leave when they do not fit, and what is left over goes to the columns that
/// can use it (a name, a product). A heading is never cut: a column narrower than its heading
/// is left out instead.
enum ListColumns {
    /// A column of a list.
    struct Column {
        let title: String
        /// The narrowest it may be cut to (nil: never cut, shown whole or left out).
        let cut: Int?
        /// The most it takes even when its cells are wider (then they are cut or shortened).
        let cap: Int
        /// 0: always shown; otherwise the higher, the sooner it leaves a narrow pane.
        let drop: Int
        /// Whether it takes the width nobody else needs.
        let grows: Bool
        let alignRight: Bool

        init(_ title: String, cut: Int? = nil, cap: Int = 40, drop: Int = 0, grows: Bool = false, right: Bool = false) {
            self.title = title
            self.cut = cut
            self.cap = cap
            self.drop = drop
            self.grows = grows
            alignRight = right
        }
    }

    /// A cell: its content, and how to say it in fewer columns when it is cut (a product's last
    /// parts); nil cuts it with "…".
    struct Cell {
        var line: StyledLine
        var shorter: ((Int) -> StyledLine)?
        /// The columns of `line` that must show before a less important column may (a name, or
        /// the email a search matched, not the email after the name); nil: all of it.
        var core: Int?

        init(_ line: StyledLine, shorter: ((Int) -> StyledLine)? = nil, core: Int? = nil) {
            self.line = line
            self.shorter = shorter
            self.core = core
        }

        init(_ text: String, _ style: CellStyle = .plain) { self.init([Span(text, style)]) }
    }

    /// The width of each column in `total` columns (one space apart); 0 for a column left out.
    static func plan(_ columns: [Column], rows: [[Cell]], total: Int) -> [Int] {
        let natural = columns.indices.map { index -> Int in
            let widest = rows.map { index < $0.count ? $0[index].line.width : 0 }.max() ?? 0
            return min(columns[index].cap, max(DisplayWidth.of(columns[index].title), widest))
        }
        let need = columns.indices.map { index -> Int in
            guard let cut = columns[index].cut else { return natural[index] }
            return min(natural[index], max(cut, DisplayWidth.of(columns[index].title)))
        }
        // A column that may leave and is empty on every row (no customer here has a name) leaves.
        var shown = Set(columns.indices.filter { index in
            columns[index].drop == 0 || rows.contains { index < $0.count && $0[index].line.width > 0 }
        })
        func used() -> Int { shown.map { need[$0] }.reduce(0, +) + max(0, shown.count - 1) }
        while used() > total, let leaving = shown.filter({ columns[$0].drop > 0 }).max(by: { columns[$0].drop < columns[$1].drop }) {
            shown.remove(leaving)
        }
        let core = columns.indices.map { index -> Int in
            let widest = rows.map { index < $0.count ? ($0[index].core ?? $0[index].line.width) : 0 }.max() ?? 0
            return min(columns[index].cap, max(DisplayWidth.of(columns[index].title), widest))
        }
        var widths: [Int] = []
        var spare = 0
        while true {
            widths = columns.indices.map { shown.contains($0) ? need[$0] : 0 }
            spare = total - used()
            // First up to their natural width, the most important first; then the growing ones share the rest.
            for index in columns.indices.sorted(by: { columns[$0].drop < columns[$1].drop }) where shown.contains(index) && spare > 0 {
                let more = min(spare, natural[index] - widths[index])
                widths[index] += more
                spare -= more
            }
            // A column cut short of what must show (a name) sends a less important one away.
            guard let short = shown.filter({ widths[$0] < core[$0] }).min(by: { columns[$0].drop < columns[$1].drop }),
                  let leaving = shown.filter({ columns[$0].drop > columns[short].drop }).max(by: { columns[$0].drop < columns[$1].drop })
            else { break }
            shown.remove(leaving)
        }
        let growing = columns.indices.filter { shown.contains($0) && columns[$0].grows }
        for (position, index) in growing.enumerated() where spare > 0 {
            let share = spare / (growing.count - position)
            widths[index] += share
            spare -= share
        }
        // Too narrow even so (a pane of a few columns): the widest shown column is cut.
        if spare < 0, let widest = columns.indices.filter({ shown.contains($0) }).max(by: { widths[$0] < widths[$1] }) {
            widths[widest] = max(1, widths[widest] + spare)
        }
        return widths
    }

    /// The heading line for `widths` (exactly `total` wide).
    static func heading(_ columns: [Column], widths: [Int], total: Int) -> StyledLine {
        line(columns.map { Cell($0.title, .muted) }, columns: columns, widths: widths, total: total)
    }

    /// One row's cells in the planned widths, exactly `total` wide.
    static func line(_ cells: [Cell], columns: [Column], widths: [Int], total: Int) -> StyledLine {
        var line: StyledLine = []
        for index in columns.indices where index < widths.count && widths[index] > 0 {
            if !line.isEmpty { line.append(Span(" ")) }
            let cell = index < cells.count ? cells[index] : Cell("")
            var content = cell.line
            if content.width > widths[index], let shorter = cell.shorter { content = shorter(widths[index]) }
            line += Columns.fit(content, to: widths[index], alignRight: columns[index].alignRight)
        }
        return Columns.fit(line, to: total)
    }
}
