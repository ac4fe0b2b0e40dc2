import Foundation

/// A search term's prefix match on a list's own key, as ranges of that key (SQLite).
///
/// The term matches ids case-insensitively (`lower(customer_id)`), so its matches are not one
/// range of the key: `cust-2…`, `Cust-2…` and `CUST-2…` each are one. Read through the folded
/// index and sorted, a prefix shared by a tenth of a large shop's customers (`cust-2` among
/// 1,150,000) cost every page a sort of 100,000 ids; walked in key order instead, the walk spent
/// its budget on the ids that sort before them and showed an empty first page. Each case
/// variant of the prefix that some key starts with is a range of the primary key, which SQLite
/// reads in key order from the cursor and stops after a page, wherever the range lies.
extension Browser {
    /// The most existence probes a prefix may take (two per letter whose both cases exist).
    static let keyPrefixProbeLimit = 64

    /// The ranges of `query`'s key that start with a case variant of `prefix` (ASCII letters in
    /// either case, as `SearchTerms.fold` folds them) present in the list: found letter by
    /// letter, keeping only the variants some key starts with. Nil when that takes more than
    /// `keyPrefixProbeLimit` probes (then the folded lookup stays); empty when no key starts
    /// with any (then too).
    func keyPrefixRanges(_ query: BrowseQuery, _ prefix: String) throws -> [SQLCondition]? {
        var stems = [""]
        var probes = 0
        for scalar in prefix.unicodeScalars {
            let isLetter = (0x61...0x7A).contains(scalar.value)
            let cases = isLetter ? [scalar, Unicode.Scalar(scalar.value - 32)!] : [scalar]
            var next = stems.flatMap { stem in cases.map { stem + String($0) } }
            if isLetter {
                probes += next.count
                guard probes <= Self.keyPrefixProbeLimit else { return nil }
                next = try next.filter { try keyStarts(with: $0, query) }
                if next.isEmpty { return [] }
            }
            stems = next
        }
        // A prefix without letters was not looked for yet.
        if !prefix.unicodeScalars.contains(where: { (0x61...0x7A).contains($0.value) }) {
            stems = try stems.filter { try keyStarts(with: $0, query) }
        }
        return stems.map { SearchTerms.prefix(query.key, $0) }
    }

    /// Whether some key of `query`'s list starts with `stem` (one seek of the key's index).
    private func keyStarts(with stem: String, _ query: BrowseQuery) throws -> Bool {
        let range = SearchTerms.prefix(query.key, stem)
        return try database.queryFirst("SELECT 1 AS found FROM \(query.tableName) WHERE \(range.sql) LIMIT 1", range.parameters) != nil
    }
}
