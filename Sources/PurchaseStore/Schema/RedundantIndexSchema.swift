/// Migration 0020: drops `transactions_by_product` (product id alone), which
/// `transactions_by_product_key` (product id, then transaction id; migration 0016) has made
/// redundant: every read by product id goes through the longer key as well, and each
/// transaction written paid for both (one of twelve indexes on the table; 27.5 MB per million
/// transactions at ten million).
enum RedundantIndexSchema {
    static let migration = Migration("0020-drop-transactions-by-product") { _ in
        ["DROP INDEX transactions_by_product"]
    }
}
