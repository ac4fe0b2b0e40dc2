import Foundation

/// The key a list is ordered and paged by: the table's own primary key, which both backends
/// have and index (`customer_id`, `order_id`, `transaction_id` are text; `receipt_id`,
/// `conflict_id` and the audit log's `seq` are integers).
///
/// Keys of one list are all of one kind. Text keys compare by their UTF-8 bytes: SQLite's
/// `BINARY` collation. PostgreSQL orders them by the database's collation, so `Browser` lets
/// PostgreSQL do every comparison that decides a page (see `Browser.page`).
public enum BrowseKey: Sendable, Hashable, Comparable, CustomStringConvertible,
                       ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
    case integer(Int64)
    case text(String)

    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(stringLiteral value: String) { self = .text(value) }

    /// The key as a bound SQL value.
    public var sqlValue: SQLValue {
        switch self {
        case .integer(let number): return .integer(number)
        case .text(let text): return .text(text)
        }
    }

    /// The number, for integer keys.
    public var integer: Int64? {
        if case .integer(let number) = self { return number }
        return nil
    }

    /// `#812` for numbered rows, the id itself for text keys.
    public var description: String {
        switch self {
        case .integer(let number): return "#\(number)"
        case .text(let text): return text
        }
    }

    public static func < (a: BrowseKey, b: BrowseKey) -> Bool {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y
        case (.text(let x), .text(let y)): return x.utf8.lexicographicallyPrecedes(y.utf8)
        case (.integer, .text): return true
        case (.text, .integer): return false
        }
    }

    /// The key column of a row read with `browse_key`: text or integer as the table's key is.
    static func read(_ row: SQLRow, textual: Bool) -> BrowseKey {
        textual ? .text(row.string("browse_key") ?? "") : .integer(row.int("browse_key") ?? 0)
    }
}
