import Foundation
@testable import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// `importStream` on PostgreSQL with two sessions writing every other batch (`ImportLanes`): the
/// ledger ends as the same imports one after the other would leave it, whichever batch read
/// ahead first, and a failing item still fails alone.
@Suite("PostgreSQL import on two sessions", .enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
struct PostgresImportLanesTests {
    static func coins(_ id: String) -> ReceiptPurchase { LedgerFixture.purchase(id, "com.example.coins.100", expires: nil, type: 1) }

    /// Imports `items` with `importStream` in batches of `size`; the outcomes in the order reported.
    /// Each report reads through the ledger: its own session is free while the lanes write.
    static func stream(_ ledger: PurchaseLedger, _ items: [PurchaseLedger.ImportItem], size: Int) throws -> [Result<ImportResult, Error>] {
        var outcomes: [Result<ImportResult, Error>] = []
        try ledger.importStream(count: items.count, batchSize: size, operatorName: "mei", item: { items[$0] }, report: { index, outcome in
            #expect(index == outcomes.count, "reported in order")
            let stored = try ledger.database.queryFirst("SELECT count(*) AS n FROM receipts", [])?.int("n") ?? 0
            #expect(stored > 0)
            outcomes.append(outcome)
        })
        return outcomes
    }

    /// The same imports one by one, as `importArtefact` runs them.
    static func oneByOne(_ ledger: PurchaseLedger, _ items: [PurchaseLedger.ImportItem]) -> [Result<ImportResult, Error>] {
        items.map { item in
            Result { try ledger.importArtefact(item.bytes, customer: item.customer, orderId: item.orderId, source: item.source, operatorName: "mei") }
        }
    }

    @Test func twoSessionsLeaveTheDatabaseOneSessionWould() throws {
        let lanes = try BackendLedgerFixture(.postgres).seeded(customers: 4)
        let single = try BackendLedgerFixture(.postgres).seeded(customers: 4)
        // Every batch shares customers with the one before (it waits for that batch on them), a
        // receipt comes twice, and a later batch claims an earlier one's transactions.
        var items = try (0..<24).map { index -> PurchaseLedger.ImportItem in
            let purchases = [LedgerFixture.purchase("31\(index)a", bought: "2025-05-0\(1 + index % 9)T00:00:00Z", expires: "2025-07-01T00:00:00Z"),
                             Self.coins("31\(index)b")]
            return .init(bytes: try lanes.receipt(purchases, created: "2025-05-\(10 + index % 18)T00:\(10 + index):00Z"),
                         customer: "c\(index % 4)", source: "r\(index)")
        }
        items[10] = items[4]
        items[20] = .init(bytes: try lanes.receipt([Self.coins("312b")], created: "2025-05-29T00:00:00Z"), customer: "c3", source: "claim")
        let streamed = try Self.stream(lanes.ledger, items, size: 3)
        #expect(lanes.ledger.lastImportSessions == 2)
        single.ledger.importsOnTwoSessions = false
        let expected = try Self.stream(single.ledger, items, size: 3)
        #expect(single.ledger.lastImportSessions == 1)
        #expect(streamed.map(PostgresBatchImportTests.describe) == expected.map(PostgresBatchImportTests.describe))
        // …and, but for the receipts' ids (a batch reserves one per receipt it holds), what the
        // same imports leave one by one.
        let third = try BackendLedgerFixture(.postgres).seeded(customers: 4)
        let byOne = Self.oneByOne(third.ledger, items)
        #expect(streamed.map(Self.withoutIds) == byOne.map(Self.withoutIds))
        #expect(try BackendDump.text(lanes.database, excluding: ["schema_migrations"])
                == BackendDump.text(single.database, excluding: ["schema_migrations"]))
        #expect(try AuditLog.verify(lanes.database).isIntact)
    }

    /// New customers in consecutive batches (batch n+1 waits for batch n on them) and a
    /// transaction claimed by two customers in consecutive batches: batch n+1 may read ahead
    /// before batch n has written it, finds out when it writes (after batch n) and runs again, so
    /// the earlier item keeps the transaction, as one by one.
    @Test func theEarlierItemClaimsFirstWhenTheNextBatchReadAheadTooSoon() throws {
        let lanes = try BackendLedgerFixture(.postgres)
        let single = try BackendLedgerFixture(.postgres)
        var items: [PurchaseLedger.ImportItem] = []
        for pair in 0..<6 {
            let shared = "32\(pair)x"
            // Batch `pair`: a new customer with a transaction; the next batch: the same customer
            // again, and a new one claiming that transaction.
            items.append(.init(bytes: try lanes.receipt([Self.coins(shared), Self.coins("32\(pair)a")], created: "2025-05-0\(1 + pair)T00:00:00Z"),
                               customer: "new-\(pair)", source: "first \(pair)"))
            items.append(.init(bytes: try lanes.receipt([Self.coins(shared)], created: "2025-05-0\(1 + pair)T01:00:00Z"),
                               customer: "rival-\(pair)", source: "rival \(pair)"))
        }
        // Reordered so that batch k (two items) holds pair k's first item and pair k-1's rival.
        var ordered: [PurchaseLedger.ImportItem] = []
        for pair in 0..<6 {
            ordered.append(items[pair * 2])
            if pair > 0 { ordered.append(items[(pair - 1) * 2 + 1]) }
        }
        ordered.append(items[11])
        let streamed = try Self.stream(lanes.ledger, ordered, size: 2)
        let expected = Self.oneByOne(single.ledger, ordered)
        #expect(streamed.map(Self.withoutIds) == expected.map(Self.withoutIds))
        for sql in [
            "SELECT transaction_id, customer_id, product_id, repeat_arrivals FROM transactions ORDER BY 1",
            "SELECT transaction_id, claimant_customer_id FROM conflicts ORDER BY 1, 2",
            "SELECT customer_id, entitlement, source, transaction_id, active FROM entitlements ORDER BY 1, 2, 3, 4",
            "SELECT customer_id FROM customers ORDER BY 1",
            "SELECT action, target FROM audit_log ORDER BY seq",
        ] {
            #expect(try lanes.database.query(sql, []).map(\.values) == single.database.query(sql, []).map(\.values), "\(sql)")
        }
        #expect(try lanes.count("SELECT count(*) AS n FROM transactions WHERE transaction_id LIKE '32_x' AND customer_id LIKE 'new-%'") == 6)
        #expect(try AuditLog.verify(lanes.database).isIntact)
    }

    @Test func aFailingItemFailsAloneWhileTheOtherSessionWrites() throws {
        let f = try BackendLedgerFixture(.postgres)
        try f.database.execute("""
            CREATE FUNCTION refuse_33() RETURNS trigger LANGUAGE plpgsql AS $body$
            BEGIN IF NEW.transaction_id = '33007' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $body$
            """, [])
        try f.database.execute("CREATE TRIGGER refuse_33 BEFORE INSERT ON transactions FOR EACH ROW EXECUTE FUNCTION refuse_33()", [])
        let items = try (0..<12).map { index in
            PurchaseLedger.ImportItem(bytes: try f.receipt([Self.coins("330\(String(format: "%02d", index))")], created: "2025-05-0\(1 + index % 9)T0\(index % 10):00:00Z"),
                                      customer: "p\(index % 5)", source: "r\(index)")
        }
        let outcomes = try Self.stream(f.ledger, items, size: 3)
        #expect(f.ledger.lastImportSessions == 2)
        #expect("\(outcomes[7])".contains("refused by the test"), "\(outcomes[7])")
        #expect(outcomes.enumerated().allSatisfy { index, outcome in index == 7 || (try? outcome.get())?.changedDatabase == true })
        #expect(try f.count("SELECT count(*) AS n FROM transactions") == 11)
        #expect(try f.count("SELECT count(*) AS n FROM audit_log WHERE action = 'import'") == 11)
        let audited = try f.database.query("SELECT target FROM audit_log WHERE action = 'import' ORDER BY seq", []).compactMap { $0.string("target") }
        #expect(audited == items.enumerated().filter { $0.offset != 7 }.map { "customer:\($0.element.customer)" }, "audited in the order of the items")
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    /// Consecutive batches that share no customer, transaction or receipt are written side by
    /// side: with the writer lock held elsewhere, batch 0 stops at its audit entries, and batch 1
    /// has run its inserts on the server and waits for batch 0 only before its own audit entries
    /// and COMMIT. Once the lock is free the ledger ends as one by one, audited in item order.
    /// Batches 2 and 3 hold the same receipt (for two customers): they go one after the other.
    /// (Synchronous, on purpose: it watches the sessions from a thread of its own, which an
    /// async test, resumed on the shared pool that other tests' blocking calls may fill, could
    /// not promise within the writer lock's 10 s timeout.)
    @Test func batchesSharingNothingAreWrittenSideBySide() throws {
        let f = try BackendLedgerFixture(.postgres)
        var items = try (0..<12).map { index in
            PurchaseLedger.ImportItem(bytes: try f.receipt([Self.coins("34\(index)a"), Self.coins("34\(index)b")], created: "2025-05-0\(1 + index % 9)T00:00:00Z"),
                                      customer: "side-\(index)", source: "r\(index)")
        }
        let shared = try f.receipt([], created: "2025-05-20T00:00:00Z")
        items[8] = .init(bytes: shared, customer: "side-8", source: "empty for 8")
        items[9] = .init(bytes: shared, customer: "side-9", source: "empty for 9")
        let location = f.scratch.location
        let holder = Handed(try #require(try PurchaseDatabase.open(location) as? PostgresDatabase))
        let monitor = try PurchaseDatabase.open(location)
        let (held, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        Thread.detachNewThread {
            _ = try? holder.value.writeTransaction {
                try holder.value.lockWriters()
                held.signal()
                release.wait()
            }
            held.signal()  // (a failure to take the lock shows as the wait below timing out)
        }
        held.wait()
        let (ledger, batch) = (Handed(f.ledger), items)
        let streamed = Outcomes()
        let importer = Thread {
            do {
                for outcome in try Self.stream(ledger.value, batch, size: 3) { streamed.add(Self.withoutIds(outcome)) }
            } catch {
                streamed.add("import failed: \(error)")
            }
            streamed.add("done")
        }
        importer.start()
        // Two sessions have inserted transactions (batch 0, stopped at the writer lock, and
        // batch 1), and one of them waits in shared mode for the other's turn. (Only this
        // schema's sessions count: other tests' imports run on the same server meanwhile.)
        var sideBySide = false
        var seen = ""
        for _ in 0..<3_000 where !sideBySide {
            let row = try monitor.queryFirst("""
                SELECT count(DISTINCT pid)::int AS inserting,
                       (SELECT count(*) FROM pg_locks AS w WHERE w.locktype = 'advisory' AND w.mode = 'ShareLock' AND NOT w.granted
                        AND w.pid IN (SELECT pid FROM pg_locks WHERE relation = 'transactions'::regclass AND mode = 'RowExclusiveLock'))::int AS waiting
                FROM pg_locks WHERE relation = 'transactions'::regclass AND mode = 'RowExclusiveLock' AND granted
                """, [])
            seen = "\(row?.int("inserting") ?? -1) inserting, \(row?.int("waiting") ?? -1) waiting"
            sideBySide = seen == "2 inserting, 1 waiting"
            if !sideBySide { usleep(20_000) }
        }
        release.signal()
        #expect(sideBySide, "batch 1 did not write while batch 0 was open (last seen: \(seen))")
        while !streamed.values.contains("done") { usleep(20_000) }
        #expect(f.ledger.lastImportSessions == 2, "the import ran on one session")
        let single = try BackendLedgerFixture(.postgres)
        let expected = Self.oneByOne(single.ledger, items).map(Self.withoutIds)
        #expect(streamed.values == expected + ["done"])
        let audit = "SELECT action, target FROM audit_log ORDER BY seq"
        #expect(try f.database.query(audit, []).map(\.values) == single.database.query(audit, []).map(\.values), "audited in the order of the items")
        #expect(try f.count("SELECT count(*) AS n FROM receipts") == 11)  // the empty receipt stored once
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    /// A result as text without the ids the database numbers (receipts, conflicts): a batch
    /// reserves a receipt id for each receipt it holds, and one that ran again took new ones.
    static func withoutIds(_ result: Result<ImportResult, Error>) -> String {
        switch result {
        case .success(let r):
            let text = "\(r.changedDatabase) \(r.transactions) \(r.notes)"
            return text.replacingOccurrences(of: #"(conflictId: |receipt #)[0-9]+"#, with: "$1…", options: .regularExpression)
        case .failure(let error): return "failed: \(error)"
        }
    }
}

/// A value handed to one other thread, which alone uses it from then on.
final class Handed<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

extension BackendLedgerFixture {
    /// The fixture with customers c0, c1, … already added.
    func seeded(customers: Int) throws -> BackendLedgerFixture {
        for customer in 0..<customers { try ledger.addCustomer("c\(customer)", isTester: false, operatorName: "mei") }
        return self
    }
}
