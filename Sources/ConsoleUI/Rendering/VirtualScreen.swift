/// A screen in memory: a grid of cells, each holding a character (or the right half of a wide
/// one) and its style. Tests and the benchmark draw into it; `snapshot` writes the text layer
/// and, per theme, an attribute layer that tells each cell's colour and emphasis.
public final class VirtualScreen: Screen {
    /// One cell: a character of width 1 or 2, or the right half of a wide character (width 0).
    public struct Cell: Sendable, Equatable {
        public var character: Character
        public var width: Int
        public var style: CellStyle

        static let blank = Cell(character: " ", width: 1, style: .plain)
    }

    public private(set) var size: ScreenSize
    public let theme: Theme
    private var cells: [Cell]
    /// How many frames were presented.
    public private(set) var frames = 0

    public init(size: ScreenSize, theme: Theme = .colour256) {
        self.size = size
        self.theme = theme
        cells = Array(repeating: .blank, count: size.rows * size.columns)
    }

    /// Changes the size (as a terminal resize does) and blanks every cell.
    public func resize(_ newSize: ScreenSize) {
        size = newSize
        cells = Array(repeating: .blank, count: newSize.rows * newSize.columns)
    }

    public func clear() {
        for index in cells.indices { cells[index] = .blank }
    }

    public func present() { frames += 1 }

    @discardableResult
    public func put(_ text: String, row: Int, column: Int, style: CellStyle, maxWidth: Int?) -> Int {
        guard row >= 0, row < size.rows, column < size.columns else { return 0 }
        let limit = min(size.columns, maxWidth.map { column + max(0, $0) } ?? size.columns)
        var col = column
        for character in DisplayWidth.sanitized(text) {
            let width = DisplayWidth.of(character)
            if width == 0 { continue }
            if col + width > limit {
                // Half a wide character never shows: the cell left over is blank.
                if col >= 0 && col < limit { write(" ", width: 1, style: style, at: row, col) ; col += 1 }
                break
            }
            if col >= 0 { write(character, width: width, style: style, at: row, col) }
            col += width
        }
        return max(0, col - max(column, 0))
    }

    private func write(_ character: Character, width: Int, style: CellStyle, at row: Int, _ column: Int) {
        let base = row * size.columns
        for position in column..<(column + width) {
            let cell = cells[base + position]
            if cell.width == 0 && position - 1 >= 0 && position - 1 < column {
                cells[base + position - 1] = Cell(character: " ", width: 1, style: cells[base + position - 1].style)
            }
            if cell.width == 2 && position + 1 < size.columns && position + 1 >= column + width {
                cells[base + position + 1] = Cell(character: " ", width: 1, style: cell.style)
            }
        }
        cells[base + column] = Cell(character: character, width: width, style: style)
        if width == 2 { cells[base + column + 1] = Cell(character: " ", width: 0, style: style) }
    }

    /// The cell at a position.
    public func cell(row: Int, column: Int) -> Cell {
        guard row >= 0, row < size.rows, column >= 0, column < size.columns else { return .blank }
        return cells[row * size.columns + column]
    }

    /// The text of one row (wide characters once, trailing spaces kept).
    public func text(row: Int) -> String {
        guard row >= 0, row < size.rows else { return "" }
        var line = ""
        for column in 0..<size.columns {
            let cell = cells[row * size.columns + column]
            if cell.width > 0 { line.append(cell.character) }
        }
        return line
    }

    /// Every row's text, trailing spaces removed.
    public var lines: [String] { (0..<size.rows).map { trimmed(text(row: $0)) } }

    /// The whole screen as text, one line per row.
    public var text: String { lines.joined(separator: "\n") }

    /// The first position where `needle` appears (row, display column), if anywhere.
    public func find(_ needle: String) -> (row: Int, column: Int)? {
        for row in 0..<size.rows {
            let line = text(row: row)
            guard let range = line.range(of: needle) else { continue }
            return (row, DisplayWidth.of(String(line[..<range.lowerBound])))
        }
        return nil
    }

    /// The style of the cell where `needle` starts, if it is on screen.
    public func style(of needle: String) -> CellStyle? {
        find(needle).map { cell(row: $0.row, column: $0.column).style }
    }

    /// The snapshot file's content: the text layer, then for each theme an attribute layer (one
    /// key character per cell, "." for the terminal's default look) and its legend.
    public func snapshot(themes: [Theme]) -> String {
        var out = "== text \(size)\n" + lines.joined(separator: "\n") + "\n"
        for theme in themes {
            let keys = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
            var legend: [ResolvedStyle: Character] = [:]
            var order: [ResolvedStyle] = []
            var layer: [String] = []
            for row in 0..<size.rows {
                var line = ""
                for column in 0..<size.columns {
                    let resolved = theme.resolve(cells[row * size.columns + column].style)
                    if resolved.isDefault { line.append("."); continue }
                    if let key = legend[resolved] { line.append(key); continue }
                    let key = order.count < keys.count ? keys[order.count] : "#"
                    legend[resolved] = key
                    order.append(resolved)
                    line.append(key)
                }
                while line.hasSuffix(".") { line.removeLast() }
                layer.append(line)
            }
            out += "== attributes \(theme.palette.rawValue)\n" + layer.joined(separator: "\n") + "\n"
            out += order.map { "\(legend[$0] ?? "#") \($0)" }.joined(separator: "\n") + (order.isEmpty ? "" : "\n")
        }
        return out
    }

    private func trimmed(_ line: String) -> String {
        var line = line
        while line.hasSuffix(" ") { line.removeLast() }
        return line
    }
}
