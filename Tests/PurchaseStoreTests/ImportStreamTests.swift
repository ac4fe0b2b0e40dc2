import Foundation
@testable import PurchaseStore
import ReceiptCore
import Testing

/// `importStream`: many artefacts in batches, prepared on worker threads ahead of the writer.
@Suite("Streamed import in batches, on both backends")
struct ImportStreamTests {
    struct Unreadable: Error {}

    /// 11 receipts for 3 customers, one of them unreadable and one garbage, a repeat and a
    /// conflict among them.
    static func items(_ f: BackendLedgerFixture) throws -> [Result<PurchaseLedger.ImportItem, Unreadable>] {
        var items: [Result<PurchaseLedger.ImportItem, Unreadable>] = []
        for index in 0..<8 {
            let purchases = [LedgerFixture.purchase(String(15_000 + index * 2), bought: "2025-05-0\(1 + index)T00:00:00Z", expires: "2025-07-01T00:00:00Z"),
                             LedgerFixture.purchase(String(15_001 + index * 2), "com.example.coins.100", expires: nil, type: 1)]
            items.append(.success(.init(bytes: try f.receipt(purchases, created: "2025-05-\(10 + index)T00:00:00Z"),
                                        customer: "customer-\(index % 3)", source: "stream")))
        }
        items.insert(.failure(Unreadable()), at: 3)
        items.insert(.success(.init(bytes: Array("garbage".utf8), customer: "customer-0", source: "stream")), at: 6)
        items.append(items[1])  // a repeat: a duplicate
        items.append(.success(.init(bytes: try items[2].get().bytes, customer: "someone-else", source: "stream")))  // a conflict
        return items
    }

