/// A terminal colour: one of the eight standard ones, or an entry of the 256-colour palette.
public enum TerminalColor: Sendable, Hashable, CustomStringConvertible {
    case black, red, green, yellow, blue, magenta, cyan, white
    case indexed(UInt8)

    /// The curses colour number.
    public var number: Int {
        switch self {
        case .black: return 0
        case .red: return 1
        case .green: return 2
        case .yellow: return 3
        case .blue: return 4
        case .magenta: return 5
        case .cyan: return 6
        case .white: return 7
        case .indexed(let n): return Int(n)
        }
    }

    public var description: String {
        switch self {
        case .indexed(let n): return "c\(n)"
        default: return ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"][number]
        }
    }
}

/// A style as the terminal draws it: a foreground colour (nil: the terminal's default) and attributes.
public struct ResolvedStyle: Sendable, Hashable, CustomStringConvertible {
    public var foreground: TerminalColor?
    public var bold = false
    public var dim = false
    public var reverse = false
    public var underline = false

    public init(foreground: TerminalColor? = nil, bold: Bool = false, dim: Bool = false, reverse: Bool = false, underline: Bool = false) {
        self.foreground = foreground
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
    }

    /// Whether it is the terminal's default look.
    public var isDefault: Bool { foreground == nil && !bold && !dim && !reverse && !underline }

    /// "fg:green bold reverse", for snapshots.
    public var description: String {
        var words: [String] = []
        if let foreground { words.append("fg:\(foreground)") }
        if bold { words.append("bold") }
        if dim { words.append("dim") }
        if reverse { words.append("reverse") }
        if underline { words.append("underline") }
        return words.isEmpty ? "default" : words.joined(separator: " ")
    }
}

/// How meanings become colours on a given terminal: 256 colours, the eight standard colours,
/// or none (monochrome, or `NO_COLOR` set), where emphasis stands in for colour and the words
/// beside it carry the meaning.
public struct Theme: Sendable, Equatable {
    /// What the terminal can show.
    public enum Palette: String, Sendable {
        case colour256, colour8, monochrome
    }

    /// What it draws with.
    public let palette: Palette

    public init(_ palette: Palette) { self.palette = palette }

    /// Meanings as 256-colour palette entries.
    public static let colour256 = Theme(.colour256)
    /// Meanings as the eight standard colours (amber warnings in bold yellow).
    public static let colour8 = Theme(.colour8)
    /// No colour: bold, underline and dim in its place; the words carry the meaning.
    public static let monochrome = Theme(.monochrome)

    /// The theme for a terminal with `colors` colours; monochrome when `noColor` (the `NO_COLOR`
    /// convention: set to anything non-empty) or the terminal has none.
    public static func choose(colors: Int, hasColors: Bool, noColor: Bool) -> Theme {
        if noColor || !hasColors || colors < 8 { return .monochrome }
        return colors >= 256 ? .colour256 : .colour8
    }

    /// Whether `NO_COLOR` asks for no colour (present and not empty).
    public static func noColorRequested(_ environment: [String: String]) -> Bool {
        guard let value = environment["NO_COLOR"] else { return false }
        return !value.isEmpty
    }

    /// The terminal style for `style`.
    public func resolve(_ style: CellStyle) -> ResolvedStyle {
        var resolved = ResolvedStyle(bold: style.bold, dim: style.dim, reverse: style.reverse, underline: style.underline)
        switch palette {
        case .monochrome:
            switch style.role {
            case .danger: resolved.bold = true; resolved.underline = true
            case .warning, .sandbox, .local, .accent: resolved.bold = true
            case .muted: resolved.dim = true
            case .match: resolved.underline = true; resolved.bold = true
            case .plain, .production, .ok: break
            }
        case .colour8:
            resolved.foreground = color8(style.role)
            if style.role == .warning { resolved.bold = true }
            if style.role == .muted { resolved.dim = true }
        case .colour256:
            resolved.foreground = color256(style.role)
        }
        if style.role == .match && palette != .monochrome { resolved.reverse = !resolved.reverse }
        return resolved
    }

    private func color8(_ role: ColorRole) -> TerminalColor? {
        switch role {
        case .plain: return nil
        case .production, .ok: return .green
        case .sandbox, .warning, .match: return .yellow
        case .local: return .magenta
        case .danger: return .red
        case .accent: return .cyan
        case .muted: return nil
        }
    }

    private func color256(_ role: ColorRole) -> TerminalColor? {
        switch role {
        case .plain: return nil
        case .production: return .indexed(34)
        case .ok: return .indexed(71)
        case .sandbox: return .indexed(220)
        case .warning: return .indexed(214)
        case .local: return .indexed(170)
        case .danger: return .indexed(196)
        case .accent: return .indexed(38)
        case .muted: return .indexed(245)
        case .match: return .indexed(227)
        }
    }
}
