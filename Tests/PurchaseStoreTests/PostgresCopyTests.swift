import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

@Suite("db copy between the backends")
struct PostgresCopyTests {
    /// A ledger with a bit of everything: orders (paid, failed), receipts, transactions, a
    /// conflict, grants (one revoked), a revocation, a notification, entitlements, the audit log.
    static func populate(_ f: BackendLedgerFixture) throws {
        let ledger = f.ledger
        try ledger.createOrder("ORD-1", customer: "alice", product: "com.example.pro.monthly", operatorName: "mei")
        try ledger.createOrder("ORD-2", customer: "bob", product: "com.example.coins.100", accountToken: "5A3C6E1B-58F0-4B9E-9C1F-2D3E4F5A6B7C", operatorName: "mei")
        try ledger.recordFailedPayment("ORD-2", reason: "SKErrorPaymentCancelled", operatorName: "mei")
        let shared = try f.receipt([LedgerFixture.purchase("1001", "com.example.pro.lifetime", expires: nil, type: 0)])
        _ = try ledger.importArtefact(try f.receipt([LedgerFixture.purchase("1000", bought: "2025-04-01T00:00:00Z")]), customer: "alice",
                                      orderId: "ORD-1", source: "test", operatorName: "mei")
        _ = try ledger.importArtefact(shared, customer: "alice", source: "test", operatorName: "mei")
        _ = try ledger.importArtefact(shared, customer: "王小明", source: "test", operatorName: "li")
        _ = try ledger.importArtefact(try f.jws("1002", product: "com.example.pro.lifetime"), customer: "carol", source: "test", operatorName: "li")
        let grant = try ledger.grant(customer: "bob", entitlement: "pro", until: LedgerFixture.date("2025-09-01T00:00:00Z"),
                                     reason: "outage \"goodwill\" ✓", operatorName: "mei")
        try ledger.revoke(customer: "bob", grantId: grant.grantId, reason: "ended early", operatorName: "mei")
        try ledger.grant(customer: "bob", entitlement: "coins", until: nil, reason: "apology", operatorName: "mei")
        try ledger.revoke(customer: "carol", entitlement: "pro", reason: "chargeback", operatorName: "li")
        let renewal = TransactionPayload(transactionId: "1003", originalTransactionId: "1000", bundleId: "com.example.app",
                                         productId: "com.example.pro.monthly", type: "Auto-Renewable Subscription",
                                         purchaseDate: LedgerFixture.date("2025-05-01T00:00:00Z"), expiresDate: LedgerFixture.date("2025-07-01T00:00:00Z"),
                                         signedDate: LedgerFixture.date("2025-05-01T00:00:00Z"), environment: "Production")
        let body = try JWSBuilder(authority: f.authority).notificationBody(NotificationPayload(
            notificationType: "DID_RENEW", notificationUUID: "uuid-copy-1", signedDate: f.now,
            data: NotificationData(bundleId: "com.example.app", environment: "Production", signedTransactionInfo: .payload(renewal))))
        _ = try ledger.applyNotification(Array(body.utf8), operatorName: "apple")
    }