    @Test(arguments: TestBackend.available) func aStreamInBatchesEqualsOneBatchAndReportsEveryItemInOrder(_ backend: TestBackend) throws {
        let streamed = try BackendLedgerFixture(backend)
        let whole = try BackendLedgerFixture(backend)
        let items = try Self.items(streamed)
        var reported: [Int] = []
        var outcomes: [Result<ImportResult, Error>] = []
        try streamed.ledger.importStream(count: items.count, batchSize: 4, operatorName: "mei", item: { try items[$0].get() },
                                         report: { index, outcome in reported.append(index); outcomes.append(outcome) })
        #expect(reported == Array(items.indices))
        #expect((try? outcomes[3].get()) == nil && (try? outcomes[6].get()) == nil, "the unreadable and the garbage fail alone")
        #expect(outcomes.enumerated().allSatisfy { index, outcome in [3, 6].contains(index) || (try? outcome.get()) != nil })
        #expect((try? outcomes[10].get())?.changedDatabase == false, "the repeat is a duplicate")
        #expect((try? outcomes[11].get())?.transactions.allSatisfy {
            if case .conflict = $0.outcome { return true } else { return false }
        } == true)

        let readable = items.compactMap { try? $0.get() }
        _ = try whole.ledger.importBatch(readable, operatorName: "mei")
        for table in ["customers", "transactions", "conflicts", "entitlements"] {
            let order = table == "entitlements" ? "customer_id, entitlement, source, transaction_id" : "1"
            let sql = "SELECT * FROM \(table) ORDER BY \(order)"
            #expect(try streamed.database.query(sql, []).map(\.values) == whole.database.query(sql, []).map(\.values), "\(table) differs")
        }
        #expect(try streamed.database.query("SELECT action, target, details FROM audit_log ORDER BY seq", []).map(\.values)
                == whole.database.query("SELECT action, target, details FROM audit_log ORDER BY seq", []).map(\.values))
        #expect(try AuditLog.verify(streamed.database).isIntact)
    }

    @Test(arguments: TestBackend.available) func aReportThatThrowsStopsTheStreamAfterItsBatch(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let items = try Self.items(f).compactMap { try? $0.get() }
        struct Stop: Error {}
        var reported: [Int] = []
        #expect(throws: Stop.self) {
            try f.ledger.importStream(count: items.count, batchSize: 3, operatorName: "mei", item: { items[$0] }, report: { index, _ in
                reported.append(index)
                if index == 4 { throw Stop() }
            })
        }
        #expect(reported == [0, 1, 2, 3, 4], "nothing is reported after the error")
        // Batches [r0 r1 r2] and [r3 r4 garbage] committed (garbage stores nothing); the fourth
        // never started. The third [r5 r6 r7] did not either on SQLite; on PostgreSQL the second
        // session may have written it while the second batch was reported (ImportLanes).
        let stored = try f.count("SELECT count(*) AS n FROM receipts")
        #expect(backend == .sqlite ? stored == 5 : [5, 8].contains(stored), "\(stored) receipts")
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    @Test func thePipelineStaysWithinItsWindowAndHandsOutEveryItemInOrder() {
        final class Window: @unchecked Sendable {
            let lock = NSLock()
            var released = 0
            var furthest = 0
            var overreach = false
        }
        let window = Window()
        let (count, lookahead) = (500, 16)
        let pipeline = ImportPipeline<Int>(count: count, lookahead: lookahead) { index in
            window.lock.lock()
            window.furthest = max(window.furthest, index)
            if index >= window.released + lookahead { window.overreach = true }
            window.lock.unlock()
            return index * 7
        }
        var values: [Int] = []
        for start in stride(from: 0, to: count, by: 10) {
            for index in start..<min(start + 10, count) { values.append(pipeline.value(index)) }
            window.lock.lock()
            window.released = start + 10
            window.lock.unlock()
            pipeline.release(below: start + 10)
        }
        pipeline.finish()
        #expect(values == (0..<count).map { $0 * 7 })
        #expect(!window.overreach, "a worker prepared an item more than \(lookahead) ahead of the writer")
        #expect(window.furthest == count - 1)
    }

    /// A released item is freed by the worker that prepares the item taking its slot, not on the
    /// writer's thread, and no more items live than the window (and what workers hold) allows.
    @Test func releasedItemsAreFreedOnTheWorkersWithinTheWindow() {
        final class Tally: @unchecked Sendable {
            let lock = NSLock()
            var live = 0
            var mostLive = 0
            var freedOnWriter: [Int] = []
            var writer: Thread?
        }
        final class Item {
            let index: Int
            let tally: Tally
            init(_ index: Int, _ tally: Tally) {
                (self.index, self.tally) = (index, tally)
                tally.lock.lock()
                tally.live += 1
                tally.mostLive = max(tally.mostLive, tally.live)
                tally.lock.unlock()
            }
            deinit {
                tally.lock.lock()
                tally.live -= 1
                if Thread.current == tally.writer { tally.freedOnWriter.append(index) }
                tally.lock.unlock()
            }
        }
        let tally = Tally()
        tally.writer = Thread.current
        let (count, lookahead) = (200, 8)
        do {
            let pipeline = ImportPipeline<Item>(count: count, lookahead: lookahead) { Item($0, tally) }
            for start in stride(from: 0, to: count, by: 4) {
                for index in start..<start + 4 { #expect(pipeline.value(index).index == index) }
                pipeline.release(below: start + 4)
            }
            pipeline.finish()
        }
        // The last window's items have no successor: they go with the pipeline, on this thread.
        #expect(tally.freedOnWriter.allSatisfy { $0 >= count - lookahead }, "freed on the writer: \(tally.freedOnWriter)")
        #expect(tally.mostLive <= lookahead + 2 * ProcessInfo.processInfo.activeProcessorCount + 1, "\(tally.mostLive) items alive at once")
        #expect(tally.live == 0)
    }

    @Test func finishingEarlyStopsTheWorkersWithoutPreparingTheRest() {
        final class Counter: @unchecked Sendable {
            let lock = NSLock()
            var prepared = 0
        }
        let counter = Counter()
        let pipeline = ImportPipeline<Int>(count: 100_000, lookahead: 8) { index in
            counter.lock.lock()
            counter.prepared += 1
            counter.lock.unlock()
            return index
        }
        #expect(pipeline.value(0) == 0)
        pipeline.finish()
        #expect(counter.prepared <= 8, "only the window is ever prepared: \(counter.prepared)")
    }
}
