import Foundation
@testable import PurchaseStore
import Testing

/// The digest `db copy` compares a table by on both sides: blind to the order of rows and of
/// columns, as two backends may return them, and changed by any change of a value, its kind or
/// its column.
@Suite("db copy's row digest")
struct RowDigestTests {
    static let columns = ["id", "name", "raw", "score", "note"]
    static let rows: [[SQLValue]] = [
        [.integer(1), .text("alice"), .blob([0, 1, 2]), .real(0.5), .null],
        [.integer(2), .text("bob\tsmith"), .blob([]), .real(-1e300), .text("")],
        [.integer(Int64.max), .text("王小明"), .blob([0x5c, 0x4e]), .real(3), .text("x")],
    ]

    static func digest(_ rows: [[SQLValue]], columns: [String] = columns, pages: Int = 1) -> RowDigest {
        var digest = RowDigest()
        var material: [UInt8] = []
        let size = max(1, (rows.count + pages - 1) / pages)
        for start in stride(from: 0, to: rows.count, by: size) {
            digest.add(page: rows[start..<min(rows.count, start + size)].map { SQLRow(columns: columns, values: $0) }, material: &material)
        }
        return digest
    }

    @Test func theOrderOfRowsColumnsAndPagesDoesNotMatter() {
        let base = Self.digest(Self.rows)
        #expect(base.rows == 3)
        #expect(Self.digest(Self.rows.reversed()) == base)
        #expect(Self.digest(Self.rows, pages: 3) == base)
        let order = [3, 0, 4, 2, 1]
        #expect(Self.digest(Self.rows.map { row in order.map { row[$0] } }, columns: order.map { Self.columns[$0] }) == base)
    }

    @Test func everyChangeOfAValueItsKindOrItsColumnIsSeen() {
        let base = Self.digest(Self.rows)
        let changes: [(String, (inout [[SQLValue]]) -> Void)] = [
            ("a text", { $0[0][1] = .text("alicf") }),
            ("NULL for empty text", { $0[1][4] = .null }),
            ("empty text for NULL", { $0[0][4] = .text("") }),
            ("an integer for its text", { $0[0][0] = .text("1") }),
            ("a blob for its text", { $0[0][1] = .blob(Array("alice".utf8)) }),
            ("a real for its integer", { $0[0][0] = .real(1) }),
            ("a blob byte", { $0[2][2] = .blob([0x5c, 0x4f]) }),
            ("a blob one byte longer", { $0[1][2] = .blob([0]) }),
            ("two values swapped", { rows in (rows[0][1], rows[0][4]) = (rows[0][4], rows[0][1]) }),
            ("text moved across a column boundary", { rows in rows[1][1] = .text("bob\t"); rows[1][4] = .text("smith") }),
            ("a row missing", { $0.removeLast() }),
            ("a row twice", { $0.append($0[0]) }),
        ]
        for (name, change) in changes {
            var rows = Self.rows
            change(&rows)
            #expect(Self.digest(rows) != base, "\(name) went unseen")
        }
        #expect(Self.digest(Self.rows, columns: ["id", "name", "raw", "score", "memo"]) != base, "a renamed column went unseen")
    }

    /// `db copy` from SQLite digests and encodes each row straight from SQLite's buffers; that
    /// must give what the rows built by `query` give (the path the target is read by), for every
    /// kind of value SQLite can hold, whatever the column's declared type.
    @Test func aRowReadInPlaceDigestsAndEncodesAsTheBuiltRow() throws {
        let scratch = try ScratchDatabase(.sqlite)
        let database = try #require(try scratch.open() as? SQLiteDatabase)
        try database.execute("CREATE TABLE odd (id INTEGER PRIMARY KEY, name TEXT, raw BLOB, score REAL, note)", [])
        let rows: [[SQLValue]] = Self.rows + [
            [.integer(Int64.min), .text(""), .null, .null, .integer(-7)],
            [.integer(5), .text("tab\there\nnew\r\\N \\. 王小明 \u{1F600}"), .blob(Array(0...255)), .real(1e-5), .real(2.5)],
            [.integer(6), .null, .blob([0x5c, 0x0a, 0x09]), .integer(3), .blob([])],
        ]
        for row in rows { try database.execute("INSERT INTO odd VALUES (?, ?, ?, ?, ?)", row) }
        var inPlace = RowDigest()
        var material: [UInt8] = []
        var encoded = PostgresCopyText()
        try database.forEachCellRow("SELECT * FROM odd") { columns, row in
            try inPlace.add(row, byName: RowDigest.byName(columns), material: &material)
            try encoded.append(row)
        }
        #expect(inPlace.rows == Int64(rows.count))
        #expect(inPlace == (try RowDigest.of("odd", order: ["id"], in: database)))
        var built = PostgresCopyText()
        for row in try database.query("SELECT * FROM odd", []) { try built.append(row.values) }
        #expect(encoded.bytes == built.bytes)
        #expect(String(decoding: encoded.bytes, as: UTF8.self).contains("\\\\x5c0a09\t"))
    }
}
