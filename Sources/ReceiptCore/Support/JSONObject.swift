import Foundation

/// A parsed JSON object with typed, error-reporting accessors, for the JSON Apple sends
/// (JWS payloads, notifications, verifyReceipt answers). Apple's numbers and strings are
/// accepted in either form where Apple is known to mix them.
public struct JSONObject: @unchecked Sendable {
    // Holds only JSONSerialization output (immutable Foundation values).
    public let values: [String: Any]
    /// Names the object in error messages ("JWS transaction payload").
    public let what: String

    /// The deepest JSON nesting accepted anywhere.
    public static let maxDepth = 32

    public init(_ values: [String: Any], what: String) {
        self.values = values
        self.what = what
    }

    /// Parses JSON text that must be an object.
    public init(parsing bytes: [UInt8], what: String) throws {
        // Apple's JSON is plain (ASCII strings, integers): read directly, to the same values.
        if let plain = PlainJSON.object(bytes) {
            self.init(plain, what: what)
        } else {
            try self.init(parsingWithFoundation: bytes, what: what)
        }
    }

    /// `init(parsing:what:)` for text `PlainJSON` did not take: JSONSerialization reads it.
    init(parsingWithFoundation bytes: [UInt8], what: String) throws {
        try JSONObject.checkDepth(bytes, what: what)
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(bytes), options: [])
        } catch {
            guard String(validating: bytes, as: UTF8.self) != nil else {
                throw ReceiptError(.badUTF8, "\(what): not valid UTF-8")
            }
            throw ReceiptError(.badValue, "\(what): not valid JSON: \(JSONObject.describe(bytes))")
        }
        guard let object = parsed as? [String: Any] else {
            let first = bytes.first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) } ?? 0
            throw ReceiptError(.unexpectedTag, "\(what): the JSON is \(JSONSyntax.kind(startingWith: first)), expected an object")
        }
        self.init(object, what: what)
    }

    /// Refuses nesting deeper than `maxDepth` before any parser recurses into it.
    static func checkDepth(_ bytes: [UInt8], what: String) throws {
        var depth = 0
        var inString = false
        var escaped = false
        try bytes.withUnsafeBufferPointer { bytes in
            for offset in 0..<bytes.count {
                let byte = bytes[offset]
                if inString {
                    if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                    continue
                }
                switch byte {
                case 0x22: inString = true
                case 0x7B, 0x5B:
                    depth += 1
                    if depth > maxDepth {
                        throw ReceiptError(.tooDeep, "\(what): JSON nested deeper than \(maxDepth) levels at byte \(offset)")
                    }
                case 0x7D, 0x5D: depth -= 1
                default: break
                }
            }
        }
    }

    /// Where the text breaks JSON's grammar, in our words (never the parser's own message).
    static func describe(_ bytes: [UInt8]) -> String {
        JSONSyntax.firstError(bytes) ?? "the JSON parser refused it (a number out of range, or invalid Unicode)"
    }

    public func has(_ key: String) -> Bool {
        guard let value = values[key] else { return false }
        // A string, array or object is never NSNull, and asking would bridge it to Foundation.
        let type = Swift.type(of: value)
        if type == String.self || type == [Any].self || type == [String: Any].self { return true }
        return !(value is NSNull)
    }

    /// A string member; numbers are accepted and written out (Apple mixes them).
    public func string(_ key: String) throws -> String? {
        // A String is asked for first: asking whether it is an NSNull tries to bridge it.
        switch values[key] {
        case let text as String: return text
        case nil, is NSNull: return nil
        case let number as NSNumber where !JSONObject.isBool(number): return JSONObject.text(of: number)
        default: throw ReceiptError(.unexpectedTag, "\(what): `\(key)` is not a string")
        }
    }

    /// An integer member; numeric strings are accepted.
    public func int(_ key: String) throws -> Int64? {
        switch values[key] {
        case nil, is NSNull: return nil
        case let number as NSNumber where !JSONObject.isBool(number):
            let double = number.doubleValue
            guard double.rounded() == double, abs(double) < 9.2e18 else {
                throw ReceiptError(.badValue, "\(what): `\(key)` is not an integer: \(number)")
            }
            return number.int64Value
        case let text as String:
            guard let value = Int64(text) else { throw ReceiptError(.badValue, "\(what): `\(key)` is not an integer: '\(text.prefix(40))'") }
            return value
        default: throw ReceiptError(.unexpectedTag, "\(what): `\(key)` is not a number")
        }
    }

    /// A boolean member; `true`/`false`, 1/0 and "true"/"false"/"1"/"0" are accepted.
    public func bool(_ key: String) throws -> Bool? {
        switch values[key] {
        case nil, is NSNull: return nil
        case let number as NSNumber: return number.boolValue
        case let text as String where ["true", "1"].contains(text): return true
        case let text as String where ["false", "0"].contains(text): return false
        default: throw ReceiptError(.unexpectedTag, "\(what): `\(key)` is not a boolean")
        }
    }

    /// A date given as UNIX milliseconds (a number, possibly fractional, or a numeric string).
    public func millisecondsDate(_ key: String) throws -> Date? {
        switch values[key] {
        case nil, is NSNull: return nil
        case let number as NSNumber where !JSONObject.isBool(number):
            let ms = number.doubleValue
            guard RFC3339.isStorableMilliseconds(ms) else {
                throw ReceiptError(.badValue, "\(what): `\(key)` is not a date in milliseconds within the years 0000–9999: \(number)")
            }
            return RFC3339.fromMilliseconds(ms)
        case let text as String:
            guard let ms = Double(text), RFC3339.isStorableMilliseconds(ms) else {
                throw ReceiptError(.badValue, "\(what): `\(key)` is not a date in milliseconds within the years 0000–9999: '\(text.prefix(40))'")
            }
            return RFC3339.fromMilliseconds(ms)
        default: throw ReceiptError(.unexpectedTag, "\(what): `\(key)` is not a date in milliseconds")
        }
    }

    /// A nested object member.
    public func object(_ key: String) throws -> JSONObject? {
        switch values[key] {
        case nil, is NSNull: return nil
        case let object as [String: Any]: return JSONObject(object, what: "\(what).\(key)")
        default: throw ReceiptError(.unexpectedTag, "\(what): `\(key)` is not an object")
        }
    }

    /// An array of strings member (numbers are written out, as `string` does); absent is empty.
    public func strings(_ key: String, limit: Int = 10_000) throws -> [String] {
        switch values[key] {
        case nil, is NSNull: return []
        case let array as [Any]:
            guard array.count <= limit else { throw ReceiptError(.tooLarge, "\(what): `\(key)` has more than \(limit) entries") }
            return try array.enumerated().map { index, element in
                switch element {
                case let text as String: return text
                case let number as NSNumber where !JSONObject.isBool(number): return JSONObject.text(of: number)
                default: throw ReceiptError(.unexpectedTag, "\(what): `\(key)[\(index)]` is not a string")
                }
            }
        default: throw ReceiptError(.unexpectedTag, "\(what): `\(key)` is not an array")
        }
    }

    /// An array of objects member.
    public func objects(_ key: String, limit: Int = 100_000) throws -> [JSONObject] {
        switch values[key] {
        case nil, is NSNull: return []
        case let array as [Any]:
            guard array.count <= limit else { throw ReceiptError(.tooLarge, "\(what): `\(key)` has more than \(limit) entries") }
            return try array.enumerated().map { index, element in
                guard let object = element as? [String: Any] else {
                    throw ReceiptError(.unexpectedTag, "\(what): `\(key)[\(index)]` is not an object")
                }
                return JSONObject(object, what: "\(what).\(key)[\(index)]")
            }
        default: throw ReceiptError(.unexpectedTag, "\(what): `\(key)` is not an array")
        }
    }

    /// Every member as display text, keys sorted, for trees.
    public func displayPairs() -> [(String, String)] {
        values.keys.sorted().map { ($0, JSONObject.display(values[$0])) }
    }

    static func display(_ value: Any?) -> String {
        switch value {
        case nil, is NSNull: return "null"
        case let text as String: return "\"\(text)\""
        case let number as NSNumber: return isBool(number) ? (number.boolValue ? "true" : "false") : text(of: number)
        case let array as [Any]: return "[\(array.count) item\(array.count == 1 ? "" : "s")]"
        case is [String: Any]: return "{…}"
        default: return "\(value ?? "")"
        }
    }

    /// The object as a `JSONValue`, members sorted by key at every level.
    public var jsonValue: JSONValue { JSONObject.value(of: values) }

    static func value(of value: Any?) -> JSONValue {
        switch value {
        case nil, is NSNull: return .null
        case let text as String: return .string(text)
        case let number as NSNumber:
            if isBool(number) { return .bool(number.boolValue) }
            // Integers as integers; a fraction (objCType d or f) as a double unless it is whole.
            let type = number.objCType.pointee
            guard type == 0x64 || type == 0x66 else {
                return type == 0x51 && number.uint64Value > UInt64(Int64.max) ? .double(number.doubleValue) : .int(number.int64Value)
            }
            let double = number.doubleValue
            return double.rounded() == double && abs(double) < 9.2e18 ? .int(Int64(double)) : .double(double)
        case let array as [Any]: return .array(array.map { JSONObject.value(of: $0) })
        case let object as [String: Any]: return .object(object.keys.sorted().map { ($0, JSONObject.value(of: object[$0])) })
        default: return .string("\(value ?? "")")
        }
    }

    static func isBool(_ number: NSNumber) -> Bool {
        // JSONSerialization gives booleans the Objective-C type code "c" (char).
        number.objCType.pointee == 0x63
    }

    static func text(of number: NSNumber) -> String {
        let double = number.doubleValue
        if double.rounded() == double, abs(double) < 9.2e18 { return String(number.int64Value) }
        return String(double)
    }
}
