import ReceiptCore

/// A key press, mouse action or resize, as the key reader reports it. The console never sees
/// terminal bytes: ConsoleCurses (or a test) turns them into these.
public enum KeyEvent: Sendable, Equatable, CustomStringConvertible {
    /// A printable character (also space).
    case character(Character)
    /// Ctrl plus a letter ("c" for Ctrl-C, when the terminal passes it on).
    case control(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, backspace, delete, tab, backTab
    /// A function key F1–F12.
    case function(Int)
    /// A mouse event at a screen cell.
    case mouse(MouseEvent)
    /// The terminal changed size.
    case resize(ScreenSize)
    /// Text the terminal delivered as one paste (bracketed paste: between ESC [ 200 ~ and
    /// ESC [ 201 ~): inserted whole, its line breaks data, never Enter.
    case paste(String)

    public var description: String {
        switch self {
        case .character(" "): return "Space"
        case .character(let c): return String(c)
        case .control(let c): return "Ctrl-\(c.uppercased())"
        case .up: return "↑"
        case .down: return "↓"
        case .left: return "←"
        case .right: return "→"
        case .pageUp: return "PgUp"
        case .pageDown: return "PgDn"
        case .home: return "Home"
        case .end: return "End"
        case .enter: return "Enter"
        case .escape: return "Esc"
        case .backspace: return "Backspace"
        case .delete: return "Delete"
        case .tab: return "Tab"
        case .backTab: return "Shift-Tab"
        case .function(let n): return "F\(n)"
        case .mouse(let m): return "mouse \(m.kind) at \(m.row),\(m.column)"
        case .resize(let size): return "resize \(size)"
        case .paste(let text): return "paste (\(Plural.of(text.count, "character")))"
        }
    }
}

/// A mouse action at a cell.
public struct MouseEvent: Sendable, Equatable {
    /// A click of the first button, or the wheel turned.
    public enum Kind: String, Sendable {
        case click, wheelUp, wheelDown
    }

    public let kind: Kind
    public let row: Int
    public let column: Int

    public init(_ kind: Kind, row: Int, column: Int) {
        self.kind = kind
        self.row = row
        self.column = column
    }
}

/// Turns the bytes of an escape sequence (after ESC) into a key, for terminals whose sequences
/// curses does not translate: CSI and SS3 cursor keys, Home/End/PgUp/PgDn/Delete in their
/// `ESC [ n ~` forms, and Shift-Tab. Returns nil for anything else.
public enum KeySequenceDecoder {
    /// The key `sequence` (the characters after ESC) stands for, or nil.
    public static func decode(_ sequence: String) -> KeyEvent? {
        switch sequence {
        case "[A", "OA": return .up
        case "[B", "OB": return .down
        case "[C", "OC": return .right
        case "[D", "OD": return .left
        case "[H", "OH", "[1~", "[7~": return .home
        case "[F", "OF", "[4~", "[8~": return .end
        case "[5~": return .pageUp
        case "[6~": return .pageDown
        case "[3~": return .delete
        case "[Z": return .backTab
        case "OP", "[11~": return .function(1)
        default: return nil
        }
    }
}
