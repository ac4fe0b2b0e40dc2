import Foundation

/// A reader for the plain JSON Apple signs: objects, arrays, printable-ASCII strings without
/// escapes, integers of at most 18 digits, `true`, `false`, `null`, nested at most
/// `JSONObject.maxDepth` deep, no member named twice. It builds exactly the values
/// JSONSerialization builds for such text (Swift `String`, `[Any]`, `[String: Any]`, `NSNumber`
/// from `Int`, `NSNumber` from `Bool`, `NSNull`), without Foundation's detour through its own
/// value tree.
///
/// Anything outside that subset, well-formed or not, gives nil, and `JSONObject(parsing:)` then
/// hands the text to JSONSerialization as before: what is accepted, what is refused, and every
/// message stay what they were. A decoder may instead read only the top-level members it needs,
/// typed (`members(_:capturing:)`), and leave the object to be built when asked for.
enum PlainJSON {
    /// The top-level object of `bytes`, or nil when the text is not plain JSON holding an object.
    static func object(_ bytes: [UInt8]) -> [String: Any]? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer)
            reader.skipSpace()
            guard reader.peek == UInt8(ascii: "{"), let object = reader.object() else { return nil }
            reader.skipSpace()
            return reader.index == buffer.count ? object : nil
        }
    }

    /// `known`'s top-level members, typed, by position, with no value built for the object: nil
    /// exactly when `object(_:)` gives nil (the same grammar, the same refusal of a member named
    /// twice), so the object can be built later from the same bytes when asked for.
    static func members(_ bytes: [UInt8], capturing known: KnownMembers) -> [PlainMember]? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer)
            reader.known = known
            reader.captured = [PlainMember](repeating: .absent, count: known.names.count)
            reader.skipSpace()
            guard reader.peek == UInt8(ascii: "{"), reader.topLevelMembers() else { return nil }
            reader.skipSpace()
            return reader.index == buffer.count ? reader.captured : nil
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var depth = 0
        /// The top-level members `members(_:capturing:)` keeps typed in `captured`.
        var known: KnownMembers?
        var captured: [PlainMember] = []

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        /// The byte at `index`, or 0 at the end (0 is never valid where it is asked for).
        var peek: UInt8 { index < bytes.count ? bytes[index] : 0 }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        mutating func value() -> Any? {
            switch peek {
            case UInt8(ascii: "{"): return object()
            case UInt8(ascii: "["): return array()
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true") ? NSNumber(value: true) : nil
            case UInt8(ascii: "f"): return literal("false") ? NSNumber(value: false) : nil
            case UInt8(ascii: "n"): return literal("null") ? NSNull() : nil
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number().map { NSNumber(value: $0) }
            default: return nil
            }
        }

        /// At `{`.
        mutating func object() -> [String: Any]? {
            depth += 1
            defer { depth -= 1 }
            guard depth <= JSONObject.maxDepth else { return nil }
            // Sized from what is left (Apple's members take a few dozen bytes each), so a payload's
            // twenty-odd members are inserted without the table being rehashed as it grows.
            var members: [String: Any] = Dictionary(minimumCapacity: min(64, max(4, (bytes.count - index) / 32)))
            if closesAtOnce(UInt8(ascii: "}")) { return members }
            while true {
                guard peek == UInt8(ascii: "\""), let key = string(), colon(), let member = value(),
                      members.updateValue(member, forKey: key) == nil else { return nil }
                guard let more = next(UInt8(ascii: "}")) else { return nil }
                if !more { return members }
            }
        }

        /// Past a container's opening byte and any space: whether `closing` follows at once
        /// (then past it too).
        mutating func closesAtOnce(_ closing: UInt8) -> Bool {
            index += 1
            skipSpace()
            guard peek == closing else { return false }
            index += 1
            return true
        }

        /// Between a member's name and its value: past the `:` and the space around it.
        mutating func colon() -> Bool {
            skipSpace()
            guard peek == UInt8(ascii: ":") else { return false }
            index += 1
            skipSpace()
            return true
        }

        /// After a member or element: true past a `,` (another follows), false past `closing`
        /// (the container ends), nil when neither comes.
        mutating func next(_ closing: UInt8) -> Bool? {
            skipSpace()
            switch peek {
            case UInt8(ascii: ","):
                index += 1
                skipSpace()
                return true
            case closing:
                index += 1
                return false
            default: return nil
            }
        }

        /// At `"` of a top-level member name: its position in `known`, past its closing quote,
        /// when it is one of those names (nil, and nothing read, otherwise).
        mutating func knownName() -> Int? {
            let start = index + 1
            guard let known, start < bytes.count, let base = bytes.baseAddress,
                  let found = memchr(base + start, Int32(UInt8(ascii: "\"")), bytes.count - start) else { return nil }
            let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            guard let position = known.position(of: UnsafeBufferPointer(rebasing: bytes[start..<end])) else { return nil }
            index = end + 1
            return position
        }

        /// A known member's value kept typed at `position`, and nothing built for anything else.
        mutating func keep(at position: Int) -> Bool {
            switch peek {
            case UInt8(ascii: "\""):
                guard let text = string() else { return false }
                captured[position] = .string(text)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard let number = number() else { return false }
                captured[position] = .int(number)
            case UInt8(ascii: "n"):
                guard literal("null") else { return false }
                captured[position] = .null
            default:
                captured[position] = .other
                return skipValue()
            }
            return true
        }

        /// At the top-level `{`: reads it as `object()` does, keeping only the known members.
        /// Each other member's name is remembered by its place in the text, to refuse it twice.
        mutating func topLevelMembers() -> Bool {
            depth += 1
            defer { depth -= 1 }
            var others: [Range<Int>] = []
            if closesAtOnce(UInt8(ascii: "}")) { return true }
            while true {
                guard peek == UInt8(ascii: "\"") else { return false }
                let named = knownName()
                let otherName = named == nil ? stringBytes() : nil
                guard named != nil || otherName != nil, colon() else { return false }
                if let named {
                    guard case .absent = captured[named], keep(at: named) else { return false }
                } else if let otherName {
                    // Apple's payloads hold a handful of members this decoder does not read.
                    guard others.count < 64, !others.contains(where: { same($0, otherName) }), skipValue() else { return false }
                    others.append(otherName)
                }
                guard let more = next(UInt8(ascii: "}")) else { return false }
                if !more { return true }
            }
        }

        /// A value read as `value()` reads it, built only when it is an object or an array.
        mutating func skipValue() -> Bool {
            switch peek {
            case UInt8(ascii: "\""): return stringBytes() != nil
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number() != nil
            default: return value() != nil
            }
        }

        /// Whether two ranges of the text hold the same bytes.
        func same(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
            guard a.count == b.count else { return false }
            return a.isEmpty || memcmp(bytes.baseAddress! + a.lowerBound, bytes.baseAddress! + b.lowerBound, a.count) == 0
        }

        /// At `[`.
        mutating func array() -> [Any]? {
            depth += 1
            defer { depth -= 1 }
            guard depth <= JSONObject.maxDepth else { return nil }
            var elements: [Any] = []
            if closesAtOnce(UInt8(ascii: "]")) { return elements }
            while true {
                guard let element = value() else { return nil }
                elements.append(element)
                guard let more = next(UInt8(ascii: "]")) else { return nil }
                if !more { return elements }
            }
        }

        /// At `"`: printable ASCII up to the closing quote; an escape or any other byte gives nil.
        mutating func string() -> String? {
            guard let text = stringBytes() else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[text]), as: UTF8.self)
        }

        /// `string()`'s checks, past the closing quote: where its text lies, no String made.
        mutating func stringBytes() -> Range<Int>? {
            let start = index + 1
            guard start < bytes.count, let base = bytes.baseAddress,
                  let found = memchr(base + start, Int32(UInt8(ascii: "\"")), bytes.count - start) else { return nil }
            let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            let text = UnsafeBufferPointer(rebasing: bytes[start..<end])
            // Without an escape the first quote closes the string; a plain loop the compiler
            // can widen checks that every byte is printable ASCII and none is a backslash.
            var refused: UInt8 = 0
            for byte in text { refused |= (byte &- 0x20 >= 0x5F ? 1 : 0) | (byte == UInt8(ascii: "\\") ? 1 : 0) }
            guard refused == 0 else { return nil }
            index = end + 1
            return start..<end
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
            index += count
            return true
        }

        /// An integer without fraction or exponent, at most 18 digits, no leading zero, not -0.
        mutating func number() -> Int? {
            let negative = peek == UInt8(ascii: "-")
            if negative { index += 1 }
            let start = index
            var magnitude = 0
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                // The 19th digit is refused before it is added: 18 digits always fit in an Int,
                // 19 may not (JSONSerialization then decides).
                guard index - start < 18 else { return nil }
                magnitude = magnitude * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            let digits = index - start
            guard digits > 0, bytes[start] != UInt8(ascii: "0") || (digits == 1 && !negative) else { return nil }
            switch peek {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: return negative ? -magnitude : magnitude
            }
        }
    }
}
