import Foundation

/// The column a list is sorted by and which way. Every list sorts by its own key (`id`: the
/// primary key, oldest first, the audit log newest first); some also by a column of their own,
/// each walked as a keyset on (column, key) over an index of migration 0016 (`SortIndexSchema`),
/// so a page costs the same anywhere in a million rows, on SQLite and PostgreSQL alike.
///
/// Rows without a value (no name, no expiry) come after every row with one, in either
/// direction, ordered by their key in the same direction (see `SortedWalk`).
public struct BrowseSort: Sendable, Hashable, CustomStringConvertible {
    /// A sortable column, by the name `:sort` takes.
    public enum Column: String, Sendable, CaseIterable {
        case id, name, created, purchased, expires, product, received
    }

    public var column: Column
    /// True: largest (newest, Z) first (▼); false: smallest first (▲).
    public var descending: Bool

    public init(_ column: Column, descending: Bool) {
        self.column = column
        self.descending = descending
    }

    /// The list's own order: by its key, oldest first (the audit log newest first).
    public static func own(_ table: BrowseTable) -> BrowseSort { BrowseSort(.id, descending: table.newestFirst) }

    /// The columns `table` sorts by, its key first.
    public static func columns(_ table: BrowseTable) -> [Column] {
        switch table {
        case .customers: return [.id, .name, .created]
        case .transactions: return [.id, .purchased, .expires, .product]
        case .receipts: return [.id, .received]
        case .orders, .conflicts, .audit: return [.id]
        }
    }

    /// `column` in the direction it first sorts: dates newest first, text from A, the key as
    /// the list's own order.
    public static func starting(_ column: Column, on table: BrowseTable) -> BrowseSort {
        switch column {
        case .id: return own(table)
        case .name, .product: return BrowseSort(column, descending: false)
        case .created, .purchased, .expires, .received: return BrowseSort(column, descending: true)
        }
    }

    /// ▼ largest first, ▲ smallest first.
    public var mark: String { descending ? "▼" : "▲" }

    /// "name ▲".
    public var description: String { "\(column.rawValue) \(mark)" }

    /// The SQL column of `table` this sort reads (nil: the key, or a column `table` does not sort by).
    func sqlColumn(_ table: BrowseTable) -> String? {
        switch (table, column) {
        case (.customers, .name): return "display_name"
        case (.customers, .created): return "created_at"
        case (.transactions, .purchased): return "purchase_date"
        case (.transactions, .expires): return "expires_date"
        case (.transactions, .product): return "product_id"
        case (.receipts, .received): return "imported_at"
        default: return nil
        }
    }

    /// Whether the column may be NULL (then its rows without a value are walked as a section of
    /// their own, after the others).
    func nullable(_ table: BrowseTable) -> Bool { sqlColumn(table).map { Self.nullable(table, column: $0) } ?? false }

    /// Whether `column` of `table` may be NULL (display names, purchase and expiry dates).
    static func nullable(_ table: BrowseTable, column: String) -> Bool {
        ["customers.display_name", "transactions.purchase_date", "transactions.expires_date"].contains("\(table.rawValue).\(column)")
    }

    /// The most characters `init(parsing:table:)` reads.
    public static let maxTextLength = 64

    /// `COLUMN [asc|desc]` (also `up`/`down`, `▲`/`▼`) for `table`; without a direction, the
    /// column's own (`starting`). Throws `StoreError(.invalidInput)` naming what is wrong.
    public init(parsing text: String, table: BrowseTable) throws {
        guard text.count <= Self.maxTextLength else {
            throw StoreError(.invalidInput, "sort: \(text.count) characters is longer than COLUMN [asc|desc] can be (\(Self.maxTextLength))")
        }
        let words = text.split(whereSeparator: \.isWhitespace).map { $0.lowercased() }
        let allowed = Self.columns(table).map(\.rawValue).joined(separator: ", ")
        guard let first = words.first, words.count <= 2 else {
            throw StoreError(.invalidInput, "sort: write :sort COLUMN [asc|desc]; \(table.rows) sort by \(allowed)")
        }
        guard let column = Column(rawValue: first), Self.columns(table).contains(column) else {
            throw StoreError(.invalidInput, "sort: \(table.rows) do not sort by '\(first)'; they sort by \(allowed)")
        }
        var sort = Self.starting(column, on: table)
        if words.count == 2 {
            switch words[1] {
            case "asc", "ascending", "up", "▲": sort.descending = false
            case "desc", "descending", "down", "▼": sort.descending = true
            default: throw StoreError(.invalidInput, "sort: '\(words[1])' is not a direction: write asc or desc")
            }
        }
        self = sort
    }
}