    static func contents(_ database: SQLDatabase) throws -> String {
        try BackendDump.text(database, excluding: ["schema_migrations"])  // applied_at is when each database was created
    }

    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
    func aDatabaseMovesToPostgresAndBackUnchanged() throws {
        let original = try BackendLedgerFixture(.sqlite)
        try Self.populate(original)
        let server = try ScratchDatabase(.postgres)
        let postgres = try server.open()
        var heard: [String] = []
        let there = try DatabaseCopy.copy(from: original.database, to: postgres) { table, _ in heard.append(table) }
        #expect(there.isVerified)
        let entries = try AuditLog.verify(original.database).checked
        #expect(entries >= 12)
        #expect(there.audit.checked == entries)
        #expect(there.tables.first { $0.name == "transactions" }?.targetRows == 4)
        #expect(there.tables.allSatisfy { $0.sourceRows == $0.targetRows && $0.contentsMatch })
        #expect(heard.count == there.tables.count)
        #expect(try Self.contents(postgres) == Self.contents(original.database))
        // Vacuumed and analysed at once, not left for autovacuum to do under the first lookups.
        #expect(there.unsettled == nil)
        let settled = try postgres.query("""
            SELECT relname FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname IN ('customers', 'transactions', 'audit_log')
            AND last_vacuum IS NOT NULL AND last_analyze IS NOT NULL
            """, []).compactMap { $0.string("relname") }
        #expect(settled.sorted() == ["audit_log", "customers", "transactions"])

        let back = try ScratchDatabase(.sqlite)
        let sqlite = try back.open()
        let home = try DatabaseCopy.copy(from: postgres, to: sqlite)
        #expect(home.isVerified)
        #expect(try Self.contents(sqlite) == Self.contents(original.database))

        // New rows continue after the copied ids on both, and the chain goes on.
        let lastGrant = try original.count("SELECT max(grant_id) AS n FROM grants")
        let lastReceipt = try original.count("SELECT max(receipt_id) AS n FROM receipts")
        for database in [postgres, sqlite] {
            let ledger = original.makeLedger(database)
            let grant = try ledger.grant(customer: "alice", entitlement: "coins", until: nil, reason: "after the move", operatorName: "mei")
            #expect(grant.grantId == lastGrant + 1)
            let receipt = try ledger.importArtefact(try original.receipt([LedgerFixture.purchase("2001")]), customer: "dave", source: "test", operatorName: "mei")
            #expect(receipt.receiptId == lastReceipt + 1)
            #expect(try AuditLog.verify(database).checked == entries + 2)
        }
    }

    /// Another operator grants while the copy runs (from the moment its last table is written):
    /// the grant goes through without waiting, and the copy, read and checked in one snapshot of
    /// the source, still verifies.
    @Test(arguments: TestBackend.available)
    func aChangeDuringTheCopyNeverMakesACorrectCopyLookWrong(_ backend: TestBackend) throws {
        let source = try BackendLedgerFixture(backend)
        try Self.populate(source)
        let target = try ScratchDatabase(backend)
        let other = source.makeLedger(try source.scratch.open())
        let done = DispatchSemaphore(value: 0)
        // Written by the thread before it signals; the ledger is used by that thread alone.
        final class Box: @unchecked Sendable {
            var error: Error?
            let ledger: PurchaseLedger
            init(_ ledger: PurchaseLedger) { self.ledger = ledger }
        }
        let box = Box(other)
        var started = false
        var finishedDuringCopy = false
        let report = try DatabaseCopy.copy(from: source.database, to: try target.open()) { table, _ in
            guard table == "audit_head", !started else { return }
            started = true
            Thread.detachNewThread {
                do { _ = try box.ledger.grant(customer: "alice", entitlement: "coins", until: nil, reason: "during the copy", operatorName: "li") } catch {
                    box.error = error
                }
                done.signal()
            }
            // The grant commits while the copy is still under way: nothing holds the source.
            finishedDuringCopy = done.wait(timeout: .now() + 30) == .success
        }
        if !finishedDuringCopy { done.wait() }
        #expect(finishedDuringCopy, "the grant waited for the copy")
        #expect(report.isVerified, "\(report.tables.filter { !$0.isIdentical })")
        #expect(box.error == nil, "the grant failed: \(String(describing: box.error))")
        #expect(try source.count("SELECT count(*) AS n FROM grants WHERE reason = 'during the copy'") == 1)
    }

    @Test(arguments: TestBackend.available)
    func aCopyIsRefusedIntoADatabaseWithDataOrFromABrokenChain(_ backend: TestBackend) throws {
        let source = try BackendLedgerFixture(backend)
        try source.ledger.addCustomer("alice", isTester: false, operatorName: "mei")
        let busy = try BackendLedgerFixture(backend)
        try busy.ledger.addCustomer("bob", isTester: false, operatorName: "mei")
        let before = try busy.dump()
        #expect(throws: StoreError(.invalidRequest, "")) { _ = try DatabaseCopy.copy(from: source.database, to: busy.database) }
        #expect(try busy.dump() == before)
        #expect(throws: StoreError(.invalidInput, "")) { _ = try DatabaseCopy.copy(from: source.database, to: try source.scratch.open()) }

        try source.database.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)", [])
        #expect(throws: StoreError(.schemaTooNew, "")) { _ = try DatabaseCopy.copy(from: source.database, to: try ScratchDatabase(backend).open()) }
        try source.database.execute("DROP TABLE notes", [])

