import Foundation
@testable import PurchaseStore
import ReceiptCore
import Testing

/// Rows read in place (`forEachRow`, `SQLiteColumns` on SQLite) give exactly what the built rows
/// of `query` give, for every kind of value a column can hold.
@Suite("Columns read in place")
struct SQLColumnsTests {
    @Test func columnsReadInPlaceGiveWhatBuiltRowsGive() throws {
        let scratch = try ScratchDatabase(.sqlite)
        let database = try SQLiteDatabase(path: scratch.location)
        try database.execute("CREATE TABLE v (k INTEGER PRIMARY KEY, x)", [])  // no type: each row keeps its own
        let values: [SQLValue] = [.null, .integer(42), .integer(-7), .real(2.5), .text(""), .text("12"), .text("twelve"),
                                  .text("2025-05-01T08:00:00.123Z"), .text("2025-05-01T08:00:00Z"), .text("2025-13-01T08:00:00Z"),
                                  .text("ünïcødé ✓ 🧾"), .blob(Array("2025-05-01T08:00:00Z".utf8)), .blob([0xFF, 0x00, 0x41]), .blob([])]
        for (key, value) in values.enumerated() { try database.execute("INSERT INTO v (k, x) VALUES (?, ?)", [.integer(Int64(key)), value]) }
        let built = try database.query("SELECT x FROM v ORDER BY k", [])
        var inPlace: [(String?, Int64?, Date?, Bool)] = []
        try database.forEachRow("SELECT x FROM v ORDER BY k", []) { inPlace.append(($0.string(0), $0.int(0), $0.date(0), $0.bool(0))) }
        #expect(inPlace.count == values.count)
        for (row, read) in zip(built, inPlace) {
            #expect(read.0 == row.string("x"), "\(row.values)")
            #expect(read.1 == row.int("x"), "\(row.values)")
            #expect(read.2 == row.date("x"), "\(row.values)")
            #expect(read.3 == row.bool("x"), "\(row.values)")
        }
        // Not vacuous: dates, numbers and text all came through.
        #expect(inPlace[7].2 == RFC3339.parse("2025-05-01T08:00:00.123Z") && inPlace[7].2 != nil)
        #expect(inPlace[1].1 == 42 && inPlace[5].1 == 12 && inPlace[6].1 == nil && inPlace[0].0 == nil && inPlace[4].0 == "")
        #expect(inPlace[11].2 != nil, "a date stored as bytes reads as the date, as the built row reads it")
    }

    /// A query that fails midway leaves the statement ready for the next use.
    @Test func aFailingBodyLeavesTheStatementReusable() throws {
        let scratch = try ScratchDatabase(.sqlite)
        let database = try SQLiteDatabase(path: scratch.location)
        try database.execute("CREATE TABLE v (k INTEGER PRIMARY KEY)", [])
        for key in 0..<3 { try database.execute("INSERT INTO v (k) VALUES (?)", [.integer(Int64(key))]) }
        struct Stop: Error {}
        #expect(throws: Stop.self) { try database.forEachRow("SELECT k FROM v ORDER BY k", []) { _ in throw Stop() } }
        var keys: [Int64] = []
        try database.forEachRow("SELECT k FROM v ORDER BY k", []) { keys.append($0.int(0) ?? -1) }
        #expect(keys == [0, 1, 2])
    }
}
