/// Migration 0019: a customer's receipts and transactions indexed with their environments
/// (`receipts_by_customer` on (customer, receipt, environment, Apple's environment),
/// `transactions_by_customer` on (customer, purchase date, environment)), so the customers list's
/// environment flags and mismatch mark (`ListRowLookups.customerColumns`) read indexes only: a
/// receipt's row carries its raw bytes and decoded tree (2 KB, a page each), and at ten million
/// transactions reading those rows, and every transaction's, for a page of 40 customers was most
/// of a page-down's time. Same names, same leading columns: every other read is unchanged.
enum EnvironmentIndexSchema {
    static let migration = Migration("0019-environments-by-customer") { _ in
        [
            "DROP INDEX receipts_by_customer",
            "CREATE INDEX receipts_by_customer ON receipts(customer_id, receipt_id, environment, apple_environment)",
            "DROP INDEX transactions_by_customer",
            "CREATE INDEX transactions_by_customer ON transactions(customer_id, purchase_date, environment)",
        ]
    }
}
