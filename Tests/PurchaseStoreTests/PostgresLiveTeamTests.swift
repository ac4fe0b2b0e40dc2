import Foundation
@testable import PurchaseStore
import ReceiptCore
import Testing

/// The live team view: change notifications, and actions refused when the row changed meanwhile.
@Suite("Live team view: change feed and optimistic concurrency")
struct PostgresLiveTeamTests {
    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
    func everyCommittedChangeIsAnnouncedToOtherConsoles() throws {
        let f = try BackendLedgerFixture(.postgres)
        let console = try PostgresDatabase(url: f.scratch.location)
        try console.listenForChanges()
        let quiet = Date()
        #expect(try console.waitForChange(timeout: 0.2) == nil)
        #expect(Date().timeIntervalSince(quiet) >= 0.19)

        try f.ledger.addCustomer("alice", isTester: false, operatorName: "mei")
        let changes = try #require(try console.waitForChange(timeout: 30))
        #expect(changes.contains("customers"))
        #expect(changes.contains("audit_log:1"))

        let grant = try f.ledger.grant(customer: "alice", entitlement: "pro", until: nil, reason: "goodwill", operatorName: "mei")
        let granted = try #require(try console.waitForChange(timeout: 30))
        #expect(granted.contains("grants") && grant.grantId > 0)
        #expect(granted.contains("entitlements"))
        #expect(granted.contains("audit_log:2"))

        // A rolled-back change announces nothing.
        struct Abandon: Error {}
        _ = try? f.database.writeTransaction {  // the error is the point: the change is abandoned
            try f.database.execute("INSERT INTO customers (customer_id, is_tester, created_at, updated_at) VALUES ('ghost', 0, 'x', 'x')", [])
            throw Abandon()
        }
        #expect(try console.waitForChange(timeout: 0.3) == nil)

        // Another receiptdesk database on the same server (another schema) is not this one.
        let elsewhere = try BackendLedgerFixture(.postgres)
        try elsewhere.ledger.addCustomer("zed", isTester: false, operatorName: "li")
        #expect(try console.waitForChange(timeout: 0.3) == nil)

        // The console's session is dropped: it comes back and says to reload everything, then listens on.
        let pid = try #require(try console.queryFirst("SELECT pg_backend_pid() AS pid", [])?.int("pid"))
        try PostgresFaultTests.terminate(pid, using: f.database)
        #expect(try console.waitForChange(timeout: 30) == ["*"])
        try f.ledger.addCustomer("bob", isTester: false, operatorName: "mei")
        #expect(try console.waitForChange(timeout: 30)?.contains("customers") == true)
    }

    /// The triggers run once per statement and send one notice naming the table for a statement
    /// that changed rows, inserted, updated or deleted (none for one that changed nothing); the
    /// earlier versions' triggers (one call per row; a notice per row naming its key), as an older
    /// receiptdesk left them, are replaced when the database is opened.
    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
    func everyStatementIsAnnouncedByTableAndTheFormerTriggersAreReplaced() throws {
        let f = try BackendLedgerFixture(.postgres)
        try f.database.execute("""
            CREATE OR REPLACE FUNCTION receiptdesk_notify_customers() RETURNS trigger LANGUAGE plpgsql AS $body$
            BEGIN PERFORM pg_notify('changes', TG_TABLE_SCHEMA || '.v1:' || coalesce(NEW.customer_id, OLD.customer_id)); RETURN NULL; END $body$
            """, [])
        try f.database.execute("""
            CREATE TRIGGER receiptdesk_changes_v1 AFTER INSERT OR UPDATE OR DELETE ON customers FOR EACH ROW EXECUTE FUNCTION receiptdesk_notify_customers()
            """, [])
        // The second version's: a notice per row of the statement, naming the row's key.
        try f.database.execute("""
            CREATE OR REPLACE FUNCTION receiptdesk_notify_rows_customers() RETURNS trigger LANGUAGE plpgsql AS $body$
            BEGIN PERFORM pg_notify('changes', TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME || ':' || changed.customer_id) FROM new_rows AS changed;
            RETURN NULL; END $body$
            """, [])
        try f.database.execute("DROP TRIGGER receiptdesk_changes_v3_insert ON customers", [])
        try f.database.execute("""
            CREATE TRIGGER receiptdesk_changes_v2_insert AFTER INSERT ON customers REFERENCING NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION receiptdesk_notify_rows_customers()
            """, [])
        let console = try #require(try PurchaseDatabase.open(f.scratch.location) as? PostgresDatabase)
        let triggers = try console.query("""
            SELECT t.tgname AS name, count(*) AS n FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
            WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND t.tgname LIKE 'receiptdesk%'
            GROUP BY t.tgname ORDER BY 1
            """, []).map { "\($0.string("name") ?? "?") \($0.int("n") ?? 0)" }
        #expect(triggers == ["receiptdesk_changes_v3_delete 11", "receiptdesk_changes_v3_insert 11", "receiptdesk_changes_v3_update 11"])
        #expect(try console.queryFirst("SELECT to_regproc('receiptdesk_notify_rows_customers') IS NULL AS gone", [])?.bool("gone") == true)
        try console.execute("LISTEN changes", [])
        let schema = try #require(try console.queryFirst("SELECT current_schema() AS s", [])?.string("s"))
        /// The notices heard up to the marker, sent by hand after the statement.
        func heard() throws -> [String] {
            let marker = "\(schema).marker"
            try f.database.execute("SELECT pg_notify('changes', ?::text)", [.text(marker)])
            var seen: [String] = []
            let deadline = Date().addingTimeInterval(30)  // a safety net: they come at the commit, in order
            while !seen.contains(marker), Date() < deadline {
                _ = try console.connection.awaitInput(timeout: 1)
                // This schema's only: tests running alongside share the server, and so the channel.
                seen += console.connection.takeNotifications().filter { $0.channel == "changes" && $0.payload.hasPrefix(schema + ".") }.map(\.payload)
            }
            return seen.filter { $0 != marker }
        }
        try f.database.execute("""
            INSERT INTO customers (customer_id, is_tester, created_at, updated_at) VALUES ('ann', 0, 'x', 'x'), ('ben', 0, 'x', 'x'), ('cy', 0, 'x', 'x')
            """, [])
        #expect(try heard() == ["\(schema).customers"])
        try f.database.execute("UPDATE customers SET is_tester = 1 WHERE customer_id IN ('ann', 'cy')", [])
        #expect(try heard() == ["\(schema).customers"])
        try f.database.execute("UPDATE customers SET is_tester = 1 WHERE customer_id = 'nobody'", [])
        #expect(try heard() == [], "a statement that changed nothing says nothing")
        try f.database.execute("DELETE FROM customers WHERE customer_id IN ('ben', 'cy')", [])
        #expect(try heard() == ["\(schema).customers"])
        // Changes made by hand, outside the ledger, write no audit entry: the feed does not report
        // them (as the audit head poller of SQLite does not), only confirmed ones.
        #expect(try console.waitForChange(timeout: 0.3) == nil)
    }

