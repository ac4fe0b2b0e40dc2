import Foundation
import ReceiptCore

/// A PostgreSQL import written by two sessions, every other batch each, so that the server runs
/// one batch's writes while the next batch reads ahead and is worked out on the client: one
/// session alone leaves the server idle while the client works and the client idle while the
/// server writes. The ledger ends as if the batches had run one after the other (`ImportTurn`):
/// batch n+1 takes its customers only after batch n has taken its own (so it waits for batch n on
/// every customer they share, and then reads what batch n wrote), and appends to the audit log and
/// commits only after batch n has ended; it also writes only after that when the two share a
/// transaction id or a receipt (so the earlier item claims it first). Outcomes are reported in
/// order, on the calling thread, and at most two batches are ahead of the report.
/// An error `report` throws stops the import there; the batch after the last one reported may
/// have been written already (repeating an import is safe: each artefact is recorded once).
final class ImportLanes: @unchecked Sendable {
    private let batches: Int
    // Every field below is read and written under `condition`'s lock.
    private let condition = NSCondition()
    private var locked: [Bool]
    /// The transaction ids and receipt digests of each batch started and not yet reported.
    private var keys: [Set<String>?]
    private var outcomes: [[Result<ImportResult, Error>]?]
    private var reported = 0
    private var stopping = false
    private var running = 0
    /// No batch from this one on is started (`batchesToWrite`).
    private var end: Int
    /// The first batch no lane has started yet.
    private var unstarted = 0
    private var othersSeen = false

    init(batches: Int) {
        self.batches = batches
        end = batches
        locked = Array(repeating: false, count: batches)
        keys = Array(repeating: nil, count: batches)
        outcomes = Array(repeating: nil, count: batches)
    }

    /// Runs `write(batch)` for batches `lane`, `lane + 2`, … on a thread of its own, each once the
    /// batch before it has taken its locks and at most one batch before it is unreported.
    func start(lane: Int, name: String, write: @escaping @Sendable (Int) -> [Result<ImportResult, Error>]) {
        condition.lock()
        running += 1
        condition.unlock()
        let thread = Thread { [self] in
            var batch = lane
            while mayStart(batch) {
                let result = write(batch)
                finished(batch, result)
                batch += 2
            }
            condition.lock()
            running -= 1
            condition.broadcast()
            condition.unlock()
        }
        thread.name = name
        thread.start()
    }

    /// Records what batch `batch` writes by key (its transaction ids and receipt digests) and
    /// whether the batch before it, if not yet reported, holds any of them.
    func sharesKeysWithPrevious(_ batch: Int, keys mine: Set<String>) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        keys[batch] = mine
        guard batch > 0, let previous = keys[batch - 1] else { return false }  // reported: it has ended
        return !previous.isDisjoint(with: mine)
    }

    /// Batch `batch` holds its locks (or has ended): the next may take its own.
    func didLock(_ batch: Int) {
        condition.lock()
        locked[batch] = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for batch `batch`'s outcomes; the caller reports them, then calls `didReport`.
    func outcomes(of batch: Int) -> [Result<ImportResult, Error>] {
        condition.lock()
        defer { condition.unlock() }
        while outcomes[batch] == nil { condition.wait() }
        return outcomes[batch] ?? []
    }

    /// Batch `batch` is reported: its outcomes are dropped and a later batch may start.
    func didReport(_ batch: Int) {
        condition.lock()
        outcomes[batch] = []
        keys[batch] = nil
        reported = batch + 1
        condition.broadcast()
        condition.unlock()
    }

    /// Starts no further batch and waits until the batches being written are done.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func mayStart(_ batch: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !stopping && batch < end && !((batch == 0 || locked[batch - 1]) && batch <= reported + 1) { condition.wait() }
        guard !stopping && batch < end else { return false }
        unstarted = max(unstarted, batch + 1)
        return true
    }

    /// A lane saw another import of the ledger running (`ImportPresence`).
    func sawOtherImports() {
        condition.lock()
        othersSeen = true
        condition.unlock()
    }

    /// How many batches the lanes write: all of them until a lane has seen another import
    /// (`sawOtherImports`); from then on only those already started, which the caller still
    /// reports before it calls `stop`. Asked by the reporting thread alone, between batches.
    func batchesToWrite() -> Int {
        condition.lock()
        defer { condition.unlock() }
        if othersSeen {
            end = min(end, unstarted)
            condition.broadcast()
        }
        return end
    }

    private func finished(_ batch: Int, _ result: [Result<ImportResult, Error>]) {
        condition.lock()
        locked[batch] = true
        outcomes[batch] = result
        condition.broadcast()
        condition.unlock()
    }
}

