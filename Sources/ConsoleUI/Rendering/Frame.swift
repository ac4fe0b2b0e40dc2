/// A rectangle of cells.
public struct Rect: Sendable, Equatable {
    public var row: Int
    public var column: Int
    public var rows: Int
    public var columns: Int

    public init(row: Int, column: Int, rows: Int, columns: Int) {
        self.row = row
        self.column = column
        self.rows = max(0, rows)
        self.columns = max(0, columns)
    }

    /// The area inside a one-cell border.
    public var inside: Rect { Rect(row: row + 1, column: column + 1, rows: rows - 2, columns: columns - 2) }

    /// Whether a cell lies inside.
    public func contains(row r: Int, column c: Int) -> Bool {
        r >= row && r < row + rows && c >= column && c < column + columns
    }
}

/// Box drawing with Unicode line characters (never ACS, so widths stay exact).
enum Frame {
    /// Draws a border around `rect` with `title` in its top edge; a focused box is drawn in the accent colour.
    static func box(_ screen: Screen, _ rect: Rect, title: StyledLine, focused: Bool) {
        guard rect.rows >= 2, rect.columns >= 2 else { return }
        let border = focused ? CellStyle(.accent, bold: true) : CellStyle.muted
        let horizontal = String(repeating: "─", count: rect.columns - 2)
        screen.put("┌" + horizontal + "┐", row: rect.row, column: rect.column, style: border)
        for r in (rect.row + 1)..<(rect.row + rect.rows - 1) {
            screen.put("│", row: r, column: rect.column, style: border)
            screen.put("│", row: r, column: rect.column + rect.columns - 1, style: border)
        }
        screen.put("└" + horizontal + "┘", row: rect.row + rect.rows - 1, column: rect.column, style: border)
        if !title.isEmpty, rect.columns > 6 {
            var titled: StyledLine = [Span(" ", border)]
            titled += title
            titled.append(Span(" ", border))
            screen.put(titled, row: rect.row, column: rect.column + 1, width: rect.columns - 3)
        }
    }

    /// Blanks `rect`.
    static func clear(_ screen: Screen, _ rect: Rect, style: CellStyle = .plain) {
        for r in rect.row..<(rect.row + rect.rows) { screen.fill(row: r, column: rect.column, width: rect.columns, style: style) }
    }

    /// A vertical scroll indicator in the right border of `rect`: where the window lies in the whole.
    static func scrollbar(_ screen: Screen, _ rect: Rect, offset: Int, visible: Int, total: Int) {
        guard total > visible, rect.rows > 2 else { return }
        let track = rect.rows - 2
        let position = min(track - 1, max(0, offset * track / max(1, total)))
        screen.put("┃", row: rect.row + 1 + position, column: rect.column + rect.columns - 1, style: CellStyle(.accent))
    }
}