    @Test(arguments: TestBackend.available)
    func theChangeFeedOfEitherBackendWakesAtOnceForACommittedChange(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let feed = ChangeFeeds.make(for: try f.scratch.open())
        #expect(try feed.waitForChange(timeout: 0.1) == nil)
        try f.ledger.addCustomer("alice", isTester: false, operatorName: "mei")
        let start = Date()
        let changes = try #require(try feed.waitForChange(timeout: 30))
        // The change was committed before the wait: it returns at once (the poller's interval is
        // 0.25 s), far from its 30 s timeout. 5 s leaves room for a loaded machine's scheduling.
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(changes.contains("audit_log:1"))
    }

    @Test(arguments: TestBackend.available)
    func anActionOnARowSomeoneElseChangedIsRefusedWithWhatChanged(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        try f.ledger.createOrder("ORD-1", customer: "alice", product: "com.example.pro.monthly", operatorName: "mei")
        let seen = try #require(try RowGuard.snapshot(f.database, .orders, key: "ORD-1"))
        #expect(seen.version == 1)

        // Meanwhile another operator, on another connection, pays the order.
        let colleague = f.makeLedger(try f.scratch.open())
        _ = try colleague.importArtefact(try f.receipt([LedgerFixture.purchase("7001")]), customer: "alice", orderId: "ORD-1",
                                         source: "test", operatorName: "li")
        let before = try f.dump()
        do {
            try RowGuard.perform(f.database, unchanged: [seen]) {
                _ = try f.ledger.recordFailedPayment("ORD-1", reason: "card declined", operatorName: "mei")
            }
            Issue.record("the stale action was applied")
        } catch let error as StoreError {
            #expect(error.code == .invalidRequest)
            #expect(error.reason.contains("order ORD-1 was changed by someone else"), "\(error.reason)")
            #expect(error.reason.contains("status pending → paid"), "\(error.reason)")
            #expect(error.reason.contains("transaction_id – → 7001"), "\(error.reason)")
        }
        #expect(try f.dump() == before, "nothing was written")
        #expect(try RowGuard.changes(f.database, since: seen)?.map(\.column) == ["status", "transaction_id", "version"])

        // Looking again, the operator acts on what is there now.
        let fresh = try #require(try RowGuard.snapshot(f.database, .orders, key: "ORD-1"))
        #expect(try RowGuard.changes(f.database, since: fresh) == nil)
        try RowGuard.perform(f.database, unchanged: [fresh]) {
            try f.ledger.revoke(customer: "alice", entitlement: "pro", reason: "chargeback", operatorName: "mei")
        }
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    @Test(arguments: TestBackend.available)
    func rowsWithoutAVersionAreComparedWholeAndRemovedRowsAreNamed(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        try f.ledger.addCustomer("alice", isTester: false, operatorName: "mei")
        let grant = try f.ledger.grant(customer: "alice", entitlement: "pro", until: nil, reason: "goodwill", operatorName: "mei")
        let seen = try #require(try RowGuard.snapshot(f.database, .grants, key: String(grant.grantId)))
        #expect(seen.version == nil)
        try f.makeLedger(try f.scratch.open()).revoke(customer: "alice", grantId: grant.grantId, reason: "abuse", operatorName: "li")
        #expect(throws: StoreError(.invalidRequest, "")) {
            try RowGuard.perform(f.database, unchanged: [seen]) {
                try f.ledger.revoke(customer: "alice", grantId: grant.grantId, reason: "mine", operatorName: "mei")
            }
        }
        let reasons = try #require(try RowGuard.changes(f.database, since: seen)).map(\.description)
        #expect(reasons.contains("revoked_by – → li"))

        let order = try f.ledger.createOrder("ORD-9", customer: "alice", product: "com.example.pro.lifetime", operatorName: "mei")
        let orderSeen = try #require(try RowGuard.snapshot(f.database, .orders, key: order.order.orderId))
        try f.database.execute("DELETE FROM orders WHERE order_id = 'ORD-9'", [])
        do {
            try RowGuard.perform(f.database, unchanged: [orderSeen]) {}
            Issue.record("a removed row passed")
        } catch let error as StoreError {
            #expect(error.reason.contains("order ORD-9 was removed"))
        }
        #expect(try RowGuard.snapshot(f.database, .customers, key: "nobody") == nil)
    }
}
