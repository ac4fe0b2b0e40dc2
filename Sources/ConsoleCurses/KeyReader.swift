@preconcurrency import CNcurses
import ConsoleUI
import Glibc

/// Reads keys from the terminal with `get_wch` (so non-ASCII input arrives whole), translating
/// curses key codes, escape sequences curses left alone, control keys, mouse clicks and the
/// wheel, and resizes into `KeyEvent`s.
public struct KeyReader {
    /// The next event, waiting at most `timeoutMilliseconds` (nil when none came).
    public func read(timeoutMilliseconds: Int32) -> KeyEvent? {
        wtimeout(cn_stdscr(), timeoutMilliseconds)
        var code: wint_t = 0
        let kind = wget_wch(cn_stdscr(), &code)
        if kind == ERR { return nil }
        if kind == cn_key_code_yes() { return functionKey(Int32(code)) }
        return character(UInt32(code))
    }

    private func functionKey(_ code: Int32) -> KeyEvent? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_HOME, KEY_FIND, KEY_A1: return .home
        case KEY_END, KEY_SELECT, KEY_C1, KEY_LL: return .end
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case KEY_BTAB: return .backTab
        case KEY_ENTER: return .enter
        case cn_key_resize(): return .resize(CursesScreen.terminalSize())
        case cn_key_mouse():
            var y: Int32 = 0
            var x: Int32 = 0
            var kind: Int32 = 0
            guard cn_read_mouse(&y, &x, &kind) == OK else { return nil }
            switch kind {
            case 1: return .mouse(MouseEvent(.click, row: Int(y), column: Int(x)))
            case 2: return .mouse(MouseEvent(.wheelUp, row: Int(y), column: Int(x)))
            case 3: return .mouse(MouseEvent(.wheelDown, row: Int(y), column: Int(x)))
            default: return nil
            }
        default:
            if code > KEY_F0 && code <= KEY_F0 + 12 { return .function(Int(code - KEY_F0)) }
            return nil
        }
    }

    private func character(_ value: UInt32) -> KeyEvent? {
        switch value {
        case 27: return escape()
        case 10, 13: return .enter
        case 9: return .tab
        case 8, 127: return .backspace
        case 1...26: return Unicode.Scalar(value + 96).map { .control(Character($0)) }
        case 0..<32: return nil
        default: return Unicode.Scalar(value).map { .character(Character($0)) }
        }
    }

    /// The most a paste may hold; the rest of a longer one is read and dropped.
    static let pasteLimit = 4 * 1024 * 1024

    /// The text of a bracketed paste, up to its closing ESC [ 201 ~ (or a second of silence, if
    /// a terminal never sends it). Every character is data: a line break is not Enter.
    private func paste() -> KeyEvent {
        var text = String.UnicodeScalarView()
        var count = 0
        let end = Array("\u{1B}[201~".unicodeScalars)
        var matched = 0
        wtimeout(cn_stdscr(), 1000)
        while true {
            var code: wint_t = 0
            let kind = wget_wch(cn_stdscr(), &code)
            guard kind != ERR else { break }
            // Function keys inside a paste (curses translated a sequence) carry no text.
            guard kind == OK, let scalar = Unicode.Scalar(UInt32(code)) else { continue }
            if scalar == end[matched] {
                matched += 1
                if matched == end.count { break }
                continue
            }
            if matched > 0 {
                for held in end[0..<matched] where count < Self.pasteLimit { text.append(held); count += 1 }
                matched = scalar == end[0] ? 1 : 0
                if matched == 1 { continue }
            }
            if count < Self.pasteLimit {
                text.append(scalar == "\r" ? "\n" : scalar)
                count += 1
            }
        }
        return .paste(String(text))
    }

    /// ESC alone is Escape. What follows decides, by its bytes: `[` or `O` starts a sequence
    /// curses did not know (read to its final byte); any other key is Escape and then that key,
    /// put back to be read next, so a key pressed right after Esc is never lost. The short wait
    /// is only for a byte after ESC that has not arrived yet.
    private func escape() -> KeyEvent? {
        wtimeout(cn_stdscr(), 25)
        var code: wint_t = 0
        let kind = wget_wch(cn_stdscr(), &code)
        guard kind != ERR else { return .escape }
        guard kind == OK, let first = Unicode.Scalar(UInt32(code)), first == "[" || first == "O" else {
            // Escape, then a key of its own: read next.
            if kind == cn_key_code_yes() { _ = ungetch(Int32(code)) } else { _ = unget_wch(wchar_t(code)) }
            return .escape
        }
        var sequence = String(first)
        while sequence.unicodeScalars.count < 16 {
            code = 0
            guard wget_wch(cn_stdscr(), &code) == OK, let scalar = Unicode.Scalar(UInt32(code)) else {
                // "ESC [" and nothing more: Escape, then "[" typed quickly.
                if sequence.unicodeScalars.count == 1 {
                    _ = unget_wch(wchar_t(first.value))
                    return .escape
                }
                return nil
            }
            sequence.unicodeScalars.append(scalar)
            if sequence == "[200~" { return paste() }
            if let key = KeySequenceDecoder.decode(sequence) { return key }
            // A final byte (0x40–0x7E) after the introducer ends the sequence.
            if sequence.unicodeScalars.count >= 2, (0x40...0x7E).contains(scalar.value) { break }
        }
        return nil
    }
}
