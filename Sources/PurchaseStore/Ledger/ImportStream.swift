import Foundation
import ReceiptCore

extension PurchaseLedger {
    /// Imports `count` artefacts (`receiptdesk import FILE…`) in write transactions of `batchSize`
    /// each, every batch with the guarantees of `importBatch`: a crash leaves each batch applied or
    /// absent, an artefact that fails leaves no trace. `item(i)` supplies artefact i and runs on a
    /// worker thread (where files are read), together with decoding and verification, while the
    /// calling thread writes: the workers stay up to two batches ahead, so the next batch is ready
    /// while this one refreshes entitlements and commits. `report(i, outcome)` is called in order,
    /// on the calling thread, once artefact i's batch has committed or failed; an error it throws
    /// stops the import there (the batches already reported stay committed).
    public func importStream(count: Int, batchSize: Int = 100, operatorName: String,
                             item: @escaping @Sendable (Int) throws -> ImportItem,
                             report: (Int, Result<ImportResult, Error>) throws -> Void) throws {
        guard count > 0 else { return }
        let size = max(1, batchSize)
        // PostgreSQL: two sessions of their own write every other batch each, so that one batch
        // is worked out while the one before it runs on the server (`ImportLanes`); this
        // ledger's session stays free for `report`. Not while a test holds the import at a known
        // item (one writing thread), nor when the server refuses more sessions, nor beside
        // another import of the ledger (`ImportPresence`: this session carries the import's
        // name first, so of two imports that begin together at least one sees the other): once a
        // lane sees one, the rest goes on this ledger's session.
        let postgres = database as? PostgresDatabase
        let named = postgres.map { (try? $0.startImporting()) != nil } ?? false
        defer { if named { try? postgres?.stopImporting() } }
        var start = 0
        lastImportSessions = 1
        lastImportBatchesOnTwoSessions = 0
        if let postgres, count > size, importItemWritten == nil, importsOnTwoSessions, named,
           (try? postgres.otherImportsRunning(besides: [postgres.backendProcessID])) == false,
           let first = try? postgres.openSibling(), let second = try? postgres.openSibling() {
            lastImportSessions = 2
            start = try importOnTwoSessions(count: count, batchSize: size, operatorName: operatorName, sessions: (first, second),
                                            importer: postgres.backendProcessID, item: item, report: report)
            lastImportBatchesOnTwoSessions = (start + size - 1) / size
            guard start < count else { return }
        }
        try importOnThisSession(from: start, count: count, batchSize: size, operatorName: operatorName, item: item, report: report)
    }

    /// `importStream`'s items `start..<count` on this ledger's own session.
    private func importOnThisSession(from start: Int, count: Int, batchSize size: Int, operatorName: String,
                                     item: @escaping @Sendable (Int) throws -> ImportItem,
                                     report: (Int, Result<ImportResult, Error>) throws -> Void) throws {
        let rest = count - start
        let pipeline = preparingPipeline(count: rest, lookahead: 2 * size, operatorName: operatorName, item: { try item(start + $0) })
        defer { pipeline.finish() }
        // Where this connection is the only writer during a batch (SQLite), what each batch
        // refreshed is kept for the next: a customer imported again need not be read back. It is
        // attached only while a batch is applied: a change `report` makes through this ledger
        // neither reads nor updates it (the next batch sees this connection's change count moved
        // and forgets it).
        let kept = database.dialect.exclusiveWriteTransactions ? EntitlementCache(budget: entitlementCacheBudget) : nil
        for first in stride(from: 0, to: rest, by: size) {
            let batch = first..<min(first + size, rest)
            entitlementCache = kept
            let outcomes = batchOutcomes(batch, pipeline)
            entitlementCache = nil
            pipeline.release(below: batch.upperBound)
            for (offset, outcome) in outcomes.enumerated() { try report(start + batch.lowerBound + offset, outcome) }
        }
    }

