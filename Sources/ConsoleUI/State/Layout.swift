/// Where everything goes on a screen of a given size: the header (row 0), the tab bar (row 1),
/// the list and detail panes, the prompt / message row and the key hints (last row). Views draw
/// into these rectangles and mouse clicks are hit-tested against them, so both agree.
struct Layout: Equatable {
    let size: ScreenSize

    /// The smallest screen the console lays out; smaller ones show a notice.
    static let minimum = ScreenSize(rows: 12, columns: 50)

    var isTooSmall: Bool { size.rows < Layout.minimum.rows || size.columns < Layout.minimum.columns }

    var headerRow: Int { 0 }
    var tabRow: Int { 1 }
    var promptRow: Int { size.rows - 2 }
    var hintRow: Int { size.rows - 1 }

    /// Half a narrow screen (40 of 80 columns: an id, a name and the environment fit), two
    /// fifths of a wide one, at most 96.
    var listWidth: Int { size.columns < 100 ? max(34, size.columns / 2) : min(96, size.columns * 2 / 5) }

    var listRect: Rect { Rect(row: 2, column: 0, rows: size.rows - 4, columns: listWidth) }
    var detailRect: Rect { Rect(row: 2, column: listWidth, rows: size.rows - 4, columns: size.columns - listWidth) }

    /// Rows of the list the pane shows (inside its border, under the column heading).
    var listRows: Int { max(1, listRect.rows - 3) }
    /// The first screen row of list rows.
    var firstListRow: Int { listRect.row + 2 }
    /// Lines of the detail the pane shows.
    var detailRows: Int { max(1, detailRect.rows - 2) }
    var firstDetailRow: Int { detailRect.row + 1 }

    /// A centred box for overlays (help, forms, confirmations).
    func overlay(maxColumns: Int, maxRows: Int) -> Rect {
        let columns = min(size.columns - 4, maxColumns)
        let rows = min(size.rows - 4, maxRows)
        return Rect(row: max(1, (size.rows - rows) / 2), column: max(2, (size.columns - columns) / 2), rows: rows, columns: columns)
    }
}
