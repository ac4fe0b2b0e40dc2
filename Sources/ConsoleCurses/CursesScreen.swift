@preconcurrency import CNcurses
import ConsoleUI
import Glibc

/// The terminal as a `Screen`: views draw into a `VirtualScreen` back buffer (so widths and
/// clipping are exactly those the snapshots test), and `present` copies it to ncursesw cell by
/// cell with `add_wch`, colours from the theme (256, 8 or none), then refreshes; ncurses sends
/// only what changed.
public final class CursesScreen: Screen {
    public let theme: Theme
    private var buffer: VirtualScreen
    private var pairs: [TerminalColor: Int16] = [:]
    private let colours: Bool

    init(theme: Theme) {
        self.theme = theme
        colours = theme.palette != .monochrome
        buffer = VirtualScreen(size: CursesScreen.terminalSize(), theme: theme)
    }

    /// The terminal's size as ncurses knows it (updated on KEY_RESIZE).
    static func terminalSize() -> ScreenSize {
        ScreenSize(rows: Int(getmaxy(cn_stdscr())), columns: Int(getmaxx(cn_stdscr())))
    }

    /// The terminal's size now (the back buffer follows at the next `clear`).
    public var size: ScreenSize { CursesScreen.terminalSize() }

    public func clear() {
        let current = CursesScreen.terminalSize()
        if current != buffer.size { buffer.resize(current) } else { buffer.clear() }
    }

    @discardableResult
    public func put(_ text: String, row: Int, column: Int, style: CellStyle, maxWidth: Int?) -> Int {
        buffer.put(text, row: row, column: column, style: style, maxWidth: maxWidth)
    }

    public func present() {
        _ = erase()
        let size = buffer.size
        for row in 0..<size.rows {
            var column = 0
            while column < size.columns {
                let cell = buffer.cell(row: row, column: column)
                guard cell.width > 0 else { column += 1; continue }
                draw(cell, row: row, column: column)
                column += cell.width
            }
        }
        _ = refresh()
    }

    /// One cell; a character the C library would measure differently is drawn as "?" of the
    /// same width, so the columns after it never move.
    private func draw(_ cell: VirtualScreen.Cell, row: Int, column: Int) {
        var scalars = cell.character.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
        let measured = scalars.reduce(Int32(0)) { $0 + max(0, cn_wcwidth($1)) }
        if Int(measured) != cell.width || scalars.count > 5 {
            scalars = Array(repeating: wchar_t(63), count: 1)
            if cell.width == 2 { _ = put("?", style: cell.style, row: row, column: column + 1) }
        }
        scalars.append(0)
        let resolved = theme.resolve(cell.style)
        let pair = resolved.foreground.map(pairNumber) ?? 0
        _ = scalars.withUnsafeBufferPointer { pointer in
            cn_put_cell(Int32(row), Int32(column), pointer.baseAddress, attributes(resolved), pair)
        }
    }

    private func put(_ text: String, style: CellStyle, row: Int, column: Int) -> Int32 {
        var wide: [wchar_t] = text.unicodeScalars.map { wchar_t(bitPattern: $0.value) } + [0]
        let resolved = theme.resolve(style)
        return cn_put_cell(Int32(row), Int32(column), &wide, attributes(resolved), resolved.foreground.map(pairNumber) ?? 0)
    }

    private func attributes(_ style: ResolvedStyle) -> attr_t {
        var value = cn_attr_normal()
        if style.bold { value |= cn_attr_bold() }
        if style.dim { value |= cn_attr_dim() }
        if style.reverse { value |= cn_attr_reverse() }
        if style.underline { value |= cn_attr_underline() }
        return value
    }

    /// The colour pair for a foreground on the terminal's default background, made on first use.
    private func pairNumber(_ color: TerminalColor) -> Int16 {
        guard colours else { return 0 }
        if let known = pairs[color] { return known }
        let next = Int16(pairs.count + 1)
        guard Int32(next) < cn_color_pairs(), color.number < Int(cn_colors()) else { return 0 }
        _ = init_pair(next, Int16(color.number), -1)
        pairs[color] = next
        return next
    }
}
