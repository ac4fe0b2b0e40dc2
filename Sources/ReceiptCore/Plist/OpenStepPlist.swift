/// A tokenizer and parser for OpenStep (NeXTSTEP) ASCII property lists, the format of iOS 6
/// `transactionReceipt`s. The grammar is on `PlistValue`; lexical rules:
///
/// - quoted strings use `"` or `'`, may span lines, and know the escapes `\" \' \\ \n \t \r \a \b
///   \f \v`, `\Uhhhh` (exactly four hex digits; a surrogate pair makes one character) and `\ooo`
///   (one to three octal digits, ASCII only: NeXTSTEP's upper half is not supported);
/// - unquoted strings are runs of `[A-Za-z0-9_$+/:.-]`;
/// - `//` line comments and `/* */` block comments may stand wherever whitespace may.
///
/// Limits: `maxInputBytes`, `maxDepth` nested containers, `maxElements` values in all. Every
/// error is a `ReceiptError` whose reason names the byte offset: "legacy receipt: OpenStep plist
/// at byte 57: expected ';' after value, found '}'".
public enum OpenStepPlist {
    /// The largest input accepted (16 MiB).
    public static let maxInputBytes = 16 << 20
    /// The deepest nesting of arrays and dictionaries accepted.
    public static let maxDepth = 64
    /// The most values (keys included) one document may hold.
    public static let maxElements = 100_000

    /// Parses one top-level value; whitespace and comments may surround it, nothing else.
    public static func parse(_ bytes: [UInt8], context: String = "") throws -> PlistValue {
        var parser = OpenStepParser(bytes: bytes, context: context)
        return try parser.parseDocument()
    }

    /// The offset of the first byte that does not start a well-formed UTF-8 sequence (overlong
    /// forms, surrogates and values above U+10FFFF included), or nil when all of `bytes` is UTF-8.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var i = 0
        while i < bytes.count {
            let lead = bytes[i]
            if lead < 0x80 { i += 1; continue }
            let length: Int
            var scalar: UInt32
            switch lead {
            case 0xC2...0xDF: length = 2; scalar = UInt32(lead & 0x1F)
            case 0xE0...0xEF: length = 3; scalar = UInt32(lead & 0x0F)
            case 0xF0...0xF4: length = 4; scalar = UInt32(lead & 0x07)
            default: return i
            }
            guard i + length <= bytes.count else { return i }
            for k in 1..<length {
                let next = bytes[i + k]
                guard next & 0xC0 == 0x80 else { return i }
                scalar = scalar << 6 | UInt32(next & 0x3F)
            }
            if length == 3 && (scalar < 0x800 || (0xD800...0xDFFF).contains(scalar)) { return i }
            if length == 4 && (scalar < 0x1_0000 || scalar > 0x10_FFFF) { return i }
            i += length
        }
        return nil
    }
}

/// The parser's state: the input, a cursor, and the element count. Containers recurse, but only
/// `OpenStepPlist.maxDepth` levels deep, so hostile nesting fails before the stack can.
private struct OpenStepParser {
    let bytes: [UInt8]
    let context: String
    var index = 0
    var elements = 0

    init(bytes: [UInt8], context: String) {
        self.bytes = bytes
        self.context = context
    }

    mutating func parseDocument() throws -> PlistValue {
        guard bytes.count <= OpenStepPlist.maxInputBytes else {
            throw error(.tooLarge, at: OpenStepPlist.maxInputBytes,
                        "input is \(bytes.count) bytes, over the limit of \(OpenStepPlist.maxInputBytes)")
        }
        if let bad = OpenStepPlist.firstInvalidUTF8(bytes) {
            throw error(.badUTF8, at: bad, "byte 0x\(plistHex(bytes[bad])) does not start valid UTF-8")
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }  // a byte-order mark is not content
        try skipTrivia()
        let value = try parseValue(depth: 1)
        try skipTrivia()
        guard index == bytes.count else {
            throw error(.trailingBytes, at: index, "\(found(index)) after the top-level value")
        }
        return value
    }

    // MARK: values

