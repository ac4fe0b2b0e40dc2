/// Characters that change a terminal rather than show on it: C0 and C1 controls and DEL (they
/// move the cursor, clear the screen, write the clipboard through OSC 52), bidirectional
/// embeddings, overrides and isolates (they reorder what follows), and zero-width characters
/// (invisible, so two ids that look the same differ, and a terminal may not agree on their
/// width). Identifiers refuse them at entry; every text that reaches a terminal has them made
/// visible (`escaped`) or replaced.
public enum UnsafeText {
    /// Whether `scalar` is one of those characters.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x20 || (0x7F...0x9F).contains(v) { return true }
        if v < 0x600 { return false }  // fast path: nothing else below U+0600
        return v == 0x061C || (0x200B...0x200F).contains(v) || (0x202A...0x202E).contains(v) || (0x2060...0x2064).contains(v)
            || (0x2066...0x2069).contains(v) || v == 0xFEFF || v == 0x2028 || v == 0x2029
    }

    /// What `scalar` is, for messages: "U+001B (a control character)".
    public static func describe(_ scalar: Unicode.Scalar) -> String {
        let v = scalar.value
        let hex = String(v, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        let kind: String
        switch v {
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: kind = "a bidirectional control"
        case 0x200B...0x200D, 0x2060...0x2064, 0xFEFF: kind = "a zero-width character"
        case 0x2028, 0x2029: kind = "a line separator"
        default: kind = "a control character"
        }
        return "\(code) (\(kind))"
    }

    /// The first unsafe character of `text` and its position (1-based, in characters as written).
    public static func firstUnsafe(_ text: String) -> (position: Int, scalar: Unicode.Scalar)? {
        var position = 0
        for scalar in text.unicodeScalars {
            position += 1
            if isUnsafe(scalar) { return (position, scalar) }
        }
        return nil
    }

    /// `text` with every unsafe character written visibly as `\u{1b}` (and a backslash that could
    /// be mistaken for one as `\\`), except the ones in `keeping` (a line break in output).
    public static func escaped(_ text: String, keeping: Set<Unicode.Scalar> = ["\n", "\t"]) -> String {
        guard text.unicodeScalars.contains(where: { isUnsafe($0) && !keeping.contains($0) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) && !keeping.contains(scalar) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
