/// A property-list value as an OpenStep (NeXTSTEP) ASCII plist writes it:
///
///     value      = string | data | array | dictionary
///     string     = '"' chars '"' | "'" chars "'" | [A-Za-z0-9_$+/:.-]+
///     data       = '<' { hex hex } '>'
///     array      = '(' [ value { ',' value } [ ',' ] ] ')'
///     dictionary = '{' { string '=' value ';' } '}'
///
/// Dictionaries keep their entries in the order written, because a receipt's key order is part of
/// what a support person should see (and keys are unique: the parser rejects duplicates).
public enum PlistValue: Sendable, Equatable {
    /// Quoted or unquoted text, escapes undone.
    case string(String)
    /// `<0a0b…>` bytes.
    case data([UInt8])
    /// `( a, b )` elements in order.
    case array([PlistValue])
    /// `{ k = v; }` entries in the order written.
    case dictionary([PlistEntry])

    /// Parses an OpenStep ASCII plist (see `OpenStepPlist` for limits and errors).
    /// `context` goes in front of every error message ("legacy receipt").
    public init(openStep bytes: [UInt8], context: String = "") throws {
        self = try OpenStepPlist.parse(bytes, context: context)
    }

    /// The text, when this is a string.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The entries in order, when this is a dictionary.
    public var entries: [PlistEntry]? {
        if case .dictionary(let entries) = self { return entries }
        return nil
    }

    /// The value for `key`, when this is a dictionary that has it.
    public subscript(key: String) -> PlistValue? {
        entries?.first { $0.key == key }?.value
    }

    /// "a string", "data", "an array" or "a dictionary", for messages.
    public var kindName: String {
        switch self {
        case .string: return "a string"
        case .data: return "data"
        case .array: return "an array"
        case .dictionary: return "a dictionary"
        }
    }

    /// A one-line rendering for display: strings as they are, containers summarised.
    public var displayText: String {
        switch self {
        case .string(let text): return text
        case .data(let bytes): return "<\(bytes.count) bytes>"
        case .array(let items): return "(\(items.count) elements)"
        case .dictionary(let entries): return "{\(entries.count) keys}"
        }
    }
}

/// One `key = value;` of a plist dictionary.
public struct PlistEntry: Sendable, Equatable {
    /// The key as written, escapes undone.
    public let key: String
    /// The value.
    public let value: PlistValue

    /// Creates an entry.
    public init(key: String, value: PlistValue) {
        self.key = key
        self.value = value
    }
}
