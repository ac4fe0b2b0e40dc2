import Foundation

/// "This column starts with this prefix", as a search lookup says it (`SearchTerms.keyPrefix`).
///
/// When the column is a list's own key and the key is ordered byte by byte, the values that
/// start with the prefix are one range of the key's own index, already in list order: a page of
/// them is a range scan from the cursor, however far from the list's start they sit. A folded
/// prefix (ids compare case-insensitively, ASCII letters only) is one range per way of writing
/// its letters in either case, at most `maxRanges` of them.
struct ColumnPrefix: Sendable {
    /// The column, qualified by its table.
    let column: String
    /// The prefix as compared: ASCII-folded when `folded`.
    let prefix: String
    /// Whether the column is compared folded to lower case (ASCII letters only).
    let folded: Bool

    /// The most ranges one prefix is read as (four letters): a longer broad prefix is gathered.
    static let maxRanges = 16

    /// The ranges `[low, high)` (high nil: no upper bound) of the column's own values whose
    /// (folded) form starts with the prefix, in code point order; nil past `maxRanges`.
    var ranges: [(low: String, high: String?)]? {
        var writings = [""]
        for scalar in prefix.unicodeScalars {
            // A letter folded to lower case was written either way: the upper case sorts first.
            let cases: [Unicode.Scalar] = folded && ("a"..."z").contains(scalar) ? [Unicode.Scalar(scalar.value - 32) ?? scalar, scalar] : [scalar]
            guard writings.count * cases.count <= Self.maxRanges else { return nil }
            writings = writings.flatMap { written in cases.map { written + String($0) } }
        }
        return writings.map { ($0, SearchTerms.upperBound($0)) }
    }
}
