import Foundation

/// Says where JSON text breaks its grammar, in receiptdesk's words: "unexpected '}' at line 3,
/// column 7 (byte 41)". Used when the JSON parser refuses text, so that an error names the place
/// and never carries the parser's own message. Iterative, and bounded by the input's length.
enum JSONSyntax {
    /// The first syntax error in `bytes`, or nil when the text is well-formed JSON.
    static func firstError(_ bytes: [UInt8]) -> String? {
        var scanner = Scanner(bytes: bytes)
        return scanner.run()
    }

    /// The first member name written twice in one object of well-formed JSON, with where the
    /// second one is ("'products' again at line 7, column 3 (byte 120)"); nil when none is.
    /// JSON parsers keep one of the two silently, so a config refuses them.
    static func firstDuplicateKey(_ bytes: [UInt8]) -> String? {
        var scanner = Scanner(bytes: bytes)
        scanner.trackKeys = true
        return scanner.run() == nil ? scanner.duplicate : nil
    }

    /// A JSON value's kind named from its first byte ("an array", "a string"), for messages.
    static func kind(startingWith byte: UInt8) -> String {
        switch byte {
        case UInt8(ascii: "{"): return "an object"
        case UInt8(ascii: "["): return "an array"
        case UInt8(ascii: "\""): return "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
        case UInt8(ascii: "n"): return "null"
        default: return "a number"
        }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        /// Whether member names are collected per object, to find one written twice.
        var trackKeys = false
        var keys: [Set<String>] = []
        var duplicate: String?

        init(bytes: [UInt8]) { self.bytes = bytes }

        /// Where `offset` is, as "line L, column C (byte B)".
        func place(_ offset: Int) -> String {
            var line = 1
            var column = 1
            for byte in bytes[..<min(offset, bytes.count)] {
                if byte == 0x0A { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
            }
            return "line \(line), column \(column) (byte \(offset))"
        }

        func found(_ offset: Int) -> String {
            guard offset < bytes.count else { return "the end of the text" }
            let byte = bytes[offset]
            if byte >= 0x20 && byte < 0x7F { return "'\(Character(UnicodeScalar(byte)))'" }
            return "byte 0x\(String(byte, radix: 16))"
        }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }

        /// Containers still open, innermost last: true for an object.
        mutating func run() -> String? {
            var open: [Bool] = []
            skipSpace()
            if let error = value(&open) { return error }
            while true {
                skipSpace()
                guard let isObject = open.last else { break }
                guard index < bytes.count else {
                    return "the text ends inside \(isObject ? "an object" : "an array") at \(place(index))"
                }
                let byte = bytes[index]
                if byte == UInt8(ascii: isObject ? "}" : "]") {
                    index += 1
                    open.removeLast()
                    if isObject && trackKeys { keys.removeLast() }
                    continue
                }
                guard byte == UInt8(ascii: ",") else {
                    return "expected ',' or '\(isObject ? "}" : "]")', found \(found(index)) at \(place(index))"
                }
                index += 1
                skipSpace()
                if isObject, let error = member() { return error }
                if let error = value(&open) { return error }
            }
            skipSpace()
            guard index == bytes.count else { return "unexpected \(found(index)) after the JSON value at \(place(index))" }
            return nil
        }

        /// A `"key" :` inside an object.
        mutating func member() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                return "expected a quoted member name, found \(found(index)) at \(place(index))"
            }
            let start = index
            if let error = string() { return error }
            if trackKeys, duplicate == nil, !keys.isEmpty {
                // The name as a JSON reader sees it (escapes undone), so "a" and "\u0061" are one.
                let raw = Data(bytes[start..<index])
                let name = (try? JSONSerialization.jsonObject(with: raw, options: [.fragmentsAllowed]) as? String) ?? String(decoding: raw, as: UTF8.self)
                if keys[keys.count - 1].contains(name) {
                    duplicate = "'\(name)' again at \(place(start))"
                } else {
                    keys[keys.count - 1].insert(name)
                }
            }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                return "expected ':' after a member name, found \(found(index)) at \(place(index))"
            }
            index += 1
            skipSpace()
            return nil
        }

        /// One value; an opening bracket is pushed on `open` and its first value read in turn
        /// (a loop, not recursion, however deep the nesting).
        mutating func value(_ open: inout [Bool]) -> String? {
            while true {
                guard index < bytes.count else { return "expected a value, found the end of the text at \(place(index))" }
                switch bytes[index] {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    let isObject = bytes[index] == UInt8(ascii: "{")
                    index += 1
                    skipSpace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: isObject ? "}" : "]") {
                        index += 1
                        return nil
                    }
                    open.append(isObject)
                    if isObject && trackKeys { keys.append([]) }
                    if isObject, let error = member() { return error }
                case UInt8(ascii: "\""): return string()
                case UInt8(ascii: "t"): return literal("true")
                case UInt8(ascii: "f"): return literal("false")
                case UInt8(ascii: "n"): return literal("null")
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
                default: return "expected a value, found \(found(index)) at \(place(index))"
                }
            }
        }

        mutating func literal(_ word: String) -> String? {
            let start = index
            for expected in word.utf8 {
                guard index < bytes.count, bytes[index] == expected else {
                    return "unexpected \(found(index)) at \(place(index)) (expected \(word) at byte \(start))"
                }
                index += 1
            }
            return nil
        }

        mutating func digits() -> Int {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }

        mutating func number() -> String? {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return "a number at \(place(start)) has no digits" }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { return "a number at \(place(start)) has no digits after its '.'" }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { return "a number at \(place(start)) has no digits in its exponent" }
            }
            return nil
        }

        mutating func string() -> String? {
            let start = index
            index += 1
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index += 1
                    return nil
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < bytes.count else { break }
                    let escape = bytes[index]
                    if escape == UInt8(ascii: "u") {
                        let hex = bytes[(index + 1)..<min(index + 5, bytes.count)]
                        guard hex.count == 4, hex.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) }) else {
                            return "a \\u escape at \(place(index - 1)) needs four hex digits"
                        }
                        index += 5
                    } else {
                        guard Array("\"\\/bfnrt".utf8).contains(escape) else {
                            return "unknown escape '\\\(found(index).dropFirst().dropLast())' at \(place(index - 1))"
                        }
                        index += 1
                    }
                case 0x00..<0x20:
                    return "a control character (byte 0x\(String(bytes[index], radix: 16))) inside a string at \(place(index)); line breaks inside strings must be written \\n"
                default:
                    index += 1
                }
            }
            return "a string starting at \(place(start)) is never closed"
        }
    }
}
