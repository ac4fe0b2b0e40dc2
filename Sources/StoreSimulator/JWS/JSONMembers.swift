import Foundation
import ReceiptCore

/// Collects the members of a JSON object in order, skipping absent values, so payload builders
/// read as a list of fields.
struct JSONMembers {
    private(set) var members: [(String, JSONValue)] = []

    mutating func add(_ key: String, _ value: String?) { if let value { members.append((key, .string(value))) } }
    mutating func add(_ key: String, _ value: Int64?) { if let value { members.append((key, .int(value))) } }
    mutating func add(_ key: String, _ value: Bool?) { if let value { members.append((key, .bool(value))) } }
    mutating func add(_ key: String, _ value: JSONValue?) { if let value { members.append((key, value)) } }
    /// A date as UNIX milliseconds, as App Store JSON carries dates.
    mutating func add(_ key: String, milliseconds date: Date?) {
        if let date { members.append((key, .int(JSONMembers.milliseconds(date)))) }
    }
    mutating func append(contentsOf extra: [(String, JSONValue)]) { members += extra }

    var object: JSONValue { .object(members) }

    /// UNIX milliseconds, rounded; clamped to Int64 (and 0 for NaN) so no date can trap.
    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        if let exact = Int64(exactly: value) { return exact }
        return value.isNaN ? 0 : value > 0 ? .max : .min
    }
}

/// Standard base64 and base64url (RFC 4648 §5, no padding) encoding.
enum Base64Text {
    static func standard(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    static func url(_ bytes: [UInt8]) -> String {
        // Encoded from the bytes: walking Foundation's base64 text as Characters (grapheme
        // breaking per character) was an eighth of a demo's CPU.
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        let length = (bytes.count * 8 + 5) / 6
        return String(unsafeUninitializedCapacity: max(length, 1)) { output in
            var out = 0
            var index = 0
            while index + 3 <= bytes.count {
                let word = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                output[out] = table[Int(word >> 18)]
                output[out + 1] = table[Int(word >> 12 & 63)]
                output[out + 2] = table[Int(word >> 6 & 63)]
                output[out + 3] = table[Int(word & 63)]
                out += 4
                index += 3
            }
            let rest = bytes.count - index
            if rest > 0 {
                let word = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                output[out] = table[Int(word >> 18)]
                output[out + 1] = table[Int(word >> 12 & 63)]
                out += 2
                if rest == 2 {
                    output[out] = table[Int(word >> 6 & 63)]
                    out += 1
                }
            }
            return out
        }
    }
}
