import Foundation
@testable import PurchaseStore
import Testing

/// `db copy` into PostgreSQL sets the tables' indexes and keys aside while the rows stream in
/// and builds them afterwards, in the same transaction: the copy ends with exactly the schema's
/// indexes and constraints, their checks still refuse what they refused, and a copy that fails
/// midway leaves every index and key in place and no row behind.
@Suite("db copy builds indexes and keys after the rows")
struct PostgresBulkLoadTests {
    static var copied: [String] { DatabaseCopy.tables.map(\.name) }

    /// The indexes and key constraints of the copied tables, as the catalog describes them
    /// (the schema's name taken out: each test database has its own).
    static func structures(_ database: SQLDatabase) throws -> [PostgresBulkLoad.Structure] {
        let postgres = try #require(database as? PostgresDatabase)
        let schema = postgres.schemaName
        return try PostgresBulkLoad.current(copied, in: postgres).map {
            .init(kind: $0.kind, table: $0.table, name: $0.name, definition: $0.definition.replacingOccurrences(of: schema + ".", with: ""))
        }
    }

    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
    func theCopyEndsWithTheSchemasIndexesAndKeys() throws {
        let source = try BackendLedgerFixture(.sqlite)
        try PostgresCopyTests.populate(source)
        let scratches = [try ScratchDatabase(.postgres), try ScratchDatabase(.postgres)]  // dropped when let go
        let fresh = try Self.structures(try scratches[0].open())
        // Every kind is there to be set aside and built again.
        #expect(Set(fresh.map(\.kind)).isSuperset(of: ["p", "f", "i"]), "\(Set(fresh.map(\.kind)))")
        #expect(fresh.contains { $0.table == "transactions" && $0.kind == "f" && $0.definition.contains("REFERENCES customers") })
        let target = try scratches[1].open()
        let report = try DatabaseCopy.copy(from: source.database, to: target)
        #expect(report.isVerified)
        #expect(try Self.structures(target) == fresh)
        // Built over the rows, and in force: a key that repeats or names nobody is refused.
        #expect(throws: StoreError.self) {
            try target.execute("INSERT INTO customers (customer_id, is_tester, created_at, updated_at) SELECT customer_id, is_tester, created_at, updated_at FROM customers LIMIT 1", [])
        }
        #expect(throws: StoreError.self) {
            try target.execute("UPDATE transactions SET customer_id = 'nobody' WHERE transaction_id = '1000'", [])
        }
        #expect(report.phases.map(\.name).contains("building indexes and checking keys"))
    }

    /// A transaction naming a customer the source does not hold (written with SQLite's foreign
    /// keys off): the copy fails at that table (SQLite) or when its foreign key is built over the
    /// rows (PostgreSQL), the target keeps no row and, on PostgreSQL, every index and key; once
    /// the source is mended, the same target takes the copy.
    @Test(arguments: TestBackend.available)
    func aCopyThatFailsMidwayLeavesEveryIndexAndNoRow(_ backend: TestBackend) throws {
        let source = try BackendLedgerFixture(.sqlite)
        try PostgresCopyTests.populate(source)
        let sqlite = try #require(source.database as? SQLiteDatabase)
        try sqlite.execute("PRAGMA foreign_keys=OFF", [])
        try sqlite.execute("CREATE TEMP TABLE orphan AS SELECT * FROM transactions WHERE transaction_id = '1000'", [])
        try sqlite.execute("UPDATE orphan SET transaction_id = '9999', original_transaction_id = '9999', customer_id = 'ghost'", [])
        try sqlite.execute("INSERT INTO transactions SELECT * FROM orphan", [])
        try sqlite.execute("DROP TABLE orphan", [])
        try sqlite.execute("PRAGMA foreign_keys=ON", [])
        let scratch = try ScratchDatabase(backend)
        let target = try scratch.open()
        let before = backend == .postgres ? try Self.structures(target) : []
        #expect(backend == .sqlite || before.count > 20, "\(before.count) indexes and keys")
        do {
            _ = try DatabaseCopy.copy(from: source.database, to: target)
            Issue.record("a transaction of no customer was copied")
        } catch let error as StoreError {
            #expect(error.reason.lowercased().contains("foreign key"), "\(error.reason)")
        }
        for table in Self.copied {
            #expect(try DatabaseCopy.count(target, table) == 0, "\(table) kept rows")
        }
        if backend == .postgres { #expect(try Self.structures(target) == before) }

        try sqlite.execute("DELETE FROM transactions WHERE transaction_id = '9999'", [])
        let again = try DatabaseCopy.copy(from: source.database, to: try scratch.open())
        #expect(again.isVerified, "\(again.tables.filter { !$0.isIdentical })")
        if backend == .postgres { #expect(try Self.structures(target) == before) }
    }

    /// After a copy from SQLite the target is read back on two sessions, table by table: it
    /// finds each table's digest as the source's own reading gives it, and sees a value changed
    /// on the target afterwards, and an entry of its audit chain altered.
    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
    func theTargetIsReadBackWholeOnTwoSessions() throws {
        let source = try BackendLedgerFixture(.sqlite)
        try PostgresCopyTests.populate(source)
        let scratch = try ScratchDatabase(.postgres)
        let target = try #require(try scratch.open() as? PostgresDatabase)
        #expect(try DatabaseCopy.copy(from: source.database, to: target).isVerified)
        let tables = DatabaseCopy.tables
        let expected = try tables.map { try RowDigest.of($0.name, order: $0.order, in: source.database) }
        let clean = try TargetCheck.run(tables, rows: [:], on: target)
        #expect(clean.digests == expected)
        #expect(clean.audit.isIntact)
        #expect(clean.audit.checked == (try AuditLog.verify(source.database).checked))

        try target.execute("UPDATE transactions SET product_id = 'com.example.other' WHERE transaction_id = '1000'", [])
        try target.execute("UPDATE audit_log SET operator = 'ghost' WHERE seq = 2", [])
        let changed = try TargetCheck.run(tables, rows: ["transactions": 10], on: target)
        let differing = zip(tables, zip(changed.digests, expected)).filter { $0.1.0 != $0.1.1 }.map(\.0.name)
        #expect(differing == ["transactions", "audit_log"])
        #expect(changed.audit.problem?.contains("entry 2 was altered") == true, "\(String(describing: changed.audit.problem))")
    }
}
