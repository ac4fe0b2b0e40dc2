import Foundation
import PurchaseStore
import ReceiptCore
import Testing

/// A database that runs `trap` before the statement numbered `at` (1-based), once.
final class StatementTrap: SQLDatabase {
    let inner: SQLDatabase
    let at: Int
    let trap: () throws -> Void
    private(set) var statements = 0
    private var sprung = false

    init(_ inner: SQLDatabase, at: Int, trap: @escaping () throws -> Void) {
        self.inner = inner
        self.at = at
        self.trap = trap
    }

    var dialect: SQLDialect { inner.dialect }
    var location: String { inner.location }

    private func count() throws {
        statements += 1
        if statements == at && !sprung {
            sprung = true
            try trap()
        }
    }

    func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int {
        try count()
        return try inner.execute(sql, parameters)
    }

    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow] {
        try count()
        return try inner.query(sql, parameters)
    }

    func writeTransaction<T>(_ body: () throws -> T) throws -> T { try inner.writeTransaction(body) }
}

@Suite("PostgreSQL faults: the server going away")
struct PostgresFaultTests {
    /// Ends the session of `victim` from another connection and waits until the server let it go.
    static func terminate(_ victim: Int64, using database: SQLDatabase) throws {
        try database.execute("SELECT pg_terminate_backend(?)", [.integer(victim)])
        for _ in 0..<200 {
            if try database.queryFirst("SELECT count(*) AS n FROM pg_stat_activity WHERE pid = ?", [.integer(victim)])?.int("n") == 0 { return }
            usleep(10_000)
        }
    }

    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
    func aReadOnlySessionIsReadOnlyAgainAfterAReconnect() throws {
        let f = try BackendLedgerFixture(.postgres)
        try f.ledger.addCustomer("alice", isTester: false, operatorName: "mei")
        let reader = try PurchaseDatabase.openForReading(f.scratch.location)
        func writeIsRefused() -> Bool {
            do {
                try reader.writeTransaction { _ = try reader.execute("UPDATE customers SET is_tester = 1 WHERE customer_id = 'alice'", []) }
                return false
            } catch {
                return "\(error)".contains("read-only")
            }
        }
        #expect(writeIsRefused())
        let pid = try #require(try reader.queryFirst("SELECT pg_backend_pid() AS pid", [])?.int("pid"))
        try Self.terminate(pid, using: f.database)
        // The next statement reconnects; the new session is read-only too.
        _ = try? reader.queryFirst("SELECT 1 AS one", [])  // may fail once on the dead session, then reconnects
        #expect(try reader.queryFirst("SELECT pg_backend_pid() AS pid", [])?.int("pid") != pid, "no reconnect happened")
        #expect(writeIsRefused(), "the reconnected session accepted a write")
        #expect(try f.count("SELECT count(*) AS n FROM customers WHERE is_tester = 1") == 0)
    }

    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped), arguments: [3, 8, 14])
    func theServerGoingAwayMidImportLosesNothingAndSaysSo(_ statement: Int) throws {
        let f = try BackendLedgerFixture(.postgres)
        try f.ledger.createOrder("ORD-1", customer: "alice", product: "com.example.pro.monthly", operatorName: "mei")
        let before = try f.dump()
        let victim = try PurchaseDatabase.open(f.scratch.location, create: false)
        let pid = try #require(try victim.queryFirst("SELECT pg_backend_pid() AS pid", [])?.int("pid"))
        let trapped = StatementTrap(victim, at: statement) { try Self.terminate(pid, using: f.database) }
        let ledger = f.makeLedger(trapped)
        let receipt = try f.receipt([LedgerFixture.purchase("5001", bought: "2025-05-01T00:00:00Z"),
                                     LedgerFixture.purchase("5002", "com.example.coins.100", expires: nil, type: 1)])
        do {
            _ = try ledger.importArtefact(receipt, customer: "alice", orderId: "ORD-1", source: "test", operatorName: "mei")
            Issue.record("the import went through a dead connection")
        } catch let error as StoreError {
            #expect(error.code == .cannotOpen)
            #expect(error.reason.contains("lost the connection to PostgreSQL at 127.0.0.1:"), "\(error.reason)")
            #expect(error.reason.contains("nothing of this change was saved"), "\(error.reason)")
            #expect(!error.reason.contains("\n"))
        }
        #expect(trapped.statements >= statement, "the trap fired inside the import")
        #expect(try f.dump() == before, "nothing half-written")
        // Run again (the same connection reconnects): everything lands, once.
        let again = try ledger.importArtefact(receipt, customer: "alice", orderId: "ORD-1", source: "test", operatorName: "mei")
        #expect(again.transactions.map(\.outcome) == [.recorded(binding: .explicit, orderId: "ORD-1"), .recorded(binding: .unbound, orderId: nil)])
        #expect(try f.ledger.order("ORD-1")?.status == "paid")
        #expect(try AuditLog.verify(f.database).isIntact)
        #expect(try AuditLog.verify(f.database).checked == 2)
    }

    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
    func aSessionTheServerDroppedBetweenChangesReconnects() throws {
        let f = try BackendLedgerFixture(.postgres)
        let other = try PurchaseDatabase.open(f.scratch.location, create: false)
        let pid = try #require(try f.database.queryFirst("SELECT pg_backend_pid() AS pid", [])?.int("pid"))
        try Self.terminate(pid, using: other)
        // Reads and the next change go through on a fresh session; nothing is lost.
        try f.ledger.addCustomer("bob", isTester: false, operatorName: "mei")
        let pid2 = try #require(try f.database.queryFirst("SELECT pg_backend_pid() AS pid", [])?.int("pid"))
        #expect(pid2 != pid)
        try Self.terminate(pid2, using: other)
        #expect(try f.count("SELECT count(*) AS n FROM customers") == 1)
        #expect(try AuditLog.verify(f.database).isIntact)
    }
}