    /// Each artefact's outcome once `batch` is applied in one write transaction, or rolled back.
    func batchOutcomes(_ batch: Range<Int>, _ pipeline: ImportPipeline<Result<PreparedImport, Error>>) -> [Result<ImportResult, Error>] {
        do {
            return try applyBatchTransaction(batch, pipeline)
        } catch {
            return Self.failures(batch, pipeline, error)
        }
    }

    /// The outcomes of a batch rolled back by `error`: an artefact that could not be read or
    /// decoded keeps its own error, the others fail with the batch's.
    static func failures(_ batch: Range<Int>, _ pipeline: ImportPipeline<Result<PreparedImport, Error>>, _ error: Error)
        -> [Result<ImportResult, Error>] {
        batch.map { index in
            if case .failure(let own) = pipeline.value(index) { return .failure(own) }
            return .failure(error)
        }
    }

    /// Reads and prepares (decodes, verifies) artefacts on worker threads, in order.
    func preparingPipeline(count: Int, lookahead: Int, operatorName: String,
                           item: @escaping @Sendable (Int) throws -> ImportItem) -> ImportPipeline<Result<PreparedImport, Error>> {
        let (verifier, revocation, now) = (self.verifier, self.revocation, clock())
        return ImportPipeline(count: count, lookahead: lookahead) { index in
            Result {
                let item = try item(index)
                return try Self.prepare(item.bytes, customer: item.customer, orderId: item.orderId,
                                        applicationUsername: item.applicationUsername, source: item.source,
                                        operatorName: operatorName, verifier: verifier, revocation: revocation, now: now)
            }
        }
    }

    /// Applies the prepared artefacts of `batch` in one write transaction.
    func applyBatchTransaction(_ batch: Range<Int>, _ pipeline: ImportPipeline<Result<PreparedImport, Error>>) throws
        -> [Result<ImportResult, Error>] {
        _ = pipeline.value(batch.lowerBound)  // no write lock while the first artefact is decoded
        let item = { (offset: Int) in pipeline.value(batch.lowerBound + offset) }
        // Where writers can race (PostgreSQL), each item keeps its savepoint, so a race is the
        // item's own failure; where a write transaction is exclusive (SQLite), items run bare.
        guard database.dialect.exclusiveWriteTransactions else {
            if let postgres = database as? PostgresDatabase {
                return try applyPipelinedBatch(count: batch.count, item, firstIndex: batch.lowerBound, on: postgres)
            }
            return try database.writeTransaction { try applyBatch(count: batch.count, item, isolated: true, firstIndex: batch.lowerBound) }
        }
        do {
            let sqlite = database as? SQLiteDatabase
            let outcomes = try database.writeTransaction {
                entitlementCache?.beginBatch(dataVersion: try sqlite?.dataVersion(), changes: sqlite?.totalChanges())
                let search = try SearchEntryDeferral.begin(database)
                // No savepoint here: the batch's audit entries can be appended together.
                let outcomes = try AuditLog.appendingTogether(database) {
                    try applyBatch(count: batch.count, item, isolated: false, firstIndex: batch.lowerBound)
                }
                try search?.end()
                return outcomes
            }
            entitlementCache?.endBatch(changes: sqlite?.totalChanges())
            return outcomes
        } catch let failure as BatchItemWriteFailed {
            entitlementCache?.forgetAll()
            // An artefact failed after it began writing, so the whole batch was rolled back: apply
            // it again with a savepoint around each artefact, so that only the failing one is left out
            // (without the cache, which a rolled-back savepoint would leave wrong).
            if let store = failure.underlying as? StoreError, [.busy, .cannotOpen, .corrupt].contains(store.code) { throw store }
            let cache = entitlementCache
            entitlementCache = nil
            defer { entitlementCache = cache }
            return try database.writeTransaction { try applyBatch(count: batch.count, item, isolated: true, firstIndex: batch.lowerBound) }
        } catch {
            entitlementCache?.forgetAll()
            throw error
        }
    }
}
