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
    ///
    /// The customer's write key (`lockKeys`) is taken first, so the row lock is only ever waited
    /// for by a writer that already holds the key: the keys' one order decides who waits for whom.
    public func lockCustomer(_ customerId: String) throws {
        guard let postgres = self as? PostgresDatabase, postgres.isInTransaction else { return }
        // One round trip: the key, then the row, in one pipeline.
        _ = try postgres.queryPipelined([postgres.writeKeyLock([WriteKey.customer(customerId)]),
                                         ("SELECT 1 AS locked FROM customers WHERE customer_id = ? FOR UPDATE", [.text(customerId)])])
    }

    /// Takes the write keys a change will claim (see `WriteKey`) until the transaction ends, all
    /// at once and in the one global order, before the change's first read of them and its first
    /// write. Two changes that claim a key in common then run one after the other, and two that
    /// claim several in common can never wait for each other in a circle. Nothing on SQLite
    /// (a write transaction is exclusive there).
    public func lockKeys(_ keys: [WriteKey]) throws {
        guard let postgres = self as? PostgresDatabase, postgres.isInTransaction, !keys.isEmpty else { return }
        try postgres.lockWriteKeys(keys)
    }
}

extension SQLDatabase {
    /// Locks several customers' rows in one order (sorted by id), so two changes that each touch
    /// the same two customers queue instead of deadlocking. See `lockCustomer`.
    public func lockCustomers<S: Sequence>(_ customerIds: S) throws where S.Element == String {
        let ids = Set(customerIds).sorted()
        try lockKeys(ids.map(WriteKey.customer))  // every key first, in their one order
        for customerId in ids { try lockCustomer(customerId) }
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

/// Something a write claims, as a lock key of the transaction that writes it (PostgreSQL:
/// `pg_advisory_xact_lock` in the two-key form, namespaced by the database's location). The
/// lock order of the whole ledger, in DESIGN.md's words:
///   1. write keys (customers, transaction ids, receipt digests, notificationUUIDs), all a change needs, taken at
///      once in ascending order of their 64-bit value;
///   2. rows (`FOR UPDATE`: customers, then the row a decision is taken on);
///   3. the audit chain's writer lock, just before COMMIT.
/// A change that needs a key it did not take at the start takes it late; if that closes a
/// circle, PostgreSQL breaks it (a deadlock) and the change runs again whole.
public enum WriteKey: Hashable, Sendable {
    case customer(String)
    case transaction(String)
    case receipt(digest: String)
    /// An App Store Server Notification, applied once by its notificationUUID.
    case notification(String)

    var text: String {
        switch self {
        case .customer(let id): return "customer\u{1}" + id
        case .transaction(let id): return "transaction\u{1}" + id
        case .receipt(let digest): return "receipt\u{1}" + digest
        case .notification(let uuid): return "notification\u{1}" + uuid
        }
    }

    /// The key's 64-bit value in `namespace`.
    func value(in namespace: String) -> Int64 { Int64(bitPattern: StableHash.fnv1a([namespace, text])) }
}

extension PostgresDatabase {
    /// The statement that takes `keys` in ascending order (each once), for a pipeline.
    func writeKeyLock(_ keys: [WriteKey]) -> (sql: String, parameters: [SQLValue]) {
        let values = Set(keys.map { $0.value(in: "receiptdesk-write-keys:" + location) }).sorted()
        // unnest yields the array in its order, and each row's lock is taken as it is produced.
        return ("SELECT count(*) AS locked FROM (SELECT pg_advisory_xact_lock(key) FROM unnest(?::bigint[]) AS key) AS taken",
                [.text("{" + values.map(String.init).joined(separator: ",") + "}")])
    }

    func lockWriteKeys(_ keys: [WriteKey]) throws {
        let statement = writeKeyLock(keys)
        _ = try query(statement.sql, statement.parameters)
    }
}

/// FNV-1a over UTF-8 text: the same in every process and every run (Swift's `hashValue` is
/// seeded per process), for lock keys that several processes must agree on. Parts are
/// separated by a zero byte, so ("ab", "c") and ("a", "bc") differ.
enum StableHash {
    static func fnv1a(_ parts: [String]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for (index, part) in parts.enumerated() {
            if index > 0 { hash = hash &* 0x100_0000_01b3 }  // the separator: a zero byte
            for byte in part.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        return hash
    }
}
