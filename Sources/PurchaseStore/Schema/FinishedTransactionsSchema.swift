/// Migration 0011: that a transaction was finished at Apple (Finish Transaction, App Store
/// Server API 1.20), when and by whom: `finished_at` (RFC 3339, the ledger's clock when Apple
/// answered 200) and `finished_by` (the operator, or the service that finished it on delivery).
/// Both NULL until it is finished; set once, never cleared (Apple has no "unfinish").
enum FinishedTransactionsSchema {
    static let migration = Migration("0011-transactions-finished-at-apple") { _ in
        [
            "ALTER TABLE transactions ADD COLUMN finished_at TEXT",
            "ALTER TABLE transactions ADD COLUMN finished_by TEXT",
        ]
    }
}
