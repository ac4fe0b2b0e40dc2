import Foundation
@testable import PurchaseStore
import Testing

/// Text parameters on SQLite are bound from the string's own UTF-8 (`SQLiteStatement.bindText`):
/// they read back exactly as given, the empty string stays text (not NULL), and a NUL ends the
/// value as it did when text was bound as a C string.
@Suite("SQLite text binding")
struct SQLiteTextBindingTests {
    @Test func textReadsBackAsGiven() throws {
        let scratch = try ScratchDatabase(.sqlite)
        let database = try SQLiteDatabase(path: scratch.location)
        try database.execute("CREATE TABLE kv (k INTEGER PRIMARY KEY, t TEXT)", [])
        let bridged = NSString(string: "bridged from Foundation ✓") as String  // may not be stored contiguously
        let values = ["", "a", "it's \"quoted\"; ? -- ünïcødé ✓ 🧾", String(repeating: "{\"k\":\"v\"},", count: 5_000), bridged]
        for (key, value) in values.enumerated() {
            try database.execute("INSERT INTO kv (k, t) VALUES (?, ?)", [.integer(Int64(key)), .text(value)])
        }
        try database.execute("INSERT INTO kv (k, t) VALUES (?, ?)", [.integer(99), .text("before\u{0}after")])
        let stored = try database.query("SELECT t, typeof(t) AS type FROM kv ORDER BY k", [])
        #expect(stored.map { $0.string("t") } == values + ["before"])
        #expect(stored.allSatisfy { $0.string("type") == "text" })
        #expect(try database.queryFirst("SELECT count(*) AS n FROM kv WHERE t = ?", [.text(values[3])])?.int("n") == 1)
    }
}
