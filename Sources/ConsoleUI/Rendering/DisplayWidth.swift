import ReceiptCore

/// Terminal column widths, as `wcwidth` counts them in a UTF-8 locale: East Asian Wide and
/// Fullwidth characters (CJK, kana, Hangul, fullwidth forms, emoji presentation) take two
/// columns, combining marks and format characters none, everything else one. Ambiguous-width
/// characters (box drawing, ●, ◆) take one, as in a non-CJK locale.
///
/// Text from the database is untrusted: control characters (C0, C1, DEL) would move the
/// terminal's cursor, so `sanitized` replaces them before anything reaches a screen.
public enum DisplayWidth {
    /// The replacement for a control character or anything unprintable.
    public static let replacement: Character = "\u{FFFD}"

    /// Columns one Unicode scalar takes: 0, 1 or 2 (control characters: 0; sanitize first).
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return 0 }
        if v < 0x300 { return 1 }  // Latin fast path
        if v == 0x200B || (0x200C...0x200F).contains(v) || (0x2028...0x202E).contains(v) || (0x2060...0x2064).contains(v)
            || v == 0xFEFF || (0xFE00...0xFE0F).contains(v) || (0xE0100...0xE01EF).contains(v) || (0x1160...0x11FF).contains(v) {
            return 0
        }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if isWide(v) { return 2 }
        return 1
    }

    /// Columns one character (grapheme cluster) takes: the widths of its scalars added up,
    /// never more than 2 (a cluster is drawn in one cell, or two for a wide one).
    public static func of(_ character: Character) -> Int {
        if character.unicodeScalars.count == 1, let only = character.unicodeScalars.first { return of(only) }
        return min(2, character.unicodeScalars.reduce(0) { $0 + of($1) })
    }

    /// Columns a string takes on the screen, that is once `sanitized` (what reaches the screen).
    public static func of(_ text: String) -> Int { columns(sanitized(text)) }

    /// Columns of text already sanitized.
    private static func columns(_ text: String) -> Int {
        var total = 0
        for character in text { total += of(character) }
        return total
    }

    /// `text` with every control character replaced (tabs and newlines included), and every
    /// bidirectional control and zero-width character too: those reorder what follows or take a
    /// width terminals disagree on (a zero-width joiner between emoji), so they never reach the
    /// screen and the columns stay where this module counts them.
    public static func sanitized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: UnsafeText.isUnsafe) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { UnsafeText.isUnsafe($0) ? "\u{FFFD}" : $0 }))
    }

    /// `text` cut to at most `width` columns, ending in "…" when it was cut. A wide character
    /// that would straddle the edge is left out whole.
    /// The result is `sanitized`.
    public static func truncate(_ raw: String, to width: Int, ellipsis: Bool = true) -> String {
        guard width > 0 else { return "" }
        let text = sanitized(raw)
        let full = columns(text)
        if full <= width { return text }
        let room = ellipsis ? width - 1 : width
        var result = ""
        var used = 0
        for character in text {
            let w = of(character)
            if used + w > room { break }
            result.append(character)
            used += w
        }
        return ellipsis ? result + "…" : result
    }

    /// `text` cut or padded with spaces to exactly `width` columns.
    public static func fit(_ text: String, to width: Int, alignRight: Bool = false) -> String {
        let cut = truncate(text, to: width)
        let padding = String(repeating: " ", count: max(0, width - of(cut)))
        return alignRight ? padding + cut : cut + padding
    }

    /// Whether a scalar is East Asian Wide or Fullwidth (Unicode 15), or an emoji shown as one: a
    /// binary search of `wideRanges` (every box-drawing character of every frame asks, so a scan
    /// of the list was most of drawing a screen).
    static func isWide(_ v: UInt32) -> Bool {
        if v < 0x1100 { return false }
        var low = 0, high = wideRanges.count
        while low < high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if v < range.lowerBound {
                high = middle
            } else if v > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    /// East Asian Width W and F ranges, coalesced, in ascending order without overlap (`isWide`
    /// searches them by halves).
    static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0, 0x23F3...0x23F3,
        0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F, 0x2693...0x2693, 0x26A1...0x26A1,
        0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA,
        0x26F2...0x26F3, 0x26F5...0x26F5, 0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B,
        0x2728...0x2728, 0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
        0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55,
        0x2E80...0x2E99, 0x2E9B...0x2EF3, 0x2F00...0x2FD5, 0x2FF0...0x2FFB, 0x3000...0x303E, 0x3041...0x3096,
        0x3099...0x30FF, 0x3105...0x312F, 0x3131...0x318E, 0x3190...0x31E3, 0x31F0...0x321E, 0x3220...0x3247,
        0x3250...0x4DBF, 0x4E00...0xA48C, 0xA490...0xA4C6, 0xA960...0xA97C, 0xAC00...0xD7A3, 0xF900...0xFAFF,
        0xFE10...0xFE19, 0xFE30...0xFE52, 0xFE54...0xFE66, 0xFE68...0xFE6B, 0xFF01...0xFF60, 0xFFE0...0xFFE6,
        0x16FE0...0x16FE4, 0x16FF0...0x16FF1, 0x17000...0x187F7, 0x18800...0x18CD5, 0x18D00...0x18D08,
        0x1AFF0...0x1AFFE, 0x1B000...0x1B122, 0x1B132...0x1B132, 0x1B150...0x1B152, 0x1B155...0x1B155,
        0x1B164...0x1B167, 0x1B170...0x1B2FB, 0x1F004...0x1F004, 0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E,
        0x1F191...0x1F19A, 0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248, 0x1F250...0x1F251,
        0x1F260...0x1F265, 0x1F300...0x1F320, 0x1F32D...0x1F335, 0x1F337...0x1F37C, 0x1F37E...0x1F393,
        0x1F3A0...0x1F3CA, 0x1F3CF...0x1F3D3, 0x1F3E0...0x1F3F0, 0x1F3F4...0x1F3F4, 0x1F3F8...0x1F43E,
        0x1F440...0x1F440, 0x1F442...0x1F4FC, 0x1F4FF...0x1F53D, 0x1F54B...0x1F54E, 0x1F550...0x1F567,
        0x1F57A...0x1F57A, 0x1F595...0x1F596, 0x1F5A4...0x1F5A4, 0x1F5FB...0x1F64F, 0x1F680...0x1F6C5,
        0x1F6CC...0x1F6CC, 0x1F6D0...0x1F6D2, 0x1F6D5...0x1F6D7, 0x1F6DC...0x1F6DF, 0x1F6EB...0x1F6EC,
        0x1F6F4...0x1F6FC, 0x1F7E0...0x1F7EB, 0x1F7F0...0x1F7F0, 0x1F90C...0x1F93A, 0x1F93C...0x1F945,
        0x1F947...0x1F9FF, 0x1FA70...0x1FA7C, 0x1FA80...0x1FA88, 0x1FA90...0x1FABD, 0x1FABF...0x1FAC5,
        0x1FACE...0x1FADB, 0x1FAE0...0x1FAE8, 0x1FAF0...0x1FAF8, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}
