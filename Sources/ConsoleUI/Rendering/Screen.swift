/// A screen size in character cells.
public struct ScreenSize: Sendable, Hashable, CustomStringConvertible {
    public var rows: Int
    public var columns: Int

    public init(rows: Int, columns: Int) {
        self.rows = max(0, rows)
        self.columns = max(0, columns)
    }

    public var description: String { "\(columns)×\(rows)" }
}

/// Where the console draws: the real terminal (ConsoleCurses) or a `VirtualScreen` in tests and
/// benchmarks. Views only ever call these methods, so both screens show the same thing.
///
/// Text is placed by display columns: a double-width character takes two cells, and a screen
/// never draws half of one (at the right edge, or over half of another).
public protocol Screen: AnyObject {
    /// The current size.
    var size: ScreenSize { get }
    /// How styles become colours here.
    var theme: Theme { get }
    /// Blanks every cell (the start of a frame).
    func clear()
    /// Draws `text` at `row`, `column` in `style`, clipped at the right edge and at `maxWidth`
    /// columns when given; returns the columns used. Control characters are drawn as "�".
    @discardableResult
    func put(_ text: String, row: Int, column: Int, style: CellStyle, maxWidth: Int?) -> Int
    /// Shows the frame drawn since `clear()`.
    func present()
}

extension Screen {
    /// Draws `text` with no width limit but the screen's edge.
    @discardableResult
    public func put(_ text: String, row: Int, column: Int, style: CellStyle = .plain) -> Int {
        put(text, row: row, column: column, style: style, maxWidth: nil)
    }

    /// Draws styled runs one after another from `column`, within `width` columns; returns the columns used.
    @discardableResult
    public func put(_ line: StyledLine, row: Int, column: Int, width: Int) -> Int {
        var used = 0
        for span in line where used < width {
            used += put(span.text, row: row, column: column + used, style: span.style, maxWidth: width - used)
        }
        return used
    }

    /// Fills `width` cells of `row` from `column` with spaces in `style`.
    public func fill(row: Int, column: Int, width: Int, style: CellStyle) {
        guard width > 0 else { return }
        put(String(repeating: " ", count: width), row: row, column: column, style: style, maxWidth: width)
    }
}
