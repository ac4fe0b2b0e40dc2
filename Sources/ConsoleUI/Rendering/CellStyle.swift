/// What a piece of text means, which decides its colour. A word or glyph always goes with the
/// colour ("SANDBOX", "✗ invalid", "⚠"), so nothing is told by colour alone.
public enum ColorRole: String, Sendable, CaseIterable {
    /// Ordinary text.
    case plain
    /// Production environment: green.
    case production
    /// Sandbox environment: yellow.
    case sandbox
    /// Xcode and local StoreKit testing: magenta.
    case local
    /// Mismatch, invalid, failed, refused: red.
    case danger
    /// Warnings (expired, cancelled, unknown attribute…): amber.
    case warning
    /// Good news (✓ valid, active): green.
    case ok
    /// Headings, titles, the active tab: cyan.
    case accent
    /// Secondary text (attribute numbers, hints' descriptions): grey.
    case muted
    /// Text matching the filter.
    case match
}

/// How a piece of text is drawn: its meaning and emphasis. Screens turn it into terminal
/// attributes through a `Theme`.
public struct CellStyle: Sendable, Hashable {
    public var role: ColorRole
    public var bold: Bool
    public var reverse: Bool
    public var dim: Bool
    public var underline: Bool

    public init(_ role: ColorRole = .plain, bold: Bool = false, reverse: Bool = false, dim: Bool = false, underline: Bool = false) {
        self.role = role
        self.bold = bold
        self.reverse = reverse
        self.dim = dim
        self.underline = underline
    }

    /// Plain text.
    public static let plain = CellStyle()
    /// Bold plain text.
    public static let bold = CellStyle(bold: true)
    /// Secondary text.
    public static let muted = CellStyle(.muted)
    /// Headings.
    public static let heading = CellStyle(.accent, bold: true)
    /// The selected row.
    public static let selected = CellStyle(reverse: true)

    /// The same style with reverse video on (selection).
    public var reversed: CellStyle {
        var copy = self
        copy.reverse = true
        return copy
    }

    /// The same style in bold.
    public var emphasized: CellStyle {
        var copy = self
        copy.bold = true
        return copy
    }
}

/// A run of text in one style.
public struct Span: Sendable, Equatable {
    public var text: String
    public var style: CellStyle

    public init(_ text: String, _ style: CellStyle = .plain) {
        self.text = text
        self.style = style
    }

    /// Its width in columns.
    public var width: Int { DisplayWidth.of(text) }
}

/// A line made of styled runs.
public typealias StyledLine = [Span]

extension Array where Element == Span {
    /// The line's width in columns.
    public var width: Int { reduce(0) { $0 + $1.width } }

    /// The plain text of the line.
    public var text: String { map(\.text).joined() }
}
