import Foundation
import PurchaseStore
import Testing
@testable import ConsoleUI

/// A search whose matches are many and sit together far from the list's start: the prefix
/// `cust-2` behind 12,000 customers whose ids sort first (UUIDs and numbers, as a real shop has),
/// and a name fragment shared by 1,500 customers. The first page is full and in key order at
/// once (a walk from the list's start spent its budget before the first match and showed an
/// empty page), and paging on gives every match once, on both backends.
@Suite("Broad searches", .serialized)
struct BroadSearchTests {
    static func fixture(_ backend: ConsoleBackend) throws -> ConsoleFixture {
        let f = try ConsoleFixture(populated: false, backend: backend)
        try f.database.writeTransaction {
            let now = "2025-06-01T12:00:00.000Z"
            for index in 0..<12_000 {
                let id = index % 2 == 0 ? String(format: "%08x-5820-5f92-009a-771445e40b61", index * 7919) : String(1_000_000 + index)
                try f.database.execute("INSERT INTO customers (customer_id, created_at, updated_at, display_name) VALUES (?, ?, ?, ?)",
                                       [.text(id), .text(now), .text(now), .text(index % 8 == 0 ? "Kim Ode" : "Lee")])
            }
            for index in 0..<1_500 {
                try f.database.execute("INSERT INTO customers (customer_id, created_at, updated_at, display_name) VALUES (?, ?, ?, ?)",
                                       [.text(String(format: "cust-2%04d", index)), .text(now), .text(now), .text("Kim Ode")])
            }
        }
        return f
    }

    @Test(arguments: ConsoleBackend.available)
    func aBroadPrefixBehindManyKeysFillsTheFirstPage(_ backend: ConsoleBackend) throws {
        let f = try Self.fixture(backend)
        let browser = Browser(f.database)
        let first = try browser.page(.customers, filter: try BrowseFilter(parsing: "cust-2"), cursor: .first, limit: 40)
        #expect(first.rows.map(\.key) == (0..<40).map { .text(String(format: "cust-2%04d", $0)) })
        #expect(first.isFull && first.scannedThrough == nil)
        let all = try SearchTests.keys(browser, .customers, "cust-2", limit: 97)
        #expect(all == (0..<1_500).map { .text(String(format: "cust-2%04d", $0)) }, "every match once, in order")
        let last = try browser.page(.customers, filter: try BrowseFilter(parsing: "cust-2"), cursor: .last, limit: 7)
        #expect(last.rows.map(\.key) == (1_493..<1_500).map { .text(String(format: "cust-2%04d", $0)) })
    }

    @Test(arguments: ConsoleBackend.available)
    func aNameSharedByThousandsPagesInKeyOrder(_ backend: ConsoleBackend) throws {
        let f = try Self.fixture(backend)
        let browser = Browser(f.database)
        let expected = try f.database.query("SELECT customer_id FROM customers WHERE display_name = 'Kim Ode'", [])
            .compactMap { $0.string("customer_id") }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        #expect(expected.count == 3_000)
        let first = try browser.page(.customers, filter: try BrowseFilter(parsing: "kim ode"), cursor: .first, limit: 40)
        #expect(first.rows.map(\.key) == expected.prefix(40).map { .text($0) })
        #expect(try SearchTests.keys(browser, .customers, "kim ode", limit: 211) == expected.map { .text($0) })
    }
}
