import Testing
@testable import PurchaseStore

/// A search prefix of a list's own key read as ranges of the key: one per way of writing its
/// letters, in code point order, each bounding exactly the values that start with it.
@Suite("Key prefix ranges")
struct ColumnPrefixTests {
    @Test func aFoldedPrefixIsOneRangePerCaseOfItsLetters() throws {
        let ranges = try #require(ColumnPrefix(column: "customers.customer_id", prefix: "ab-2", folded: true).ranges)
        #expect(ranges.map(\.low) == ["AB-2", "Ab-2", "aB-2", "ab-2"], "upper case first: byte order")
        #expect(ranges.map(\.high) == ["AB-3", "Ab-3", "aB-3", "ab-3"])
        for range in ranges {
            #expect(range.low < range.low + "\u{10FFFF}zz" && range.low + "\u{10FFFF}zz" < (range.high ?? ""), "a longer value with the prefix lies inside")
        }
    }

    @Test func digitsAndAnUnfoldedPrefixAreOneRange() throws {
        #expect(try #require(ColumnPrefix(column: "transactions.transaction_id", prefix: "20000012", folded: false).ranges).map(\.low) == ["20000012"])
        #expect(try #require(ColumnPrefix(column: "orders.order_id", prefix: "ord-9", folded: false).ranges).map(\.high) == ["ord-:"])
    }

    @Test func moreThanSixteenWritingsAreNotRanges() {
        #expect(ColumnPrefix(column: "customers.customer_id", prefix: "cust", folded: true).ranges?.count == 16)
        #expect(ColumnPrefix(column: "customers.customer_id", prefix: "custo", folded: true).ranges == nil, "32 ranges: gathered instead")
    }

    @Test func aLastCharacterWithoutSuccessorMovesTheBoundUp() throws {
        let ranges = try #require(ColumnPrefix(column: "customers.customer_id", prefix: "a\u{10FFFF}", folded: false).ranges)
        #expect(ranges.map(\.high) == ["b"])
        #expect(try #require(ColumnPrefix(column: "customers.customer_id", prefix: "\u{10FFFF}", folded: false).ranges).map(\.high) == [nil])
    }
}
