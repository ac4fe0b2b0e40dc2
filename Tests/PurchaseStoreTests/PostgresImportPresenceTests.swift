import Foundation
@testable import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// `importStream` on PostgreSQL writes on two sessions only while no other import of the ledger
/// runs (`ImportPresence`): beside one it writes on its own session, and one that appears
/// mid-way takes the rest of the import to that session. Either way the ledger ends as the
/// imports one after the other would leave it.
@Suite("PostgreSQL imports that see each other", .enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
struct PostgresImportPresenceTests {
    /// `count` receipts of two transactions each; in batches of 2, every batch shares a customer
    /// with the one before (it waits for that batch, so the database numbers receipts in order).
    static func items(_ f: BackendLedgerFixture, _ count: Int, prefix: String) throws -> [PurchaseLedger.ImportItem] {
        try (0..<count).map { index in
            let purchases = [LedgerFixture.purchase("\(prefix)\(index)a", bought: "2025-05-0\(1 + index % 9)T00:00:00Z", expires: "2025-07-01T00:00:00Z"),
                             PostgresImportLanesTests.coins("\(prefix)\(index)b")]
            return .init(bytes: try f.receipt(purchases, created: "2025-05-\(10 + index % 18)T00:\(10 + index):00Z"),
                         customer: "c\(index % 3)", source: "r\(index)")
        }
    }

    /// The server process ids of the sessions named as importing this ledger.
    static func importing(_ database: PostgresDatabase) throws -> Set<Int64> {
        Set(try database.query("SELECT pid FROM pg_stat_activity WHERE application_name = ?", [.text(database.importName)])
            .compactMap { $0.int("pid") })
    }

    @Test func besideAnotherImportTheImportWritesOnItsOwnSession() throws {
        let f = try BackendLedgerFixture(.postgres).seeded(customers: 4)
        let postgres = try #require(f.database as? PostgresDatabase)
        let other = try postgres.openSibling()
        try other.startImporting()
        let first = try Self.items(f, 8, prefix: "41")
        var seen: Set<Int64> = []
        try f.ledger.importStream(count: first.count, batchSize: 2, operatorName: "mei", item: { first[$0] }, report: { index, outcome in
            _ = try outcome.get()
            if index == first.count - 1 { seen = try Self.importing(postgres) }
        })
        #expect(f.ledger.lastImportSessions == 1)
        #expect(f.ledger.lastImportBatchesOnTwoSessions == 0)
        #expect(seen == [Int64(postgres.backendProcessID), Int64(other.backendProcessID)], "the import's session named as importing")
        #expect(try Self.importing(postgres) == [Int64(other.backendProcessID)], "the session's name given back")

        // Alone again: two sessions of its own, the ledger's left free for the report.
        try other.stopImporting()
        let second = try Self.items(f, 8, prefix: "42")
        try f.ledger.importStream(count: second.count, batchSize: 2, operatorName: "mei", item: { second[$0] }, report: { index, outcome in
            _ = try outcome.get()
            if index == second.count - 1 { seen = try Self.importing(postgres) }
        })
        #expect(f.ledger.lastImportSessions == 2)
        #expect(f.ledger.lastImportBatchesOnTwoSessions == 4)
        #expect(seen == [Int64(postgres.backendProcessID)])
        #expect(try f.count("SELECT count(*) AS n FROM transactions") == 32)
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    @Test func anImportThatAppearsMidwayTakesTheRestToOneSession() throws {
        let f = try BackendLedgerFixture(.postgres).seeded(customers: 4)
        let single = try BackendLedgerFixture(.postgres).seeded(customers: 4)
        let postgres = try #require(f.database as? PostgresDatabase)
        let other = try postgres.openSibling()
        let items = try Self.items(f, 16, prefix: "43")
        var reported: [Int] = []
        try f.ledger.importStream(count: items.count, batchSize: 2, operatorName: "mei", item: { items[$0] }, report: { index, outcome in
            _ = try outcome.get()
            reported.append(index)
            if index == 1 { try other.startImporting() }  // another import begins once batch 0 is reported
        })
        #expect(f.ledger.lastImportSessions == 2, "the import began on two sessions")
        #expect(reported == Array(items.indices), "every item reported once, in order")
        // Each lane looks as it takes a batch's locks: batch 2 is the first to begin after the
        // other import (batch 0 still being reported); the lanes end at most two batches later.
        #expect((3...5).contains(f.ledger.lastImportBatchesOnTwoSessions), "\(f.ledger.lastImportBatchesOnTwoSessions) of 8 batches on two sessions")
        single.ledger.importsOnTwoSessions = false
        try single.ledger.importStream(count: items.count, batchSize: 2, operatorName: "mei", item: { items[$0] }, report: { _, _ in })
        let (a, b) = (try BackendDump.text(f.database, excluding: ["schema_migrations"]), try BackendDump.text(single.database, excluding: ["schema_migrations"]))
        let (la, lb) = (a.split(separator: "\n"), b.split(separator: "\n"))
        #expect(a == b, "\(zip(la, lb).filter { $0 != $1 }.prefix(4).map { "\($0)\n  vs \($1)" })")
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    /// Operators log in as roles of their own (`db roles`): an import under one is seen from another,
    /// which may not read the other's queries.
    @Test func anImportIsSeenFromAnotherRole() throws {
        let f = try BackendLedgerFixture(.postgres)
        let postgres = try #require(f.database as? PostgresDatabase)
        let role = "rdpresence" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(8)
        // The least a role of `db roles` holds: the ledger's schema is in its search path.
        try f.database.execute("CREATE ROLE \(role) LOGIN", [])
        try f.database.execute("GRANT USAGE ON SCHEMA \(postgres.schemaName) TO \(role)", [])
        defer {
            // Best effort: the role is the server's, and the server is thrown away.
            _ = try? f.database.execute("DROP OWNED BY \(role)", [])
            _ = try? f.database.execute("DROP ROLE \(role)", [])
        }
        let colleague = try PostgresDatabase(url: f.scratch.location.replacingOccurrences(of: "://postgres@", with: "://\(role)@"))
        #expect(colleague.importName == postgres.importName)
        #expect(try !colleague.otherImportsRunning(besides: [colleague.backendProcessID]))
        try postgres.startImporting()
        #expect(try colleague.otherImportsRunning(besides: [colleague.backendProcessID]))
        try postgres.stopImporting()
        #expect(try !colleague.otherImportsRunning(besides: [colleague.backendProcessID]))
    }

    /// Two imports of the same receipts at the same moment, many times: whichever writes on how
    /// many sessions, each transaction is recorded once and credited to one import.
    @Test func twoImportsAtOnceRecordEachTransactionOnce() throws {
        for round in 0..<12 {
            let f = try BackendLedgerFixture(.postgres).seeded(customers: 4)
            let items = try Self.items(f, 12, prefix: "5\(round)x")
            let ledgers = [f.ledger, f.makeLedger(try #require(f.database as? PostgresDatabase).openSibling())]
            let outcomes = Handed(ResultSlots(count: 2))
            let start = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            for (slot, ledger) in ledgers.enumerated() {
                let handed = Handed(ledger)
                done.enter()
                Thread {
                    start.wait()
                    var mine: [String] = []
                    do {
                        try handed.value.importStream(count: items.count, batchSize: 2, operatorName: "op\(slot)", item: { items[$0] }, report: { _, outcome in
                            for transaction in try outcome.get().transactions {
                                if case .recorded = transaction.outcome { mine.append("\(transaction.transactionId) recorded") } else { mine.append("\(transaction.transactionId) seen") }
                            }
                        })
                    } catch { mine.append("failed: \(error)") }
                    outcomes.value.put(mine, at: slot)
                    done.leave()
                }.start()
            }
            start.signal(); start.signal()
            done.wait()
            let all = outcomes.value.all.flatMap { $0 }
            #expect(!all.contains { $0.hasPrefix("failed") }, "round \(round): \(all.filter { $0.hasPrefix("failed") })")
            let recorded = all.filter { $0.hasSuffix(" recorded") }.map { String($0.split(separator: " ")[0]) }
            #expect(recorded.count == 24 && Set(recorded).count == 24, "round \(round): each transaction recorded by one import: \(all)")
            #expect(try f.count("SELECT count(*) AS n FROM transactions") == 24)
            #expect(try AuditLog.verify(f.database).isIntact)
        }
    }
}

/// What each of a few threads answered, one slot each.
private final class ResultSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [[String]]
    init(count: Int) { slots = Array(repeating: [], count: count) }
    func put(_ value: [String], at index: Int) { lock.withLock { slots[index] = value } }
    var all: [[String]] { lock.withLock { slots } }
}