        try source.database.execute("UPDATE audit_log SET operator = 'ghost' WHERE seq = 1", [])
        let empty = try ScratchDatabase(backend)
        let target = try empty.open()
        do {
            _ = try DatabaseCopy.copy(from: source.database, to: target)
            Issue.record("a broken chain was copied")
        } catch let error as StoreError {
            #expect(error.code == .auditBroken)
            #expect(error.reason.contains("entry 1 was altered"))
        }
        #expect(try target.queryFirst("SELECT count(*) AS n FROM customers", [])?.int("n") == 0)
    }

    /// What COPY's text format must escape (tab, newline, carriage return, backslash, `\N`,
    /// `\.`), an empty text beside a NULL, wide characters, the largest integers and a blob of
    /// the bytes that matter arrive as they left, both ways; a text holding a NUL is refused with
    /// the table, row and column, and the target keeps nothing.
    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
    func oddValuesArriveAsTheyLeftAndATextWithANULIsRefusedWhole() throws {
        let original = try BackendLedgerFixture(.sqlite)
        try Self.populate(original)
        let database = original.database
        let odd = "tab\there\nnew line\r\\ back \\N \\.\n\\.\n王小明 ✓ \u{1F600}\t"
        try database.execute("UPDATE customers SET display_name = ?, email = '' WHERE customer_id = 'alice'", [.text(odd)])
        try database.execute("UPDATE customers SET display_name = NULL, email = ? WHERE customer_id = 'bob'", [.text("\\")])
        try database.execute("UPDATE orders SET version = ? WHERE order_id = 'ORD-1'", [.integer(Int64.max)])
        try database.execute("UPDATE orders SET version = ? WHERE order_id = 'ORD-2'", [.integer(Int64.min)])
        let bytes: [UInt8] = [0, 0x5c, 0x0a, 0x09, 0x0d, 0x4e, 0x2e, 0xff, 0x80, 0x5c, 0x78]
        try database.execute("UPDATE receipts SET raw = ?, decoded_json = ? WHERE receipt_id = 1", [.blob(bytes), .text("{\"a\":\"x\\ny\"}\n\t")])
        try database.execute("UPDATE receipts SET raw = ? WHERE receipt_id = 2", [.blob([])])

        let scratches = [try ScratchDatabase(.postgres), try ScratchDatabase(.sqlite), try ScratchDatabase(.postgres)]
        let there = try scratches[0].open()
        let report = try DatabaseCopy.copy(from: database, to: there)
        #expect(report.isVerified, "\(report.tables.filter { !$0.isIdentical })")
        #expect(try Self.contents(there) == Self.contents(database))
        #expect(try there.queryFirst("SELECT display_name, email FROM customers WHERE customer_id = 'alice'", [])?.string("display_name") == odd)
        #expect(try there.queryFirst("SELECT email FROM customers WHERE customer_id = 'alice'", [])?.string("email") == "")
        #expect(try there.queryFirst("SELECT display_name FROM customers WHERE customer_id = 'bob'", [])?["display_name"] == .null)
        #expect(try there.queryFirst("SELECT raw FROM receipts WHERE receipt_id = 1", [])?.blob("raw") == bytes)
        let back = try scratches[1].open()
        #expect(try DatabaseCopy.copy(from: there, to: back).isVerified)
        #expect(try Self.contents(back) == Self.contents(database))

        // Written by SQL: the store binds text up to its first NUL, as a C string would.
        try database.execute("UPDATE customers SET display_name = 'car' || char(0) || 'ol' WHERE customer_id = 'carol'", [])
        #expect(try database.queryFirst("SELECT length(CAST(display_name AS BLOB)) AS n FROM customers WHERE customer_id = 'carol'", [])?.int("n") == 6)
        let refused = try scratches[2].open()
        do {
            _ = try DatabaseCopy.copy(from: database, to: refused)
            Issue.record("a text holding a NUL was copied")
        } catch let error as StoreError {
            #expect(error.code == .invalidInput)
            #expect(error.reason.contains("customers row customer_id \"carol\": display_name holds a NUL character"), "\(error.reason)")
        }
        #expect(try refused.queryFirst("SELECT count(*) AS n FROM customers", [])?.int("n") == 0)
        // The session is usable afterwards: the failed copy was rolled back.
        #expect(try DatabaseCopy.copy(from: back, to: refused).isVerified)
    }
}