    private mutating func parseValue(depth: Int) throws -> PlistValue {
        guard index < bytes.count else { throw error(.truncated, at: index, "expected a value, found end of input") }
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "{"): return try parseDictionary(depth: depth)
        case UInt8(ascii: "("): return try parseArray(depth: depth)
        case UInt8(ascii: "<"): return try parseData()
        case _ where isStringStart(byte): return .string(try parseString())
        default: throw error(.unexpectedTag, at: index, "expected a value, found \(found(index))")
        }
    }

    private mutating func enter(depth: Int) throws {
        guard depth <= OpenStepPlist.maxDepth else {
            throw error(.tooDeep, at: index, "nesting deeper than \(OpenStepPlist.maxDepth) levels")
        }
        try count()
    }

    private mutating func count() throws {
        elements += 1
        guard elements <= OpenStepPlist.maxElements else {
            throw error(.tooLarge, at: index, "more than \(OpenStepPlist.maxElements) elements")
        }
    }

    private mutating func parseDictionary(depth: Int) throws -> PlistValue {
        try enter(depth: depth)
        let open = index
        index += 1
        var entries: [PlistEntry] = []
        var seen = Set<String>()
        while true {
            try skipTrivia()
            guard index < bytes.count else {
                throw error(.truncated, at: index, "expected a key or '}' to close the dictionary opened at byte \(open), found end of input")
            }
            if bytes[index] == UInt8(ascii: "}") { index += 1; break }
            let keyOffset = index
            guard isStringStart(bytes[index]) else {
                throw error(.unexpectedTag, at: index, "expected a string key or '}', found \(found(index))")
            }
            let key = try parseString()
            try skipTrivia()
            try expect(UInt8(ascii: "="), "after key '\(key)'")
            try skipTrivia()
            let value = try parseValue(depth: depth + 1)
            try skipTrivia()
            try expect(UInt8(ascii: ";"), "after value")
            guard seen.insert(key).inserted else {
                throw error(.badValue, at: keyOffset, "duplicate key '\(key)'")
            }
            entries.append(PlistEntry(key: key, value: value))
        }
        return .dictionary(entries)
    }

    private mutating func parseArray(depth: Int) throws -> PlistValue {
        try enter(depth: depth)
        let open = index
        index += 1
        var items: [PlistValue] = []
        while true {
            try skipTrivia()
            guard index < bytes.count else {
                throw error(.truncated, at: index, "expected a value or ')' to close the array opened at byte \(open), found end of input")
            }
            if bytes[index] == UInt8(ascii: ")") { index += 1; break }
            items.append(try parseValue(depth: depth + 1))
            try skipTrivia()
            guard index < bytes.count else {
                throw error(.truncated, at: index, "expected ',' or ')' after array element, found end of input")
            }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: ")"): index += 1; return .array(items)
            default: throw error(.unexpectedTag, at: index, "expected ',' or ')' after array element, found \(found(index))")
            }
        }
        return .array(items)
    }

    private mutating func parseData() throws -> PlistValue {
        try count()
        let open = index
        index += 1
        var out: [UInt8] = []
        while true {
            while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
            guard index < bytes.count else {
                throw error(.truncated, at: index, "data opened at byte \(open) is not closed with '>'")
            }
            if bytes[index] == UInt8(ascii: ">") { index += 1; return .data(out) }
            guard let high = Self.hexValue(bytes[index]) else {
                throw error(.unexpectedTag, at: index, "expected a hex digit or '>' in data, found \(found(index))")
            }
            guard index + 1 < bytes.count, let low = Self.hexValue(bytes[index + 1]) else {
                throw error(.badValue, at: index, "data byte has one hex digit, needs two")
            }
            out.append(high << 4 | low)
            index += 2
        }
    }

    // MARK: strings

    private func isStringStart(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || Self.isUnquoted(byte)
    }

    /// A quoted or unquoted string starting at `index` (the caller checked the first byte).
    private mutating func parseString() throws -> String {
        try count()
        let quote = bytes[index]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            let start = index
            while index < bytes.count, Self.isUnquoted(bytes[index]) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        let start = index
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else {
                throw error(.truncated, at: start, "unterminated string: no closing \(quote == UInt8(ascii: "'") ? "'" : "\"") before end of input")
            }
            let byte = bytes[index]
            if byte == quote { index += 1; break }
            if byte == UInt8(ascii: "\\") {
                try parseEscape(into: &out, stringStart: start)
            } else {
                out.append(byte)
                index += 1
            }
        }
        // The input is valid UTF-8 and escapes append whole scalars, so decoding loses nothing.
        return String(decoding: out, as: UTF8.self)
    }

    /// `\"` `\'` `\\` `\n` `\t` `\r` `\a` `\b` `\f` `\v` and the bytes they stand for.
    private static let simpleEscapes: [UInt8: UInt8] = [
        UInt8(ascii: "\""): 0x22, UInt8(ascii: "'"): 0x27, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "n"): 0x0A,
        UInt8(ascii: "t"): 0x09, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "a"): 0x07, UInt8(ascii: "b"): 0x08,
        UInt8(ascii: "f"): 0x0C, UInt8(ascii: "v"): 0x0B,
    ]

    private mutating func parseEscape(into out: inout [UInt8], stringStart: Int) throws {
        let escape = index
        index += 1
        guard index < bytes.count else {
            throw error(.truncated, at: stringStart, "unterminated string: input ends inside an escape")
        }
        let letter = bytes[index]
        index += 1
        if let byte = Self.simpleEscapes[letter] { out.append(byte); return }
        switch letter {
        case UInt8(ascii: "U"), UInt8(ascii: "u"):
            var value = try readHex4(escape: escape)
            if (0xD800...0xDBFF).contains(value) {
                let low = index
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                      bytes[index + 1] == UInt8(ascii: "U") || bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error(.badValue, at: escape, "high surrogate \\U\(String(value, radix: 16)) is not followed by a low one")
                }
                index += 2
                let second = try readHex4(escape: low)
                guard (0xDC00...0xDFFF).contains(second) else {
                    throw error(.badValue, at: low, "\\U\(String(second, radix: 16)) is not a low surrogate")
                }
                value = 0x1_0000 + ((value - 0xD800) << 10) + (second - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw error(.badValue, at: escape, "\\U\(String(value, radix: 16)) is a lone low surrogate")
            }
            UTF8.encode(scalar) { out.append($0) }
        case UInt8(ascii: "0")...UInt8(ascii: "7"):
            var value = UInt32(letter - UInt8(ascii: "0"))
            var digits = 1
            while digits < 3, index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[index]) {
                value = value * 8 + UInt32(bytes[index] - UInt8(ascii: "0"))
                index += 1
                digits += 1
            }
            guard value < 0x80 else {
                throw error(.badValue, at: escape, "octal escape \\\(String(value, radix: 8)) is outside ASCII (NeXTSTEP encoding is not supported)")
            }
            out.append(UInt8(value))
        default:
            throw error(.badValue, at: escape, "unknown escape '\\\(Self.printable(letter))' in string")
        }
    }

    private mutating func readHex4(escape: Int) throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = Self.hexValue(bytes[index]) else {
                throw error(.badValue, at: escape, "\\U escape needs exactly four hex digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    // MARK: lexical helpers

    /// Skips whitespace and comments.
    private mutating func skipTrivia() throws {
        while index < bytes.count {
            let byte = bytes[index]
            if Self.isWhitespace(byte) { index += 1; continue }
            guard byte == UInt8(ascii: "/"), index + 1 < bytes.count else { return }
            if bytes[index + 1] == UInt8(ascii: "/") {
                while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
            } else if bytes[index + 1] == UInt8(ascii: "*") {
                let open = index
                index += 2
                while true {
                    guard index + 1 < bytes.count else {
                        throw error(.truncated, at: open, "comment opened here is not closed with '*/'")
                    }
                    if bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/") { index += 2; break }
                    index += 1
                }
            } else {
                return  // a '/' that starts an unquoted string
            }
        }
    }

    private mutating func expect(_ ascii: UInt8, _ place: String) throws {
        let character = Character(UnicodeScalar(ascii))
        guard index < bytes.count else {
            throw error(.truncated, at: index, "expected '\(character)' \(place), found end of input")
        }
        guard bytes[index] == ascii else {
            throw error(.unexpectedTag, at: index, "expected '\(character)' \(place), found \(found(index))")
        }
        index += 1
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    private static func isUnquoted(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: ":"),
             UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func printable(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : "0x" + plistHex(byte)
    }

    /// The byte at `offset` described for a message: `'}'`, `byte 0xC3`, or `end of input`.
    private func found(_ offset: Int) -> String {
        guard offset < bytes.count else { return "end of input" }
        let byte = bytes[offset]
        if (0x21...0x7E).contains(byte) { return "'\(String(UnicodeScalar(byte)))'" }
        if byte == 0x20 { return "' '" }
        return "byte 0x\(plistHex(byte))"
    }

    private func error(_ code: ReceiptError.Code, at offset: Int, _ message: String) -> ReceiptError {
        let place = "OpenStep plist at byte \(offset): \(message)"
        return ReceiptError(code, context.isEmpty ? place : "\(context): \(place)")
    }
}

private func plistHex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}
