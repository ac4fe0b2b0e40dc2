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

extension SQLDatabase {
    /// Locks several customers' rows in one order (sorted by id), so two changes that each touch
    /// the same two customers queue instead of deadlocking. See `lockCustomer`.
    public func lockCustomers<S: Sequence>(_ customerIds: S) throws where S.Element == String {
        for customerId in Set(customerIds).sorted() { try lockCustomer(customerId) }
    }

    /// The first row of `sql` (one `SELECT` that names one table), and on PostgreSQL inside a
    /// write transaction that row locked until the transaction ends (`FOR UPDATE`): a second
    /// writer reading the same row waits for this one to commit and then reads what it wrote, so
    /// a decision taken on the row ("still open") holds until the change that follows is
    /// committed. On SQLite a write transaction is exclusive already and this is a plain read.
    public func queryFirstLocking(_ sql: String, _ parameters: [SQLValue]) throws -> SQLRow? {
        guard let postgres = self as? PostgresDatabase, postgres.isInTransaction else { return try queryFirst(sql, parameters) }
        return try postgres.query(sql + " FOR UPDATE", parameters).first
    }

    /// Runs a conditional change (`UPDATE … WHERE <the state that was read>`) that must change
    /// exactly one row; when none changed, another writer got there first and `raced` is thrown,
    /// so nothing of the transaction is kept.
    public func executeChangingOne(_ sql: String, _ parameters: [SQLValue], raced: @autoclosure () -> StoreError) throws {
        let changed = try execute(sql, parameters)
        guard changed == 1 else { throw raced() }
    }
}
