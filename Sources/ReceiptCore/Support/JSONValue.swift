import Foundation

/// A JSON value with ordered object keys, for output that scripts read (`decode --json`) and
/// that must be stable from run to run.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.serialized() == rhs.serialized() }

    /// A string, or null when absent.
    public static func string(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
    /// An RFC 3339 UTC date, or null when absent.
    public static func date(_ value: Date?) -> JSONValue { value.map { .string(RFC3339.format($0)) } ?? .null }
    public static func int(_ value: Int64?) -> JSONValue { value.map { .int($0) } ?? .null }
    public static func bool(_ value: Bool?) -> JSONValue { value.map { .bool($0) } ?? .null }

    /// The member `key` of an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// Compact JSON text.
    public func serialized() -> String {
        // Built as UTF-8 bytes: appending to a byte array is several times cheaper than to a
        // String, and this runs for every receipt imported (its decode, its audit entry).
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Indented JSON text (two spaces a level, `"key" : value`, as Foundation prints it), for
    /// people to read: an answer kept as it came.
    public func prettyPrinted() -> String {
        var out: [UInt8] = []
        out.reserveCapacity(1_024)
        writePretty(into: &out, depth: 0)
        return String(decoding: out, as: UTF8.self)
    }

    private func writePretty(into out: inout [UInt8], depth: Int) {
        func newline(_ depth: Int) {
            out.append(UInt8(ascii: "\n"))
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
        }
        switch self {
        case .array(let values) where !values.isEmpty:
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                value.writePretty(into: &out, depth: depth + 1)
            }
            newline(depth)
            out.append(UInt8(ascii: "]"))
        case .object(let members) where !members.isEmpty:
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                JSONValue.escape(key, into: &out)
                out.append(contentsOf: " : ".utf8)
                value.writePretty(into: &out, depth: depth + 1)
            }
            newline(depth)
            out.append(UInt8(ascii: "}"))
        default:
            write(into: &out)
        }
    }

    private func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): out.append(contentsOf: String(value).utf8)
        case .double(let value): out.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
        case .string(let value): JSONValue.escape(value, into: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.escape(key, into: &out)
                out.append(UInt8(ascii: ":"))
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func escape(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        defer { out.append(UInt8(ascii: "\"")) }
        // Text without quotes, backslashes, control characters or other unsafe characters (DEL,
        // C1, bidirectional and zero-width, all multi-byte but DEL) is copied whole.
        if isPlain(text) {
            out.append(contentsOf: text.utf8)
            return
        }
        if text.unicodeScalars.contains(where: { $0.value >= 0x7F && UnsafeText.isUnsafe($0) }) {
            escapeScalars(text, into: &out)
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): out.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): out.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): out.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)  // multi-byte UTF-8 sequences pass through whole
            }
        }
    }

    /// Whether `text` is printable ASCII without a quote or backslash: written as it is. Read
    /// over the string's UTF-8 in place (`withUTF8`; the generic sequence walk cost a tenth of
    /// serializing an import's audit details).
    @inline(__always)
    private static func isPlain(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }
        }
    }

    /// The slow path, for text holding DEL, C1, bidirectional or zero-width characters: they are
    /// written as `\uXXXX` (the same string to a JSON reader), so JSON output never carries one
    /// raw to a terminal.
    private static func escapeScalars(_ text: String, into out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        for scalar in text.unicodeScalars {
            let v = scalar.value
            switch scalar {
            case "\"": out.append(contentsOf: #"\""#.utf8)
            case "\\": out.append(contentsOf: #"\\"#.utf8)
            case "\n": out.append(contentsOf: #"\n"#.utf8)
            case "\r": out.append(contentsOf: #"\r"#.utf8)
            case "\t": out.append(contentsOf: #"\t"#.utf8)
            default:
                if UnsafeText.isUnsafe(scalar) {
                    out.append(contentsOf: #"\u"#.utf8)
                    for shift in [12, 8, 4, 0] { out.append(hex[Int((v >> UInt32(shift)) & 0xF)]) }
                } else {
                    out.append(contentsOf: String(scalar).utf8)
                }
            }
        }
    }
}
