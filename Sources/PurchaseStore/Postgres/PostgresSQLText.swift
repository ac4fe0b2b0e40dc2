/// The SQL text differences PostgreSQL needs, handled where the backend sends a statement:
/// the ledger's `?` placeholders become `$1`, `$2`, … (outside quotes and comments).
enum PostgresSQLText {
    /// `sql` with each `?` placeholder numbered `$n`, and how many there were. A `?` inside a
    /// string literal ('…'), a quoted identifier ("…"), a dollar-quoted body ($tag$…$tag$) or a
    /// comment (`-- …`, `/* … */`) is left alone.
    static func numberingPlaceholders(_ sql: String) -> (text: String, count: Int) {
        let bytes = Array(sql.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        var count = 0
        var index = 0
        func copy(until end: Int) {
            let stop = min(end, bytes.count)
            if index < stop { output.append(contentsOf: bytes[index..<stop]) }
            index = stop
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                copy(until: closingQuote(bytes, from: index, quote: byte) + 1)
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                copy(until: (bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count) + 1)
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                copy(until: (endOfBlockComment(bytes, from: index + 2) ?? bytes.count))
            case UInt8(ascii: "$"):
                if let tagEnd = dollarTagEnd(bytes, from: index) {
                    let tag = Array(bytes[index...tagEnd])
                    copy(until: (find(tag, in: bytes, from: tagEnd + 1).map { $0 + tag.count } ?? bytes.count))
                } else {
                    output.append(byte)
                    index += 1
                }
            case UInt8(ascii: "?"):
                count += 1
                output.append(contentsOf: Array("$\(count)".utf8))
                index += 1
            default:
                output.append(byte)
                index += 1
            }
        }
        return (String(decoding: output, as: UTF8.self), count)
    }

    /// The index of the quote closing the one at `start` (a doubled quote is an escaped one).
    private static func closingQuote(_ bytes: [UInt8], from start: Int, quote: UInt8) -> Int {
        var index = start + 1
        while index < bytes.count {
            if bytes[index] == quote {
                if index + 1 < bytes.count && bytes[index + 1] == quote { index += 2; continue }
                return index
            }
            index += 1
        }
        return bytes.count - 1
    }

    /// The index just after the `*/` ending a block comment whose body starts at `start`.
    private static func endOfBlockComment(_ bytes: [UInt8], from start: Int) -> Int? {
        find(Array("*/".utf8), in: bytes, from: start).map { $0 + 2 }
    }

    /// The index of the closing `$` of a dollar-quote tag (`$$` or `$name$`) starting at `start`;
    /// nil for a positional parameter (`$1`) or a lone dollar.
    private static func dollarTagEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "$") { return index }
            let isLetter = (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || byte == UInt8(ascii: "_")
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            guard isLetter || (isDigit && index > start + 1) else { return nil }
            index += 1
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, start <= bytes.count - needle.count else { return nil }
        var index = start
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0] && Array(bytes[index..<(index + needle.count)]) == needle { return index }
            index += 1
        }
        return nil
    }
}
