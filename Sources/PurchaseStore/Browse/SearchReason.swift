import Foundation

/// Why a customer row matched a search when it was not by their own id, name or email: one of
/// their related ids equals a search word (`via txn 2000000123456789`).
public struct SearchReason: Sendable, Equatable {
    /// The related id that matched.
    public enum Kind: String, Sendable, CaseIterable {
        case transaction, originalTransaction, webOrderLineItem, appAccountToken, order, appleOrder, appTransaction

        /// How the list names it ("txn", "order").
        public var label: String {
            switch self {
            case .transaction: return "txn"
            case .originalTransaction: return "original txn"
            case .webOrderLineItem: return "web order line"
            case .appAccountToken: return "token"
            case .order: return "order"
            case .appleOrder: return "Apple order"
            case .appTransaction: return "app txn"
            }
        }
    }

    public let kind: Kind
    /// The value as stored (a token or order id in its own case).
    public let value: String

    public init(kind: Kind, value: String) {
        self.kind = kind
        self.value = value
    }

    /// "via txn 2000000123456789".
    public var text: String { "via \(kind.label) \(value)" }
}

/// The reasons of one page of customers, read in one statement: for each search word, the
/// related-id lookups `SearchTerms.alternatives(.customers, …)` finds customers by (the same
/// columns, compared the same way), limited to the page's customers.
enum SearchReasons {
    /// The first reason found for each of `customers` (in `Kind` order, then word order).
    static func lookup(_ filter: BrowseFilter, customers: [String], database: SQLDatabase) throws -> [String: SearchReason] {
        guard !customers.isEmpty else { return [:] }
        let dialect = database.dialect
        var words: [(kinds: [SearchReason.Kind], value: String)] = filter.terms.map { (SearchReason.Kind.allCases, $0) }
        for field in filter.fields {
            switch field.field {
            case .tx: words.append(([.transaction], field.value))
            case .original: words.append(([.originalTransaction], field.value))
            case .order: words.append(([.order], field.value))
            case .customer, .product: break
            }
        }
        let marks = SQLDialect.placeholders(customers.count)
        let ids = customers.map { SQLValue.text($0) }
        var selects: [String] = []
        var parameters: [SQLValue] = []
        for (rank, word) in words.enumerated() {
            for kind in word.kinds {
                let (sql, values) = select(kind, word.value, dialect)
                selects.append("SELECT customer_id, '\(kind.rawValue)' AS kind, matched, \(rank) AS word FROM (\(sql)) AS r\(selects.count) WHERE customer_id IN (\(marks))")
                parameters += values + ids
            }
        }
        guard !selects.isEmpty else { return [:] }
        var reasons: [String: (SearchReason, Int)] = [:]
        for row in try database.query(selects.joined(separator: " UNION ALL "), parameters) {
            guard let customer = row.string("customer_id"), let raw = row.string("kind"), let kind = SearchReason.Kind(rawValue: raw),
                  let value = row.string("matched") else { continue }
            let order = (SearchReason.Kind.allCases.firstIndex(of: kind) ?? 0) * 100 + Int(row.int("word") ?? 0)
            if let known = reasons[customer], known.1 <= order { continue }
            reasons[customer] = (SearchReason(kind: kind, value: value), order)
        }
        return reasons.mapValues(\.0)
    }

    /// The customers `term` finds through `kind`, with the value that matched (`customer_id`, `matched`).
    static func select(_ kind: SearchReason.Kind, _ term: String, _ dialect: SQLDialect) -> (String, [SQLValue]) {
        let raw = SQLValue.text(term)
        let lower = SQLValue.text(SearchTerms.fold(term))
        switch kind {
        case .transaction: return ("SELECT customer_id, transaction_id AS matched FROM transactions WHERE transaction_id = ?", [raw])
        case .originalTransaction:
            return ("SELECT customer_id, original_transaction_id AS matched FROM transactions WHERE original_transaction_id = ?", [raw])
        case .webOrderLineItem:
            return ("SELECT customer_id, web_order_line_item_id AS matched FROM transactions WHERE web_order_line_item_id = ?", [raw])
        case .appAccountToken:
            return ("""
                SELECT customer_id, app_account_token AS matched FROM transactions WHERE app_account_token IS NOT NULL AND \(dialect.folded("app_account_token")) = ? \
                UNION SELECT customer_id, app_account_token AS matched FROM orders WHERE \(dialect.folded("app_account_token")) = ?
                """, [lower, lower])
        case .order: return ("SELECT customer_id, order_id AS matched FROM orders WHERE \(dialect.folded("order_id")) = ?", [lower])
        case .appleOrder:
            return ("""
                SELECT t.customer_id, a.apple_order_id AS matched FROM apple_orders a JOIN transactions t ON t.transaction_id = a.transaction_id \
                WHERE \(dialect.folded("a.apple_order_id")) = ?
                """, [lower])
        case .appTransaction:
            return ("""
                SELECT customer_id, app_transaction_id AS matched FROM transactions WHERE app_transaction_id = ? \
                UNION SELECT customer_id, app_transaction_id AS matched FROM receipts WHERE app_transaction_id = ? AND customer_id IS NOT NULL
                """, [raw, raw])
        }
    }
}
