import Foundation
import ReceiptCore

extension PurchaseLedger {
    /// Applies a batch on PostgreSQL in a handful of round trips, with the same logic and results
    /// as item by item: the batch's customers are locked and everything its imports read is read
    /// ahead in one round trip (`PostgresDatabase.prefetchImports`); the imports then read that
    /// snapshot (`ImportSnapshot`, the entitlement refresh from an `EntitlementCache` seeded with
    /// it) and their writes are queued (`executeLater`) and sent with the audit chain's lock and
    /// head read, then with COMMIT. Writers of other customers go on meanwhile: the writer lock is
    /// held only for the audit appends and the commit.
    ///
    /// Optimistic: if another writer raced the batch (a unique key), the whole batch runs again
    /// and reads afresh; if it still fails, or an item failed after it began writing, the batch
    /// is rolled back and applied again with a savepoint around each item (and the writer lock
    /// from the start), as before, so that a failing item fails alone with its own error.
    func applyPipelinedBatch(count: Int, _ item: (Int) -> Result<PreparedImport, Error>, firstIndex: Int,
                             on postgres: PostgresDatabase) throws -> [Result<ImportResult, Error>] {
        // Every item decoded before the locks are taken: the read-ahead needs all of them.
        let prepared = (0..<count).compactMap { try? item($0).get() }  // an item that failed to prepare reads nothing
        do {
            return try postgres.writeTransaction {
                postgres.pipelinesWrites = true
                // After the import's previous batch (before anything when the two share a key, so
                // this one never holds a key the previous one waits for; else before the commit).
                try postgres.orderAfterPreviousBatch()
                let read = try postgres.prefetchImports(prepared)
                let cache = EntitlementCache(budget: 10_000_000)
                for (customer, entry) in read.entitlements { cache.store(customer, input: entry.input, rows: entry.rows) }
                (importSnapshot, entitlementCache) = (read.snapshot, cache)
                defer { (importSnapshot, entitlementCache) = (nil, nil) }
                return try applyBatch(count: count, item, isolated: false, firstIndex: firstIndex)
            }
        } catch {
            let cause = (error as? BatchItemWriteFailed)?.underlying ?? error
            if let store = cause as? StoreError, [.busy, .cannotOpen, .corrupt].contains(store.code) { throw store }
            return try database.writeTransaction {
                try postgres.waitForPreviousBatch()
                // Every key before the first savepoint takes the writer lock (see `WriteKey`).
                try postgres.lockKeys(Self.writeKeys(of: prepared))
                return try applyBatch(count: count, item, isolated: true, firstIndex: firstIndex)
            }
        }
    }
}
