import Foundation
@testable import PurchaseStore
import Testing

/// Writes queued for the commit's pipeline (`PostgresWriteQueue`): a read sees them, and one
/// that fails at the commit fails the transaction naming its statement and leaves nothing.
@Suite("PostgreSQL queued writes", .enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
struct PostgresQueuedWritesTests {
    /// A connection to a fresh schema with one table.
    private func setUp() throws -> (ScratchDatabase, PostgresDatabase) {
        let scratch = try ScratchDatabase(.postgres)
        let database = try #require(try PurchaseDatabase.open(scratch.location) as? PostgresDatabase)
        try database.execute("CREATE TABLE queued (id INTEGER PRIMARY KEY, label TEXT NOT NULL)", [])
        return (scratch, database)
    }

    private func count(_ database: PostgresDatabase) throws -> Int64 {
        try database.queryFirst("SELECT count(*) AS n FROM queued", [])?.int("n") ?? -1
    }

    private func insert(_ database: PostgresDatabase, _ ids: Range<Int>, failing: Int? = nil) throws {
        for id in ids {
            // A text where an integer belongs: the server refuses the statement.
            let value: SQLValue = id == failing ? .text("not a number") : .integer(Int64(id))
            try database.executeLater("INSERT INTO queued (id, label) VALUES (?, ?)", [value, .text("row \(id)")])
        }
    }

    @Test func aReadSeesTheWritesQueuedBeforeIt() throws {
        let (scratch, database) = try setUp()
        _ = scratch
        let seen = try database.writeTransaction { () -> Int64? in
            database.pipelinesWrites = true
            try insert(database, 0..<30)
            #expect(database.queuedWrites.count == 30)
            let seen = try database.queryFirst("SELECT count(*) AS n FROM queued", [])?.int("n")
            try insert(database, 30..<50)
            return seen
        }
        #expect(seen == 30)
        #expect(try count(database) == 50)
    }

    @Test func aQueuedWriteFailingAtTheCommitIsNamedAndLeavesNothing() throws {
        let (scratch, database) = try setUp()
        _ = scratch
        do {
            try database.writeTransaction {
                database.pipelinesWrites = true
                try insert(database, 0..<40, failing: 17)
            }
            Issue.record("the commit succeeded")
        } catch let error as StoreError {
            #expect(error.reason.contains("not a number"), "\(error.reason)")
            #expect(error.reason.contains("INSERT INTO queued"), "\(error.reason)")
        }
        // Nothing of the transaction stayed, and the session goes on.
        #expect(try count(database) == 0)
        _ = try database.writeTransaction { try database.execute("INSERT INTO queued (id, label) VALUES (?, ?)", [.integer(1), .text("after")]) }
        #expect(try count(database) == 1)
    }
}
