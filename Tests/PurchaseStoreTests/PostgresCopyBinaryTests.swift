import Foundation
@testable import PurchaseStore
import Testing

/// `db copy` sends rows in COPY's binary format when every column's type allows: the bytes are
/// the format's, every value arrives as it left (text COPY's result for a number or blob in a
/// text column), and a value its column cannot take is refused naming the table, row and
/// column, with nothing kept.
@Suite("db copy's binary COPY")
struct PostgresCopyBinaryTests {
    @Test func theBytesAreTheBinaryFormats() throws {
        var binary = PostgresCopyBinary(types: [.int8, .int4, .int2, .text, .bytea])
        binary.appendHeader()
        try binary.append(SQLValueCells(values: [.integer(-2), .integer(258), .integer(-1), .text("hé"), .null]))
        binary.appendTrailer()
        let expected: [UInt8] = Array("PGCOPY\n".utf8) + [0xff, 0x0d, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0]
            + [0, 5]
            + [0, 0, 0, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe]
            + [0, 0, 0, 4, 0, 0, 1, 2]
            + [0, 0, 0, 2, 0xff, 0xff]
            + [0, 0, 0, 3, 0x68, 0xc3, 0xa9]
            + [0xff, 0xff, 0xff, 0xff]
            + [0xff, 0xff]
        #expect(binary.bytes == expected)
    }

    @Test func aValueItsColumnCannotTakeIsRefusedLeavingTheBytes() throws {
        var binary = PostgresCopyBinary(types: [.int4, .text])
        let refusals: [([SQLValue], Int)] = [
            ([.integer(Int64(Int32.max) + 1), .text("a")], 0), ([.text("12"), .text("a")], 0),
            ([.real(1.5), .null], 0), ([.blob([1]), .null], 0), ([.integer(1), .text("a\u{0}b")], 1),
        ]
        for (values, column) in refusals {
            do {
                try binary.append(SQLValueCells(values: values))
                Issue.record("\(values) was taken")
            } catch let refusal as PostgresCopyBinary.Refusal {
                #expect(refusal.column == column)
            } catch let nul as PostgresCopyText.NULCharacter {
                #expect(nul.column == column)
            }
            #expect(binary.bytes.isEmpty, "\(values) left bytes behind")
        }
        #expect(throws: PostgresCopyBinary.Refusal.self) { try binary.append(SQLValueCells(values: [.integer(1)])) }
    }

    /// Every kind of value into every column type the binary format takes, read back as it left
    /// (numbers and blobs in a text column as text COPY would have stored them); then text in an
    /// integer column refused naming table, row and column, nothing kept, the session usable.
    @Test(.enabled(if: PostgresTestServer.url != nil, PostgresTestServer.skipped))
    func valuesArriveAsTheyLeftAndARefusedOneKeepsNothing() throws {
        let scratch = try ScratchDatabase(.postgres)
        let database = try #require(try scratch.open() as? PostgresDatabase)
        try database.execute("CREATE TABLE odd (id int8, small int2, mid int4, name text, label varchar(40), raw bytea)", [])
        let columns = ["id", "small", "mid", "name", "label", "raw"]
        let rows: [[SQLValue]] = [
            [.integer(Int64.min), .integer(-32768), .integer(Int64(Int32.min)), .text("tab\there\nnew\r\\N \\. 王小明 \u{1F600}"), .text(""), .blob(Array(0...255))],
            [.integer(Int64.max), .integer(32767), .integer(Int64(Int32.max)), .text(""), .null, .blob([])],
            [.integer(0), .null, .null, .integer(-42), .real(2.5), .text("\\x41")],
            [.integer(1), .integer(0), .integer(0), .blob([0x5c, 0x0a]), .text("ü"), .null],
        ]
        let stored = try database.writeTransaction { () -> Int in
            let stream = try database.beginCopy(into: "odd", columns: columns)
            #expect(stream.isBinary)
            for row in rows { try stream.send(row) }
            return try stream.finish()
        }
        #expect(stored == rows.count)
        let back = try database.query("SELECT * FROM odd ORDER BY id", []).map(\.values)
        let expected: [[SQLValue]] = [
            rows[0], Array(rows[2].prefix(3)) + [.text("-42"), .text("2.5"), .blob(Array("\\x41".utf8))],
            [.integer(1), .integer(0), .integer(0), .text("\\x5c0a"), .text("ü"), .null], rows[1],
        ]
        #expect(back == expected)

        do {
            try database.writeTransaction {
                let stream = try database.beginCopy(into: "odd", columns: columns)
                try stream.send([SQLValue.integer(7), .integer(1), .integer(1), .text("x"), .text("y"), .null])
                try stream.send([SQLValue.integer(8), .text("one"), .integer(1), .text("x"), .text("y"), .null])
                _ = try stream.finish()
            }
            Issue.record("text went into a smallint column")
        } catch let error as StoreError {
            #expect(error.code == .invalidInput)
            #expect(error.reason == "odd row id 8: small: a text value cannot go into a column of type smallint", "\(error.reason)")
        }
        #expect(try database.queryFirst("SELECT count(*) AS n FROM odd", [])?.int("n") == Int64(rows.count))
        #expect(try database.queryFirst("SELECT 1 AS one", [])?.int("one") == 1)
    }
}
