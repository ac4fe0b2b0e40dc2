import Foundation

/// The rule that secrets (the shared secret, the .p8 key, passwords) come from a file or the
/// environment and never sit in the config: a key whose name has the word "secret", "password"
/// or "key" in it (`sharedSecret`, `api_key`, `PrivateKey`; not `monkey`) may not hold a value inline.
///
/// A name ending in "File", "Path" or "Env" says where the secret lives rather than holding it
/// ("sharedSecretFile": "/etc/receiptdesk/secret", "privateKeyEnv": "RD_P8"), so it is allowed.
/// Null counts as not given; an object is searched inside. The value is never echoed in the error.
enum ConfigSecrets {
    static let secretWords = ["secret", "password", "key"]
    static let referenceSuffixes = ["file", "path", "env"]
    /// Identifiers of a key, not the key: the App Store Connect key id is printed on Apple's site.
    static let identifierNames: Set<String> = ["keyid"]

    /// Whether a key of this name must not hold an inline value.
    static func isSecretName(_ key: String) -> Bool {
        let lower = key.lowercased()
        guard !identifierNames.contains(lower) else { return false }
        let parts = words(key)
        guard parts.contains(where: secretWords.contains) else { return false }
        return !referenceSuffixes.contains(where: { parts.last == $0 })
    }

    /// The words of a camelCase, snake_case or kebab-case name, lower-cased:
    /// "privateKeyFile" → private, key, file; "API_KEY" → api, key.
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousLower = false
        for character in name {
            if !(character.isLetter || character.isNumber) {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousLower = false
                continue
            }
            if character.isUppercase && previousLower && !current.isEmpty {
                words.append(current)
                current = ""
            }
            current += character.lowercased()
            previousLower = character.isLowercase || character.isNumber
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// Refuses member `key` when its name says secret and it holds an inline value.
    static func refuseInline(key: String, value: ConfigValue) throws {
        guard isSecretName(key) else { return }
        switch value.raw {
        case is NSNull, is [String: Any]: return
        default:
            throw value.error("holds an inline secret; secrets come from a file or the environment, never the config")
        }
    }

    /// Searches a section the parser does not read (a reserved top-level key) for inline secrets
    /// at any depth, through objects and arrays.
    static func scan(_ value: ConfigValue, depth: Int = 0) throws {
        guard depth < JSONObject.maxDepth else { return }
        switch value.raw {
        case let members as [String: Any]:
            for key in members.keys.sorted() {
                let child = ConfigValue(raw: members[key] ?? NSNull(), path: ConfigValue.join(value.path, key), source: value.source)
                try refuseInline(key: key, value: child)
                try scan(child, depth: depth + 1)
            }
        case is [Any]:
            for element in try value.array() { try scan(element, depth: depth + 1) }
        default:
            return
        }
    }
}
