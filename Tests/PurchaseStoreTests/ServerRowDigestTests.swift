import Foundation
@testable import PurchaseStore
import Testing

/// `db copy` checks a PostgreSQL target by a digest the server works out itself: it must be
/// the digest the client gets by reading the same rows back, for every value the column types
/// it takes can hold, and must change with any value; a table with a column of another type
/// is left to the client.
@Suite("db copy's digest on the server", .enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
struct ServerRowDigestTests {
    static let odd: [[SQLValue]] = [
        [.integer(1), .integer(-32768), .integer(Int64(Int32.max)), .text("alice"), .text("a"), .blob([0, 1, 2]), .null],
        [.integer(Int64.max), .integer(32767), .integer(Int64(Int32.min)), .text(""), .text(""), .blob([]), .text("")],
        [.integer(Int64.min), .null, .null, .text("tab\there\nnew\r\\N \\. 王小明 \u{1F600}"), .null, .blob(Array(0...255)), .text("x")],
        [.integer(0), .integer(0), .integer(0), .null, .text("ünïcödé"), .null, .text("\\x41")],
    ]

    static func table(_ rows: [[SQLValue]]) throws -> (ScratchDatabase, PostgresDatabase) {
        let scratch = try ScratchDatabase(.postgres)
        let database = try #require(try scratch.open() as? PostgresDatabase)
        // No key: a row twice is a row the digest must count twice.
        try database.execute("CREATE TABLE odd (id int8, small int2, mid int4, name text, label varchar(20), raw bytea, \"note \"\"x\"\"\" text)", [])
        for row in rows { try database.execute("INSERT INTO odd VALUES (?, ?, ?, ?, ?, ?, ?)", row) }
        return (scratch, database)
    }

    @Test func theServersDigestIsTheClientsReadingOfTheSameRows() throws {
        let (scratch, database) = try Self.table(Self.odd)
        let onServer = try #require(try ServerRowDigest.of("odd", in: database))
        #expect(onServer.rows == Int64(Self.odd.count))
        #expect(onServer == (try RowDigest.of("odd", order: ["id"], in: database)))
        try database.execute("DELETE FROM odd", [])
        #expect(try ServerRowDigest.of("odd", in: database) == RowDigest())
        _ = scratch
    }

    @Test func everyChangeIsSeenByTheServersDigest() throws {
        let (scratch, database) = try Self.table(Self.odd)
        let base = try #require(try ServerRowDigest.of("odd", in: database))
        let changes = [
            "UPDATE odd SET name = 'alicf' WHERE id = 1",
            "UPDATE odd SET \"note \"\"x\"\"\" = NULL WHERE id = 9223372036854775807",
            "UPDATE odd SET name = '' WHERE id = 0",
            "UPDATE odd SET raw = '\\x000103' WHERE id = 1",
            "UPDATE odd SET raw = '\\x00' WHERE id = 9223372036854775807",
            "UPDATE odd SET small = 1 WHERE id = 0",
            "UPDATE odd SET mid = NULL WHERE id = 0",
            "UPDATE odd SET label = 'a ' WHERE id = 1",
            "UPDATE odd SET (name, \"note \"\"x\"\"\") = (\"note \"\"x\"\"\", name) WHERE id = 1",
            "DELETE FROM odd WHERE id = 0",
            "INSERT INTO odd SELECT * FROM odd WHERE id = 1",
        ]
        for change in changes {
            do {
                try database.writeTransaction {
                    try database.execute(change, [])
                    let changed = try ServerRowDigest.of("odd", in: database)
                    #expect(changed != nil && changed != base, "\(change) went unseen")
                    #expect(changed == (try RowDigest.of("odd", order: ["id"], in: database)), "\(change): the server and the client disagree")
                    throw Undo()
                }
            } catch is Undo {}
        }
        #expect(try ServerRowDigest.of("odd", in: database) == base)
        _ = scratch
    }

    /// Rolls a change back.
    struct Undo: Error {}

    @Test func aColumnOfAnotherTypeLeavesTheTableToTheClient() throws {
        let (scratch, database) = try Self.table([])
        for type in ["float8", "timestamptz", "boolean", "numeric", "char(3)"] {
            try database.execute("ALTER TABLE odd ADD COLUMN other \(type)", [])
            #expect(try ServerRowDigest.of("odd", in: database) == nil, "\(type)")
            try database.execute("ALTER TABLE odd DROP COLUMN other", [])
        }
        #expect(try ServerRowDigest.of("odd", in: database) != nil)
        _ = scratch
    }
}
