import Foundation

/// One JSON value of a config file together with its key path ("products.coins.100.type"), with
/// strict typed accessors: unlike `JSONObject`, nothing is coerced (a "true" string is not a
/// boolean, a quoted number is not a number), because a config typo must fail, not change meaning.
///
/// Every error is one line: `config <source>: <key path>: <reason>`.
struct ConfigValue {
    /// JSONSerialization output (immutable Foundation values).
    let raw: Any
    /// Dotted key path, with `[i]` for array elements; empty for the whole document.
    let path: String
    /// The file the config came from, for messages.
    let source: String

    /// A configuration error located at this value.
    func error(_ reason: String) -> ReceiptError {
        ConfigValue.error(source: source, path: path, reason)
    }

    /// A configuration error at `path` of `source` (the whole file when `path` is empty).
    static func error(source: String, path: String, _ reason: String) -> ReceiptError {
        let location = path.isEmpty ? "" : ConfigText.oneLine(path) + ": "
        return ReceiptError(.configuration, "config \(ConfigText.oneLine(source)): \(location)\(ConfigText.oneLine(reason))")
    }

    /// The path of member `key` below `path`.
    static func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : path + "." + key
    }

    /// What kind of JSON value `raw` is, for "expected …, found …" messages.
    var kind: String {
        switch raw {
        case is NSNull: return "null"
        case is String: return "a string"
        case let number as NSNumber: return JSONObject.isBool(number) ? "true/false" : "a number"
        case is [String: Any]: return "an object"
        case is [Any]: return "an array"
        default: return "an unknown value"
        }
    }

    func object() throws -> ConfigObject {
        guard let members = raw as? [String: Any] else { throw error("expected an object, found \(kind)") }
        return ConfigObject(members: members, path: path, source: source)
    }

    func array() throws -> [ConfigValue] {
        guard let elements = raw as? [Any] else { throw error("expected an array, found \(kind)") }
        return elements.enumerated().map { ConfigValue(raw: $1, path: "\(path)[\($0)]", source: source) }
    }

    func string() throws -> String {
        guard let text = raw as? String else { throw error("expected a string, found \(kind)") }
        return text
    }

    func bool() throws -> Bool {
        guard let number = raw as? NSNumber, JSONObject.isBool(number) else {
            throw error("expected true or false, found \(kind)")
        }
        return number.boolValue
    }

    /// A whole JSON number in `range`.
    func integer(in range: ClosedRange<Int64>) throws -> Int64 {
        guard let number = raw as? NSNumber, !JSONObject.isBool(number) else {
            throw error("expected a whole number, found \(kind)")
        }
        let double = number.doubleValue
        guard double.isFinite, double.rounded() == double, abs(double) < 9.2e18 else {
            throw error("\(number) is not a whole number")
        }
        let value = number.int64Value
        guard range.contains(value) else { throw error("\(value) is out of range \(range.lowerBound)...\(range.upperBound)") }
        return value
    }

    /// A string naming something (an entitlement, a product, a bundle id): not empty, no control
    /// characters, no leading or trailing white space (which would silently never match).
    func name(what: String) throws -> String {
        let text = try string()
        guard !text.isEmpty else { throw error("\(what) must not be empty") }
        guard !text.unicodeScalars.contains(where: ConfigText.breaksLine) else {
            throw error("\(what) \(ConfigText.quoted(text)) contains a control character or line break")
        }
        guard text.trimmingCharacters(in: .whitespacesAndNewlines) == text else {
            throw error("\(what) \(ConfigText.quoted(text)) has leading or trailing white space")
        }
        return text
    }
}

/// A JSON object of a config file, with its key path.
struct ConfigObject {
    let members: [String: Any]
    let path: String
    let source: String

    /// Member keys in a fixed order, so the first error reported does not depend on hashing.
    var keys: [String] { members.keys.sorted() }

    /// Member `key`; nil when absent or null (null means "not given").
    subscript(key: String) -> ConfigValue? {
        guard let value = members[key], !(value is NSNull) else { return nil }
        return ConfigValue(raw: value, path: ConfigValue.join(path, key), source: source)
    }

    /// A configuration error located at this object.
    func error(_ reason: String) -> ReceiptError {
        ConfigValue.error(source: source, path: path, reason)
    }

    /// Refuses inline secrets and keys that are neither `known` nor `ignored`. `known` is in
    /// the order the message lists them.
    func checkKeys(known: [String], ignored: Set<String> = []) throws {
        for key in keys {
            let value = ConfigValue(raw: members[key] ?? NSNull(), path: ConfigValue.join(path, key), source: source)
            try ConfigSecrets.refuseInline(key: key, value: value)
            guard !known.contains(key), !ignored.contains(key) else { continue }
            var reason = "unknown key"
            if let guess = ConfigText.closest(to: key, among: known) { reason += " (did you mean '\(guess)'?)" }
            reason += "; known keys here: " + known.joined(separator: ", ")
            throw value.error(reason)
        }
    }
}

/// Text helpers that keep config errors on one line and short.
enum ConfigText {
    /// Whether `scalar` is a control character or a line or paragraph separator.
    static func breaksLine(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    /// `text` with control characters and line separators written as `\u{…}`, so a message
    /// stays one line.
    static func oneLine(_ text: String) -> String {
        // Printable ASCII needs no work (the common case, and on every entitlement reason).
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if breaksLine(scalar) {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `text` in single quotes, at most 60 characters of it.
    static func quoted(_ text: String) -> String {
        let short = text.count > 60 ? String(text.prefix(60)) + "…" : text
        return "'" + oneLine(short) + "'"
    }

    /// The candidate within two edits of `key` (ignoring case), if exactly one is closest.
    static func closest(to key: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(key.lowercased(), $0.lowercased())) }
        guard let best = scored.map(\.1).min(), best <= 2 else { return nil }
        let winners = scored.filter { $0.1 == best }
        return winners.count == 1 ? winners[0].0 : nil
    }

    /// Levenshtein distance, for short key names only.
    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars.prefix(64)), b = Array(b.unicodeScalars.prefix(64))
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
