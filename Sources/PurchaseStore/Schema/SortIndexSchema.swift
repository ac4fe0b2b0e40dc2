/// Migration 0016: the indexes the console's column sorts walk (`BrowseSort`, `SortedWalk`),
/// each on (column, primary key), so a sorted list pages by keyset as cheaply as by its key:
/// customers by name and by when they were recorded, transactions by purchase date, expiry and
/// product, receipts by when they were received. Plain columns, not expressions: rows without a
/// value are a section of their own (`column IS NULL`), which both backends read as one range.
enum SortIndexSchema {
    static let migration = Migration("0016-list-sort-indexes") { _ in
        [
            "CREATE INDEX customers_by_name ON customers(display_name, customer_id)",
            "CREATE INDEX customers_by_created ON customers(created_at, customer_id)",
            "CREATE INDEX transactions_by_purchase ON transactions(purchase_date, transaction_id)",
            "CREATE INDEX transactions_by_expiry ON transactions(expires_date, transaction_id)",
            "CREATE INDEX transactions_by_product_key ON transactions(product_id, transaction_id)",
            "CREATE INDEX receipts_by_received ON receipts(imported_at, receipt_id)",
        ]
    }
}
