import Foundation
@testable import PurchaseStore
import Testing

@Suite("PostgreSQL backend: SQL text, values, errors, transactions")
struct PostgresBackendTests {
    @Test func placeholdersAreNumberedOutsideQuotesAndComments() {
        let (text, count) = PostgresSQLText.numberingPlaceholders("""
            SELECT '?', "a?b", x FROM t -- what?
            WHERE a = ? AND b = 'it''s ?' /* ? */ AND c = ? AND d = $q$?$q$ AND e = ?
            """)
        #expect(count == 3)
        #expect(text == """
            SELECT '?', "a?b", x FROM t -- what?
            WHERE a = $1 AND b = 'it''s ?' /* ? */ AND c = $2 AND d = $q$?$q$ AND e = $3
            """)
        #expect(PostgresSQLText.numberingPlaceholders("INSERT INTO t VALUES (?, ?, ?)").text == "INSERT INTO t VALUES ($1, $2, $3)")
        #expect(PostgresSQLText.numberingPlaceholders("SELECT 'unterminated ?").count == 0)
    }

    @Test func byteaHexIsDecoded() {
        let decoded = Array("\\x00ff10Ab".utf8).withUnsafeBytes { PostgresRowDecoder.hexBytes($0) }
        #expect(decoded == [0x00, 0xFF, 0x10, 0xAB])
        #expect(Array("\\x0".utf8).withUnsafeBytes { PostgresRowDecoder.hexBytes($0) } == nil)
        #expect(Array("\\xzz".utf8).withUnsafeBytes { PostgresRowDecoder.hexBytes($0) } == nil)
    }

    @Test func onlyPostgresURLsSelectPostgres() {
        #expect(PostgresDatabase.isURL("postgres://db.example/receipts"))
        #expect(PostgresDatabase.isURL("PostgreSQL://u@h:5432/d?sslmode=require"))
        #expect(!PostgresDatabase.isURL("/var/lib/receiptdesk/postgres://x.sqlite"))
        #expect(!PostgresDatabase.isURL("purchases.sqlite"))
        #expect(PostgresDatabase.urlHasPassword("postgresql://mei:s3cret@db.example:5432/receipts"))
        #expect(PostgresDatabase.urlHasPassword("postgresql://db.example/receipts?sslmode=require&password=s3cret"))
        #expect(!PostgresDatabase.urlHasPassword("postgresql://mei@db.example:5432/receipts?sslmode=require"))
        #expect(!PostgresDatabase.urlHasPassword("postgresql://[::1]:5432/receipts"))
    }

    @Test func anUnreachableServerIsOneLineNamingHostAndPort() throws {
        let start = Date()
        do {
            _ = try PurchaseDatabase.open("postgresql://operator:s3cret-pw@127.0.0.1:1/receipts")
            Issue.record("connected to port 1")
        } catch let error as StoreError {
            #expect(error.code == .cannotOpen)
            #expect(error.reason.contains("127.0.0.1:1"), "\(error.reason)")
            #expect(error.reason.contains("/receipts"))
            #expect(!error.reason.contains("\n"))
            #expect(!error.reason.contains("s3cret"), "the password never appears")
            #expect(!error.reason.contains("operator"), "nor the user")
        }
        #expect(Date().timeIntervalSince(start) < 5)
    }

    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
    func valuesRoundTripWithTheKindsSQLiteGives() throws {
        let scratch = try ScratchDatabase(.postgres)
        let database = try PostgresDatabase(url: scratch.location)
        #expect(!database.location.contains("postgres@"))
        #expect(database.location.contains("127.0.0.1:"))
        try database.execute("CREATE TABLE kv (k TEXT PRIMARY KEY, i BIGINT, small INTEGER, r DOUBLE PRECISION, b BYTEA, t TEXT)", [])
        let blob: [UInt8] = [0, 1, 2, 0xFF, 0x5C, 0x78]
        let text = "it's \"quoted\"; ? DROP TABLE kv; -- ünïcødé ✓"
        #expect(try database.execute("INSERT INTO kv VALUES (?, ?, ?, ?, ?, ?)",
                                     [.text("a"), .integer(9_000_000_000), .integer(-7), .real(2.5), .blob(blob), .text(text)]) == 1)
        try database.execute("INSERT INTO kv (k, b) VALUES (?, ?)", [.text("empty"), .blob([])])
        let row = try #require(try database.queryFirst("SELECT * FROM kv WHERE k = ?", [.text("a")]))
        #expect(row["i"] == .integer(9_000_000_000))
        #expect(row["small"] == .integer(-7))
        #expect(row["r"] == .real(2.5))
        #expect(row["b"] == .blob(blob))
        #expect(row["t"] == .text(text))
        #expect(try database.queryFirst("SELECT b, t FROM kv WHERE k = 'empty'", [])?.values == [.blob([]), .null])
        #expect(try database.queryFirst("SELECT count(*) AS n, sum(i) AS s, 1 = 1 AS yes FROM kv", [])?.values
                == [.integer(2), .integer(9_000_000_000), .integer(1)])
        #expect(throws: StoreError(.invalidInput, "")) { try database.execute("INSERT INTO kv (k) VALUES (?)", [.text("nul\u{0}byte")]) }
        #expect(throws: StoreError(.sql, "")) { try database.execute("INSERT INTO kv (k) VALUES (?)", []) }
    }

    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
    func transactionsCommitRollBackAndNest() throws {
        let scratch = try ScratchDatabase(.postgres)
        let database = try PostgresDatabase(url: scratch.location)
        try database.execute("CREATE TABLE kv (k TEXT PRIMARY KEY, v BIGINT NOT NULL)", [])
        try database.writeTransaction {
            try database.execute("INSERT INTO kv VALUES ('a', 1)", [])
            _ = try database.writeTransaction { try database.execute("INSERT INTO kv VALUES ('b', 2)", []) }
        }
        struct Oops: Error {}
        #expect(throws: Oops.self) {
            try database.writeTransaction {
                try database.execute("INSERT INTO kv VALUES ('c', 3)", [])
                throw Oops()
            }
        }
        // A duplicate key: rolled back whole (after the retries), reported as a constraint.
        #expect(throws: StoreError(.constraint, "")) {
            try database.writeTransaction {
                try database.execute("INSERT INTO kv VALUES ('d', 4)", [])
                try database.execute("INSERT INTO kv VALUES ('a', 5)", [])
            }
        }
        // A body that swallows a failed statement cannot commit what PostgreSQL abandoned.
        #expect(throws: StoreError.self) {
            try database.writeTransaction {
                try database.execute("INSERT INTO kv VALUES ('e', 6)", [])
                _ = try? database.execute("INSERT INTO kv VALUES ('a', 7)", [])  // the failure under test
            }
        }
        #expect(try database.query("SELECT k FROM kv ORDER BY k", []).compactMap { $0.string("k") } == ["a", "b"])
        #expect(throws: StoreError(.constraint, "")) { try database.execute("INSERT INTO kv VALUES ('a', 1)", []) }
        #expect(throws: StoreError(.constraint, "")) { try database.execute("INSERT INTO kv (k) VALUES ('z')", []) }
    }

    /// A deadlock (40P01, raised here by the server on demand) rolls the transaction back and
    /// runs it again whole; one that never clears is reported as busy, saying how often it ran.
    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
    func aDeadlockIsRunAgainWholeAndOneThatNeverClearsSaysHowOftenItRan() throws {
        let scratch = try ScratchDatabase(.postgres)
        let database = try PostgresDatabase(url: scratch.location)
        try database.execute("CREATE TABLE kv (k TEXT PRIMARY KEY, v BIGINT NOT NULL)", [])
        let deadlock = "DO $$ BEGIN RAISE EXCEPTION 'deadlock detected (forced)' USING ERRCODE = '40P01'; END $$"
        var runs = 0
        try database.writeTransaction {
            runs += 1
            try database.execute("INSERT INTO kv VALUES ('a', ?)", [.integer(Int64(runs))])
            if runs < 3 { try database.execute(deadlock, []) }
        }
        #expect(runs == 3)
        #expect(try database.query("SELECT v FROM kv", []).compactMap { $0.int("v") } == [3], "only the run that committed left its row")
        runs = 0
        do {
            try database.writeTransaction {
                runs += 1
                try database.execute("INSERT INTO kv VALUES ('b', 1)", [])
                try database.execute(deadlock, [])
            }
            Issue.record("a deadlock on every run was committed")
        } catch let error as StoreError {
            #expect(error.code == .busy)
            #expect(error.reason.contains("deadlock detected (forced), \(PostgresDatabase.maxAttempts) times") && error.reason.hasSuffix("try again"), "\(error.reason)")
        }
        #expect(runs == PostgresDatabase.maxAttempts)
        #expect(try database.query("SELECT k FROM kv WHERE k = 'b'", []).isEmpty)
    }

    @Test(arguments: TestBackend.available)
    func aSavepointUndoesAFailedStatementAndTheTransactionGoesOn(_ backend: TestBackend) throws {
        let scratch = try ScratchDatabase(backend)
        let database = try scratch.open()
        try database.execute("CREATE TABLE kv (k TEXT PRIMARY KEY)", [])
        try database.writeTransaction {
            try database.execute("INSERT INTO kv VALUES ('a')", [])
            #expect(throws: StoreError(.constraint, "")) {
                try database.savepoint { try database.execute("INSERT INTO kv VALUES ('a')", []) }
            }
            _ = try database.savepoint { try database.execute("INSERT INTO kv VALUES ('b')", []) }
            try database.execute("INSERT INTO kv VALUES ('c')", [])
        }
        #expect(try database.query("SELECT k FROM kv ORDER BY k", []).compactMap { $0.string("k") } == ["a", "b", "c"])
    }

    /// A plan estimated dear (an index without statistics yet) is not JIT-compiled: each
    /// search would spend tens of milliseconds compiling a plan that runs in a fraction of one.
    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
    func sessionsCompileNoPlanJustInTime() throws {
        let scratch = try ScratchDatabase(.postgres)
        let database = try scratch.open()
        #expect(try database.queryFirst("SELECT current_setting('jit') AS jit", [])?.string("jit") == "off")
        let reader = try PostgresDatabase(url: scratch.location, readOnly: true)
        #expect(try reader.queryFirst("SELECT current_setting('jit') AS jit", [])?.string("jit") == "off")
    }

    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
    func aWriterWaitingLongerThanTheBusyTimeoutIsBusy() throws {
        let scratch = try ScratchDatabase(.postgres)
        _ = try scratch.open()
        let holder = try PostgresDatabase(url: scratch.location)
        let waiter = try PostgresDatabase(url: scratch.location)
        try waiter.execute("SET lock_timeout = '200ms'", [])
        try holder.writeTransaction {
            try holder.lockAuditChain()
            #expect(try waiter.writeTransaction { 42 } == 42, "a writer that appends nothing waits for nobody")
            let start = Date()
            #expect(throws: StoreError(.busy, "")) { try waiter.writeTransaction { try waiter.lockAuditChain() } }
            #expect(throws: StoreError(.busy, "")) {
                try waiter.writeTransaction {
                    _ = try AuditLog.append(waiter, at: Date(), operatorName: "w", action: "test", target: "t", details: .object([]))
                }
            }
            #expect(Date().timeIntervalSince(start) < 5)
            // The same customer is changed by one writer at a time, other customers by anyone.
            try holder.execute("INSERT INTO customers (customer_id, created_at, updated_at) VALUES ('a', 'x', 'x'), ('b', 'x', 'x')", [])
        }
        try holder.writeTransaction {
            try holder.lockCustomer("a")
            #expect(throws: StoreError(.busy, "")) { try waiter.writeTransaction { try waiter.lockCustomer("a") } }
            try waiter.writeTransaction { try waiter.lockCustomer("b") }
        }
        try waiter.writeTransaction { try waiter.lockAuditChain(); try waiter.lockCustomer("a") }  // free again
    }
}
