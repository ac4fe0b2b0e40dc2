import Foundation

/// The locks a ledger change takes where writers must go one at a time. On SQLite they do
/// nothing: a write transaction there is already exclusive (`BEGIN IMMEDIATE`). On PostgreSQL
/// writers run side by side (see `PostgresDatabase`) and these are the only places they queue.
extension SQLDatabase {
    /// Before reading the audit chain's head: holds the writer lock until the transaction ends,
    /// so appends from every process form one chain, and the head read after it is the latest.
    public func lockAuditChain() throws {
        guard let postgres = self as? PostgresDatabase, postgres.isInTransaction else { return }
        try postgres.lockWriters()
    }

    /// Locks the customer's row until the transaction ends (`SELECT … FOR UPDATE`), so two
    /// changes to one customer (binding their orders, recomputing their entitlements) do not
    /// interleave. A customer that does not exist yet locks nothing: create it first.
    public func lockCustomer(_ customerId: String) throws {
        guard let postgres = self as? PostgresDatabase, postgres.isInTransaction else { return }
        _ = try postgres.query("SELECT 1 AS locked FROM customers WHERE customer_id = ? FOR UPDATE", [.text(customerId)])
    }
}