extension PurchaseLedger {
    /// `importStream` on PostgreSQL with two sessions of the same database (see `ImportLanes`),
    /// until a lane sees that another import of the ledger has begun (each looks as it takes a
    /// batch's locks; `importer` is the session that names this import): the lanes then finish
    /// the batches they have started and start no other. Answers the first item not imported
    /// (`count` when all were).
    func importOnTwoSessions(count: Int, batchSize size: Int, operatorName: String, sessions: (PostgresDatabase, PostgresDatabase),
                             importer: Int32,
                             item: @escaping @Sendable (Int) throws -> ImportItem,
                             report: (Int, Result<ImportResult, Error>) throws -> Void) throws -> Int {
        let pipeline = preparingPipeline(count: count, lookahead: 3 * size, operatorName: operatorName, item: item)
        defer { pipeline.finish() }  // after the lanes have stopped: they wait for prepared items
        let batches = (count + size - 1) / size
        let lanes = ImportLanes(batches: batches)
        let key = sessions.0.backendProcessID
        for (lane, session) in [(0, sessions.0), (1, sessions.1)] {
            let ledger = PurchaseLedger(database: session, configuration: configuration, verifier: verifier, clock: clock)
            ledger.entitlementCacheBudget = entitlementCacheBudget
            let writer = LaneWriter(ledger: ledger, session: session, key: key, importer: importer, size: size, count: count,
                                    lanes: lanes, pipeline: pipeline)
            lanes.start(lane: lane, name: "receiptdesk import lane \(lane)") { batch in writer.write(batch) }
        }
        defer { lanes.stop() }
        var batch = 0
        while batch < lanes.batchesToWrite() {
            let outcomes = lanes.outcomes(of: batch)
            pipeline.release(below: min((batch + 1) * size, count))
            for (offset, outcome) in outcomes.enumerated() { try report(batch * size + offset, outcome) }
            lanes.didReport(batch)
            batch += 1
        }
        return min(batch * size, count)
    }
}

/// One lane of `ImportLanes`: its ledger (over `session`) and how it writes a batch.
private final class LaneWriter: @unchecked Sendable {
    let ledger: PurchaseLedger
    let session: PostgresDatabase
    let key: Int32
    let importer: Int32
    let size: Int
    let count: Int
    let lanes: ImportLanes
    let pipeline: ImportPipeline<Result<PurchaseLedger.PreparedImport, Error>>

    init(ledger: PurchaseLedger, session: PostgresDatabase, key: Int32, importer: Int32, size: Int, count: Int, lanes: ImportLanes,
         pipeline: ImportPipeline<Result<PurchaseLedger.PreparedImport, Error>>) {
        (self.ledger, self.session, self.key, self.importer) = (ledger, session, key, importer)
        (self.size, self.count, self.lanes, self.pipeline) = (size, count, lanes, pipeline)
    }

    func write(_ batch: Int) -> [Result<ImportResult, Error>] {
        let range = batch * size..<min((batch + 1) * size, count)
        let items = range.compactMap { try? pipeline.value($0).get() }
        var keys = Set(items.map { "receipt " + $0.digest })
        for item in items { for transaction in item.incoming { keys.insert("transaction " + transaction.transactionId) } }
        let shares = lanes.sharesKeysWithPrevious(batch, keys: keys)
        let turn = Result {
            if try session.beginImportTurn(ImportTurn(key: key, batch: batch, writesAfterPrevious: shares), customers: items.map(\.customerId),
                                           importer: importer) {
                lanes.sawOtherImports()
            }
        }
        lanes.didLock(batch)  // its locks held, or not taken: the next batch may take its own
        defer { session.endImportTurn() }
        if case .failure(let error) = turn { return PurchaseLedger.failures(range, pipeline, error) }
        return ledger.batchOutcomes(range, pipeline)
    }
}
