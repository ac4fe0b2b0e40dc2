import Foundation
import ReceiptCore

/// What the console's `/` filter asks for, parsed from text such as
/// `1000000359369424`, `cust-0042 env:sandbox`, `status:conflict`, `verdict:invalid`.
///
/// Grammar (words separated by spaces; a word in double quotes may contain spaces):
///
///     filter     = word*
///     word       = qualifier ":" value | term
///     qualifier  = "env" | "status" | "verdict" | "since" | "offer" ; properties
///                | "operator" | "action" | "target"                ; audit entries
///                | "customer" | "order" | "tx" | "original" | "product" ; one id field, whole
///     term       = any other text: a row's own ids by prefix, case-insensitively, customers
///                  by a fragment of their name or email, related rows by a whole id
///                  (receipts also by `#N`); see `SearchTerms`
///
/// Every word must hold (AND). Every match is an index lookup or range.
public struct BrowseFilter: Sendable, Equatable {
    /// An id field a qualifier names.
    public enum Field: String, Sendable, CaseIterable {
        case customer, order, tx, original, product
    }

    /// Free terms: each matches any id field of the row.
    public var terms: [String] = []
    /// Field qualifiers (`customer:alice`), in the order written.
    public var fields: [FieldMatch] = []
    /// `env:`: the stored environment name ("Production", "Sandbox", "Xcode", "LocalTesting").
    public var environment: String?
    /// `status:`: conflict, open, resolved, paid, pending, failed, refunded, tester, mismatch,
    /// or an order binding (unbound, ambiguous, explicit, account-token, single-pending-order).
    public var status: String?
    /// `verdict:`: valid, invalid, unsigned, unverifiable.
    public var verdict: String?
    /// `offer:`: subscriptions by their offer as Apple last signed it (see `offers`).
    public var offer: String?
    /// `since:2024-01-01` (or a full RFC 3339 time): rows from that instant on (UTC midnight for a date).
    public var since: Date?
    /// Terms written like a qualifier whose name is none (`urn:x`): searched as text, and named
    /// when nothing matches ("urn: is not a qualifier").
    public var notQualifiers: [String] = []
    /// `operator:mei`, `action:grant`, `target:customer:alice` (audit entries; the target by prefix).
    public var auditOperator: String?
    public var auditAction: String?
    public var auditTarget: String?

    /// One `field:value` word.
    public struct FieldMatch: Sendable, Equatable {
        public let field: Field
        public let value: String

        public init(field: Field, value: String) {
            self.field = field
            self.value = value
        }
    }

    /// No filter.
    public init() {}

    /// Whether nothing is asked.
    public var isEmpty: Bool { terms.isEmpty && fields.isEmpty && environment == nil && status == nil && verdict == nil && since == nil
        && offer == nil
        && auditOperator == nil && auditAction == nil && auditTarget == nil }

    /// Every exact text the filter looks for (terms and field values), for highlighting matches.
    public var highlightTexts: [String] { terms + fields.map(\.value) }

    /// The environment values `env:` accepts and the stored name each means.
    public static let environments: [String: String] = [
        "production": "Production", "sandbox": "Sandbox", "xcode": "Xcode", "local": "LocalTesting", "localtesting": "LocalTesting",
    ]
    /// The `status:` values.
    public static let statuses: Set<String> = [
        "conflict", "open", "resolved", "paid", "pending", "failed", "refunded", "tester", "mismatch",
        "unbound", "ambiguous", "explicit", "account-token", "single-pending-order",
    ]
    /// The `offer:` values and the `subscription_states` condition each means: `winback` a win-back
    /// offer applied or offered (Apple names eligible win-back offers), the offer types, and the
    /// discount types.
    public static let offers: [String: String] = [
        "winback": "(offer_type = 4 OR eligible_win_back_offer_ids IS NOT NULL)",
        "intro": "offer_type = 1", "promotional": "offer_type = 2", "code": "offer_type = 3",
        "free-trial": "offer_discount_type = 'FREE_TRIAL'", "pay-as-you-go": "offer_discount_type = 'PAY_AS_YOU_GO'",
        "pay-up-front": "offer_discount_type = 'PAY_UP_FRONT'", "one-time": "offer_discount_type = 'ONE_TIME'",
    ]
    /// The `verdict:` values.
    public static let verdicts: Set<String> = ["valid", "invalid", "unsigned", "unverifiable"]

    /// The longest search accepted: ids and names are far shorter, and every word becomes a
    /// handful of index lookups.
    public static let maxLength = 512
    /// The most words one search may hold.
    public static let maxWords = 16

