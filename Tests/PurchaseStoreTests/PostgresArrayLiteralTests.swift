import Foundation
@testable import PurchaseStore
import Testing

/// `PostgresArrayLiteral`: the text of a `text[]` parameter, built byte by byte.
@Suite("PostgreSQL array literals")
struct PostgresArrayLiteralTests {
    static let awkward = ["plain-id", "", "with \"quotes\"", "back\\slash", "\\\"", "{braces},commas", "NULL", "tab\tand\nnewline",
                          "Zoë Ångström", "名前", "𝄞 astral", "ends with \\"]

    @Test func everyElementIsQuotedAndOnlyQuotesAndBackslashesAreEscaped() {
        #expect(PostgresArrayLiteral.text([]) == "{}")
        #expect(PostgresArrayLiteral.text(["a"]) == "{\"a\"}")
        #expect(PostgresArrayLiteral.text(["a", "b"]) == "{\"a\",\"b\"}")
        #expect(PostgresArrayLiteral.text(["say \"hi\"", "a\\b"]) == "{\"say \\\"hi\\\"\",\"a\\\\b\"}")
        #expect(PostgresArrayLiteral.text(["Zoë", "𝄞"]) == "{\"Zoë\",\"𝄞\"}", "characters beyond ASCII are copied as they are")
        #expect(PostgresArrayLiteral.text(["NULL", ""]) == "{\"NULL\",\"\"}", "quoted: the text NULL, not a null")
    }

    @Test(arguments: TestBackend.postgresOnly) func theServerReadsBackEveryElementAsItWas(_ backend: TestBackend) throws {
        let scratch = try ScratchDatabase(backend)
        let database = try scratch.open()
        let rows = try database.query("SELECT element FROM unnest(?::text[]) WITH ORDINALITY AS t(element, position) ORDER BY position",
                                      [.text(PostgresArrayLiteral.text(Self.awkward))])
        #expect(rows.map { $0.string("element") } == Self.awkward)
    }
}
