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
        var text = ""
        text.reserveCapacity(bytes.count * 4 / 3 + 2)
        for character in standard(bytes) {
            switch character {
            case "+": text.append("-")
            case "/": text.append("_")
            case "=": continue
            default: text.append(character)
            }
        }
        return text
    }
}
