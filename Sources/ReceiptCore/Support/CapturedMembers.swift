import Foundation

/// The names of top-level members a decoder reads, kept typed by `PlainJSON.members`: a decoder
/// then reads them by position, without building the object, hashing a name or casting from
/// `Any` for each. Found by a small open-addressed table over the name's bytes.
struct KnownMembers: Sendable {
    /// The names, by position.
    let names: [String]
    private let bytes: [[UInt8]]
    /// Slots of `table` hold a name's position + 1, or 0 when empty.
    private let table: [UInt8]
    private static let tableSize = 128

    init(_ names: [String]) {
        precondition(names.count < 64, "KnownMembers: at most 63 names")
        // PlainJSON matches a name's bytes as written, without escapes: plain ASCII only.
        precondition(names.allSatisfy { name in !name.isEmpty && name.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C } },
                     "KnownMembers: names are non-empty printable ASCII without '\"' or '\\'")
        self.names = names
        bytes = names.map { Array($0.utf8) }
        var table = [UInt8](repeating: 0, count: Self.tableSize)
        for (position, name) in bytes.enumerated() {
            var slot = name.withUnsafeBufferPointer(Self.hash)
            while table[slot] != 0 { slot = (slot + 1) & (Self.tableSize - 1) }
            table[slot] = UInt8(position + 1)
        }
        self.table = table
    }

    private static func hash(_ name: UnsafeBufferPointer<UInt8>) -> Int {
        guard let first = name.first, let last = name.last else { return 0 }
        let middle = name[name.count / 2]
        return (name.count &* 37 &+ Int(first) &* 11 &+ Int(last) &* 5 &+ Int(middle)) & (tableSize - 1)
    }

    /// The position of the name whose bytes are exactly `name`, if known.
    func position(of name: UnsafeBufferPointer<UInt8>) -> Int? {
        var slot = Self.hash(name)
        while true {
            let entry = Int(table[slot])
            guard entry != 0 else { return nil }
            let known = bytes[entry - 1]
            if known.count == name.count, let asked = name.baseAddress,
               known.withUnsafeBufferPointer({ $0.baseAddress.map { memcmp($0, asked, name.count) == 0 } ?? false }) {
                return entry - 1
            }
            slot = (slot + 1) & (Self.tableSize - 1)
        }
    }
}

/// A known top-level member as `PlainJSON` read it.
enum PlainMember: Equatable {
    /// Not in the object.
    case absent
    case null
    case string(String)
    /// An integer of at most 18 digits.
    case int(Int)
    /// A boolean, array or object: left to `JSONObject`'s accessors.
    case other
}

/// A parsed JSON object, or plain JSON text whose object is built the first time it is asked
/// for (a decoder that kept the members it reads typed may never need the rest).
final class DeferredJSONObject: @unchecked Sendable {
    // `built` is read and written under `lock`; `bytes` and `what` never change.
    private let bytes: [UInt8]
    private let what: String
    private let lock = NSLock()
    private var built: JSONObject?

    /// An object already built.
    init(_ object: JSONObject) {
        (bytes, what, built) = ([], object.what, object)
    }

    /// Text `PlainJSON.members` accepted: `PlainJSON.object` reads it to the same object.
    init(plain bytes: [UInt8], what: String) {
        (self.bytes, self.what) = (bytes, what)
    }

    /// The object, built now if it was not.
    var object: JSONObject {
        lock.lock()
        defer { lock.unlock() }
        if let built { return built }
        // PlainJSON accepted this text once and reads it the same way again; JSONSerialization
        // would read plain text to the very same values, should it ever not.
        let made = PlainJSON.object(bytes).map { JSONObject($0, what: what) }
            ?? (try? JSONObject(parsingWithFoundation: bytes, what: what)) ?? JSONObject([:], what: what)
        built = made
        return made
    }
}

/// Reads a decoder's known members from what `PlainJSON` kept, and otherwise from the object
/// through `JSONObject`'s accessors. Every value or error is the accessor's: anything but a
/// plainly accepted string, integer or null is handed to the accessor itself.
struct CapturedMembers {
    /// The whole object, built only if asked for (when the text was plain JSON).
    let deferred: DeferredJSONObject
    let known: KnownMembers
    /// nil when the text was not plain JSON (every member is then read from the object).
    let members: [PlainMember]?

    /// Parses `bytes` as `JSONObject(parsing:what:)` does, keeping `known`'s members typed; the
    /// whole object is built only when something asks for it.
    init(parsing bytes: [UInt8], what: String, known: KnownMembers) throws {
        self.known = known
        if let members = PlainJSON.members(bytes, capturing: known) {
            deferred = DeferredJSONObject(plain: bytes, what: what)
            self.members = members
        } else {
            deferred = DeferredJSONObject(try JSONObject(parsingWithFoundation: bytes, what: what))  // PlainJSON already said no
            members = nil
        }
    }

    /// Reads everything from `object`.
    init(object: JSONObject, known: KnownMembers) {
        deferred = DeferredJSONObject(object)
        self.known = known
        members = nil
    }

    /// The whole object.
    var object: JSONObject { deferred.object }

    /// As `JSONObject.string(_:)` for the member at `position`.
    func string(_ position: Int) throws -> String? {
        switch members?[position] {
        case .absent?, .null?: return nil
        case let .string(text)?: return text
        // An NSNumber of at most 18 digits is written out as its Int64 value.
        case let .int(value)?: return String(value)
        case .other?, nil: return try object.string(known.names[position])
        }
    }

    /// As `JSONObject.int(_:)` for the member at `position`.
    func int(_ position: Int) throws -> Int64? {
        switch members?[position] {
        case .absent?, .null?: return nil
        case let .int(value)?: return Int64(value)
        case let .string(text)?: if let value = Int64(text) { return value }
        case .other?, nil: break
        }
        return try object.int(known.names[position])
    }

    /// As `JSONObject.millisecondsDate(_:)` for the member at `position`.
    func millisecondsDate(_ position: Int) throws -> Date? {
        switch members?[position] {
        case .absent?, .null?: return nil
        // Below 2^53 every Int is a Double exactly, as NSNumber's doubleValue gives it.
        case let .int(value)? where value.magnitude < 1 << 53:
            let ms = Double(value)
            if RFC3339.isStorableMilliseconds(ms) { return RFC3339.fromMilliseconds(ms) }
        case let .string(text)?:
            if let ms = Double(text), RFC3339.isStorableMilliseconds(ms) { return RFC3339.fromMilliseconds(ms) }
        case .int?, .other?, nil: break
        }
        return try object.millisecondsDate(known.names[position])
    }

    /// As `JSONObject.bool(_:)` for the member at `position`.
    func bool(_ position: Int) throws -> Bool? {
        switch members?[position] {
        case .absent?, .null?: return nil
        default: return try object.bool(known.names[position])
        }
    }

    /// As `JSONObject.object(_:)` for the member at `position` (the whole object is built only
    /// when the member is there).
    func object(_ position: Int) throws -> JSONObject? {
        switch members?[position] {
        case .absent?, .null?: return nil
        default: return try object.object(known.names[position])
        }
    }
}