    /// Parses filter text; throws `StoreError(.invalidInput)` naming the word that is wrong.
    public init(parsing text: String) throws {
        guard text.utf8.count <= Self.maxLength else {
            throw StoreError(.invalidInput, "filter: \(text.utf8.count) bytes is longer than a search may be (\(Self.maxLength)): search by an id, a name or a part of them")
        }
        if let (position, scalar) = UnsafeText.firstUnsafe(text) {
            throw StoreError(.invalidInput, "filter: \(UnsafeText.describe(scalar)) at character \(position): a search holds no control, bidirectional or zero-width characters")
        }
        let words = try Self.words(text)
        guard words.count <= Self.maxWords else {
            throw StoreError(.invalidInput, "filter: \(words.count) words is more than a search may hold (\(Self.maxWords))")
        }
        for (word, quoted) in words {
            guard !quoted, let colon = word.firstIndex(of: ":"), colon != word.startIndex else {
                terms.append(word)
                continue
            }
            let name = word[..<colon].lowercased()
            let value = String(word[word.index(after: colon)...])
            guard !value.isEmpty else { throw StoreError(.invalidInput, "filter: '\(word)' needs a value after the colon") }
            switch name {
            case "env", "environment":
                guard let stored = Self.environments[value.lowercased()] else {
                    throw StoreError(.invalidInput, "filter: env:\(value) is not one of production, sandbox, xcode, local")
                }
                environment = stored
            case "status":
                guard Self.statuses.contains(value.lowercased()) else {
                    throw StoreError(.invalidInput, "filter: status:\(value) is not one of \(Self.statuses.sorted().joined(separator: ", "))")
                }
                status = value.lowercased()
            case "verdict":
                guard Self.verdicts.contains(value.lowercased()) else {
                    throw StoreError(.invalidInput, "filter: verdict:\(value) is not one of valid, invalid, unsigned, unverifiable")
                }
                verdict = value.lowercased()
            case "offer":
                let key = value.lowercased().replacingOccurrences(of: "_", with: "-")
                let alias = ["win-back": "winback", "introductory": "intro", "promo": "promotional", "offer-code": "code"][key] ?? key
                guard Self.offers[alias] != nil else {
                    throw StoreError(.invalidInput, "filter: offer:\(value) is not one of \(Self.offers.keys.sorted().joined(separator: ", "))")
                }
                offer = alias
            case "operator", "by": auditOperator = value
            case "action": auditAction = value.lowercased()
            case "target": auditTarget = value
            case "since":
                guard let date = Self.instant(value) else {
                    throw StoreError(.invalidInput, "filter: since:\(value) is not a date: write since:2024-01-01 or since:2024-01-01T12:00:00Z")
                }
                since = date
            default:
                let alias = ["transaction": "tx", "cust": "customer"][name] ?? name
                guard let field = Field(rawValue: alias) else {
                    // A misspelt qualifier (evn:) is refused; any other name is no qualifier, and
                    // ids may contain colons ("urn:x"), so it is a term (named when nothing matches).
                    if let meant = Self.qualifierMeant(name) {
                        throw StoreError(.invalidInput, "filter: '\(name):' is not a qualifier: did you mean \(meant):? "
                                         + "(qualifiers: \(Self.qualifierNames.joined(separator: ", ")); quote \"\(word)\" to search it as text)")
                    }
                    terms.append(word)
                    if name.allSatisfy(\.isLetter) { notQualifiers.append(name + ":") }
                    continue
                }
                fields.append(FieldMatch(field: field, value: value))
            }
        }
    }

    /// `2024-01-01` (UTC midnight) or an RFC 3339 time.
    static func instant(_ text: String) -> Date? {
        if let date = RFC3339.parse(text) { return date }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2 else { return nil }
        return RFC3339.parse(text + "T00:00:00Z")
    }

    /// Splits on spaces, keeping double-quoted words whole (and saying which began with a quote:
    /// such a word is always a term; `customer:"王 小明"` is a qualifier with a quoted value).
    static func words(_ text: String) throws -> [(String, quoted: Bool)] {
        var words: [(String, quoted: Bool)] = []
        var current = ""
        var quoted = false
        var hadQuotes = false
        var startsQuoted = false
        for character in text {
            if character == "\"" {
                if current.isEmpty && !hadQuotes { startsQuoted = true }
                quoted.toggle()
                hadQuotes = true
            } else if character.isWhitespace && !quoted {
                if !current.isEmpty || hadQuotes { words.append((current, startsQuoted)) }
                current = ""
                hadQuotes = false
                startsQuoted = false
            } else {
                current.append(character)
            }
        }
        guard !quoted else { throw StoreError(.invalidInput, "filter: a double quote is not closed") }
        if !current.isEmpty || hadQuotes { words.append((current, startsQuoted)) }
        return words.filter { !$0.0.isEmpty }
    }

    /// The filter written back as text (qualifiers after terms).
    public var text: String {
        func quote(_ s: String) -> String { s.contains(" ") ? "\"\(s)\"" : s }
        // A term with a colon is quoted unless it was written as one that is no qualifier (urn:x).
        func term(_ s: String) -> String {
            guard let colon = s.firstIndex(of: ":") else { return quote(s) }
            return notQualifiers.contains(String(s[...colon]).lowercased()) && !s.contains(" ") ? s : "\"\(s)\""
        }
        var words = terms.map(term) + fields.map { "\($0.field.rawValue):\(quote($0.value))" }
        if let environment {
            words.append("env:" + (Self.environments.first { $0.value == environment && $0.key != "localtesting" }?.key ?? environment))
        }
        if let status { words.append("status:" + status) }
        if let verdict { words.append("verdict:" + verdict) }
        if let offer { words.append("offer:" + offer) }
        if let auditOperator { words.append("operator:" + quote(auditOperator)) }
        if let auditAction { words.append("action:" + quote(auditAction)) }
        if let auditTarget { words.append("target:" + quote(auditTarget)) }
        if let since {
            let text = StoreDates.format(since)
            words.append("since:" + (text.hasSuffix("T00:00:00.000Z") ? String(text.prefix(10)) : RFC3339.format(since)))
        }
        return words.joined(separator: " ")
    }
}
