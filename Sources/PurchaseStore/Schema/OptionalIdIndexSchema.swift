/// Migration 0022: the indexes on identifiers a transaction or receipt may lack hold only the
/// rows that have one (partial indexes, `WHERE column IS NOT NULL`): the merchant order (bound
/// only when the merchant created one), the app account token (only when the app sets it), the
/// web order line item (subscriptions only) and the app transaction id (newer StoreKit only).
///
/// Every lookup through them names a value, so a row without one could never be found there;
/// yet each such row cost an index entry, written with the row on every import and kept for
/// good. On the bench's ten million transactions no transaction carries a token or an app
/// transaction id and one in six an order. Lookups name the column with `=`, `IN` or a join,
/// which both planners take as "not null"; the folded token is compared through `lower()`,
/// which SQLite does not see through, so those lookups say `IS NOT NULL` themselves
/// (`SearchTerms`, `SearchReason`).
enum OptionalIdIndexSchema {
    static let migration = Migration("0022-optional-id-indexes-partial") { dialect in
        [
            "DROP INDEX transactions_by_order",
            "CREATE INDEX transactions_by_order ON transactions(order_id) WHERE order_id IS NOT NULL",
            "DROP INDEX transactions_by_folded_token",
            "CREATE INDEX transactions_by_folded_token ON transactions ((\(dialect.folded("app_account_token")))) WHERE app_account_token IS NOT NULL",
            "DROP INDEX transactions_by_web_order",
            "CREATE INDEX transactions_by_web_order ON transactions (web_order_line_item_id) WHERE web_order_line_item_id IS NOT NULL",
            "DROP INDEX transactions_by_app_transaction",
            "CREATE INDEX transactions_by_app_transaction ON transactions(app_transaction_id) WHERE app_transaction_id IS NOT NULL",
            "DROP INDEX receipts_by_app_transaction",
            "CREATE INDEX receipts_by_app_transaction ON receipts(app_transaction_id) WHERE app_transaction_id IS NOT NULL",
        ]
    }
}
