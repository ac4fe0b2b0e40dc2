import Foundation
@testable import PurchaseStore
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

    /// Counting a name fragment alone stops after the cap (SQLite reads the name search's first
    /// matches only, `SQLCondition.capped`); beside another word, or narrow, the count is exact.
    @Test(arguments: ConsoleBackend.available)
    func nameCountsStopAtTheCapAndAreExactBelowIt(_ backend: ConsoleBackend) throws {
        let f = try Self.fixture(backend)
        try f.database.writeTransaction {
            for id in ["zz-1", "zz-2"] {
                try f.database.execute("INSERT INTO customers (customer_id, created_at, updated_at, display_name) VALUES (?, ?, ?, ?)",
                                       [.text(id), .text("2025-06-01T12:00:00.000Z"), .text("2025-06-01T12:00:00.000Z"), .text("Zoë Quill")])
            }
        }
        let browser = Browser(f.database)
        let broad = try browser.matchCount(.customers, filter: try BrowseFilter(parsing: "kim ode"))
        #expect(broad.count == BrowseLimits.matchCountCap && broad.isLowerBound)
        let narrow = try browser.matchCount(.customers, filter: try BrowseFilter(parsing: "quill"))
        #expect(narrow.count == 2 && !narrow.isLowerBound)
        let both = try browser.matchCount(.customers, filter: try BrowseFilter(parsing: "quill zz-2"))
        #expect(both.count == 1 && !both.isLowerBound)
        if backend == .sqlite {
            let contact = try #require(SearchTerms(dialect: .sqlite).contactFragment("quill"))
            #expect(contact.capped(1_001).sql.hasSuffix("MATCH ? LIMIT 1001)"))
            #expect(contact.capped(1_001).parameters.count == contact.parameters.count)
            // A narrow name search is read once and listed; a broad one stays a lookup; none matches nothing.
            let listed = try browser.listedIfNarrow(contact)
            #expect(!listed.sql.contains("customer_search") && listed.parameters.count == 2)
            let wide = try #require(SearchTerms(dialect: .sqlite).contactFragment("kim ode"))
            #expect(try browser.listedIfNarrow(wide).sql == wide.sql)
            let nothing = try browser.listedIfNarrow(try #require(SearchTerms(dialect: .sqlite).contactFragment("zzqqxx")))
            #expect(nothing.sql == "customers.rowid IN (?)" && nothing.parameters == [.null])
        }
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

    /// A name shared by more customers than can be listed, fewer than the sort cap: walked in key
    /// order (SQLite) with the name search probed per key, never read through SQLite's OR
    /// planning (every match looked up in the table and sorted), and the pages are the same.
    @Test(arguments: ConsoleBackend.available)
    func aNameTooBroadToListIsWalkedInKeyOrder(_ backend: ConsoleBackend) throws {
        let f = try Self.fixture(backend)
        let browser = Browser(f.database)
        let filter = try BrowseFilter(parsing: "kim ode")
        if backend == .sqlite {
            let planned = try browser.planned(BrowseQuery(.customers, filter, .sqlite))
            #expect(planned.sources.isEmpty && planned.walkBudget == BrowseLimits.scanBudget(.customers))
            #expect(planned.predicates.first?.sql.contains("+customers.rowid IN (SELECT rowid FROM customer_search") == true)
            for statement in browser.statements(.customers, filter: filter, cursor: .first, limit: 40) {
                let plan = try f.database.query("EXPLAIN QUERY PLAN " + statement.sql, statement.parameters).compactMap { $0.string("detail") }
                #expect(!plan.contains { $0.contains("MULTI-INDEX OR") || $0.contains("TEMP B-TREE FOR ORDER BY") }, "\(plan)")
            }
        }
        let expected = try f.database.query("SELECT customer_id FROM customers WHERE display_name = 'Kim Ode'", [])
            .compactMap { $0.string("customer_id") }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let back = try browser.page(.customers, filter: filter, cursor: .before(.text(expected[2_000])), limit: 30)
        #expect(back.rows.map(\.key) == expected[1_970..<2_000].map { .text($0) })
    }

    /// A name search checked on the row (a walk through dense matches, SQLite) keeps exactly the
    /// rows the trigram search finds: case folded, in any column, NULL names, other scripts, and
    /// the two characters whose folding is an ASCII letter (KELVIN SIGN, LONG S) asking the search.
    @Test func aNameCheckedOnItsRowFindsExactlyWhatTheSearchFinds() throws {
        let f = try ConsoleFixture(populated: false, backend: .sqlite)
        let people: [(id: String, name: String?, email: String?)] = [
            ("a-1", "Kim Ode", "kim@icloud.com"), ("a-2", "KIM ODE", nil), ("a-3", nil, "x@ICLOUD.com"), ("a-4", "\u{212A}im Ode", nil),
            ("a-5", "Ki\u{212A}m", "\u{17F}un@icloud.com"), ("a-6", "Ödön Kím", "kim.ode@web.de"), ("kim-7", nil, nil), ("a-8", "Sun Kim", "sun@kim.org"),
            ("a-9", "Mißter Sun", "SUN@MAIL.com"), ("a-10", "kimodé", "odé@x.fr"), ("a-11", "Zed", "zed@example.org"),
        ]
        try f.database.writeTransaction {
            for person in people {
                try f.database.execute("INSERT INTO customers (customer_id, created_at, updated_at, display_name, email) VALUES (?, ?, ?, ?, ?)",
                                       [.text(person.id), .text("2025-06-01T12:00:00.000Z"), .text("2025-06-01T12:00:00.000Z"),
                                        person.name.map { .text($0) } ?? .null, person.email.map { .text($0) } ?? .null])
            }
        }
        let terms = SearchTerms(dialect: .sqlite)
        for fragment in ["kim", "KIM", "sun", "icloud", "ode", "m o", "a-1", "zzz", "im@"] {
            let search = try #require(terms.contactFragment(fragment))
            let check = try #require(search.rowCheck.map { SQLCondition($0.sql, $0.parameters) }, "an ASCII fragment is checked on the row")
            let found = { (condition: SQLCondition) in
                try f.database.query("SELECT customer_id FROM customers WHERE \(condition.sql) ORDER BY customer_id", condition.parameters)
                    .compactMap { $0.string("customer_id") }
            }
            #expect(try found(check) == found(search), "\(fragment)")
        }
        #expect(try found(rows: f, try #require(terms.contactFragment("kim")).checkedPerRow).contains("a-4"), "the Kelvin sign folds to k")
        #expect(terms.contactFragment("ödö")?.rowCheck == nil, "a fragment that is not ASCII asks the search")
    }

    private func found(rows f: ConsoleFixture, _ condition: SQLCondition) throws -> [String] {
        try f.database.query("SELECT customer_id FROM customers WHERE \(condition.sql)", condition.parameters).compactMap { $0.string("customer_id") }
    }

    /// A name shared by more customers than the sort cap is walked with the name checked on each
    /// row: the pages are the matches in key order, forward and back, a Kelvin-sign spelling too.
    @Test(arguments: ConsoleBackend.available)
    func aDenseNameIsCheckedOnItsRowsAndPagesInKeyOrder(_ backend: ConsoleBackend) throws {
        let f = try ConsoleFixture(populated: false, backend: backend)
        let dense = Int(BrowseLimits.sortCap) + 500
        var customers: [(id: String, name: String)] = []
        for index in 0..<(dense + 4_000) {
            let name = index % 7 == 3 ? "Lee Park" : index % 97 == 5 ? "\u{212A}im Dense" : "Kim Dense"
            customers.append((String(format: "%08x-aa", index &* 2_654_435_761 % 4_294_967_291), name))
        }
        try f.database.writeTransaction {
            for chunk in stride(from: 0, to: customers.count, by: 400) {
                let part = customers[chunk..<min(chunk + 400, customers.count)]
                try f.database.execute("INSERT INTO customers (customer_id, created_at, updated_at, display_name) VALUES "
                                       + part.map { _ in "(?, '2025-06-01T12:00:00.000Z', '2025-06-01T12:00:00.000Z', ?)" }.joined(separator: ", "),
                                       part.flatMap { [SQLValue.text($0.id), .text($0.name)] })
            }
        }
        let browser = Browser(f.database)
        let filter = try BrowseFilter(parsing: "kim")
        if backend == .sqlite {
            let planned = try browser.planned(BrowseQuery(.customers, filter, .sqlite))
            #expect(planned.sources.isEmpty && planned.predicates.first?.sql.contains("CASE WHEN") == true, "the name checked on each row")
        }
        let expected = Self.expected(customers) { $0.name != "Lee Park" }
        #expect(expected.count > Int(BrowseLimits.sortCap))
        let first = try browser.page(.customers, filter: filter, cursor: .first, limit: 60)
        #expect(first.rows.map(\.key) == Array(expected.prefix(60)))
        let middle = try browser.page(.customers, filter: filter, cursor: .after(expected[20_000]), limit: 45)
        #expect(middle.rows.map(\.key) == Array(expected[20_001..<20_046]))
        let back = try browser.page(.customers, filter: filter, cursor: .before(expected[9_000]), limit: 30)
        #expect(back.rows.map(\.key) == Array(expected[8_970..<9_000]))
        let last = try browser.page(.customers, filter: filter, cursor: .last, limit: 8)
        #expect(last.rows.map(\.key) == Array(expected.suffix(8)))
    }

    /// A walk's budget finds a page three times over on average, whole chunks, at least the
    /// list's scan budget; past the most a walk may read, the matches are sorted instead.
    @Test func aNameWalksBudgetFollowsHowSparseItsMatchesAre() {
        #expect(Browser.walkBudget(.customers, rows: 1_150_000, matches: 33_532) == 10_000)
        #expect(Browser.walkBudget(.customers, rows: 1_150_000, matches: 3_000) == 75_000)
        #expect(Browser.walkBudget(.customers, rows: 1_150_000, matches: 1_500) == nil)
        #expect(Browser.walkBudget(.customers, rows: 0, matches: 1_500) == nil)
    }

    /// A prefix matching more customers than any lookup is sorted for (`BrowseLimits.sortCap`),
    /// behind more keys than a walk may read for a page (`BrowseLimits.scanBudget`), in three
    /// cases: the first page is full, in key order (`CUST-2…`, then `Cust-2…`, then `cust-2…`),
    /// and the pages go on through every match (a walk from the list's start showed an empty
    /// page at ten million transactions).
    @Test(arguments: ConsoleBackend.available)
    func aPrefixMatchingMoreThanTheSortCapInEveryCaseFillsItsPages(_ backend: ConsoleBackend) throws {
        let f = try ConsoleFixture(populated: false, backend: backend)
        let lower = Int(BrowseLimits.sortCap) + 2_000
        let ids = (0..<15_000).map { String(format: "AAA-%05d", $0) } + (0..<60).map { String(format: "CUST-2%05d", $0) }
            + (0..<90).map { String(format: "Cust-2%05d", $0) } + (0..<lower).map { String(format: "cust-2%05d", $0) }
            + (0..<500).map { String(format: "cust-3%05d", $0) }
        try f.database.writeTransaction {
            for chunk in stride(from: 0, to: ids.count, by: 500) {
                let part = ids[chunk..<min(chunk + 500, ids.count)]
                try f.database.execute("INSERT INTO customers (customer_id, created_at, updated_at) VALUES "
                                       + part.map { _ in "(?, '2025-06-01T12:00:00.000Z', '2025-06-01T12:00:00.000Z')" }.joined(separator: ", "),
                                       part.map { .text($0) })
            }
        }
        let expected = ids.filter { $0.lowercased().hasPrefix("cust-2") }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        #expect(expected.count == 60 + 90 + lower && expected.first == "CUST-200000" && expected[60] == "Cust-200000")
        let browser = Browser(f.database)
        let filter = try BrowseFilter(parsing: "cust-2")
        let first = try browser.page(.customers, filter: filter, cursor: .first, limit: 100)
        #expect(first.rows.map(\.key) == expected.prefix(100).map { .text($0) })
        #expect(first.isFull && first.scannedThrough == nil)
        // Further on, past the upper-case ones, and back from the end.
        let middle = try browser.page(.customers, filter: filter, cursor: .after(.text(expected[10_000])), limit: 50)
        #expect(middle.rows.map(\.key) == expected[10_001..<10_051].map { .text($0) })
        let last = try browser.page(.customers, filter: filter, cursor: .last, limit: 9)
        #expect(last.rows.map(\.key) == expected.suffix(9).map { .text($0) })
        let count = try browser.matchCount(.customers, filter: filter)
        #expect(count.count == BrowseLimits.matchCountCap && count.isLowerBound)
        // Upper case typed finds the same; a prefix no key starts with finds nothing.
        let typed = try browser.page(.customers, filter: try BrowseFilter(parsing: "CUST-2"), cursor: .first, limit: 100)
        #expect(typed.rows.map(\.key) == first.rows.map(\.key))
        #expect(try browser.page(.customers, filter: try BrowseFilter(parsing: "cust-9"), cursor: .first, limit: 10).rows.isEmpty)
    }

    /// 1,200 ids starting `cust-2` written in three cases (`CUST-2…`, `Cust-2…`, `cust-2…`: on
    /// PostgreSQL three of the ranges of the key that prefix is read as) behind 6,000 numeric
    /// ids, a few of them named after the prefix (found only through the name fragment, before
    /// every id match), and every other one of the prefixed named Kim.
    static func mixedCaseFixture(_ backend: ConsoleBackend) throws -> (ConsoleFixture, [(id: String, name: String)]) {
        let f = try ConsoleFixture(populated: false, backend: backend)
        var customers: [(id: String, name: String)] = []
        for index in 0..<6_000 { customers.append((String(1_000_000 + index), index % 1_000 == 7 ? "Fan of CUST-2 Kim" : "Lee")) }
        let spellings = ["CUST-2%04d", "Cust-2%04d", "cust-2%04d"]
        for index in 0..<1_200 { customers.append((String(format: spellings[index % 3], index), index % 2 == 0 ? "Kim Ode" : "Lee")) }
        try f.database.writeTransaction {
            let now = "2025-06-01T12:00:00.000Z"
            for customer in customers {
                try f.database.execute("INSERT INTO customers (customer_id, created_at, updated_at, display_name) VALUES (?, ?, ?, ?)",
                                       [.text(customer.id), .text(now), .text(now), .text(customer.name)])
            }
        }
        return (f, customers)
    }

    /// The keys in list order (byte order) of the customers `matches` keeps.
    static func expected(_ customers: [(id: String, name: String)], _ matches: ((id: String, name: String)) -> Bool) -> [BrowseKey] {
        customers.filter(matches).map(\.id).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.map { .text($0) }
    }

    @Test(arguments: ConsoleBackend.available)
    func aBroadPrefixInEveryCaseAndANameBeforeItPageInKeyOrder(_ backend: ConsoleBackend) throws {
        let (f, customers) = try Self.mixedCaseFixture(backend)
        let browser = Browser(f.database)
        let folded = { (text: String) in text.lowercased() }
        let expected = Self.expected(customers) { folded($0.id).hasPrefix("cust-2") || folded($0.name).contains("cust-2") }
        #expect(expected.count == 1_206)
        let first = try browser.page(.customers, filter: try BrowseFilter(parsing: "cust-2"), cursor: .first, limit: 40)
        #expect(first.rows.map(\.key) == Array(expected.prefix(40)), "the named ones first, then CUST-2…, in key order")
        #expect(first.isFull && first.scannedThrough == nil)
        #expect(try SearchTests.keys(browser, .customers, "CUST-2", limit: 97) == expected, "every match once, in order, in any case typed")
        let last = try browser.page(.customers, filter: try BrowseFilter(parsing: "cust-2"), cursor: .last, limit: 7)
        #expect(last.rows.map(\.key) == Array(expected.suffix(7)))
        let before = try browser.page(.customers, filter: try BrowseFilter(parsing: "cust-2"), cursor: .before(expected[600]), limit: 40)
        #expect(before.rows.map(\.key) == Array(expected[560..<600]), "paging back")
        // A second word narrows every lookup of the first, the prefix's key ranges too.
        let kim = Self.expected(customers) { ($0.name.contains("Kim")) && (folded($0.id).hasPrefix("cust-2") || folded($0.name).contains("cust-2")) }
        #expect(kim.count == 606)
        #expect(try SearchTests.keys(browser, .customers, "cust-2 kim", limit: 41) == kim)
    }

    /// Beside a broad prefix, the term held past an id's start, in a name, across the id and the
    /// name (quoted), and in another script at an id's start: each found once, in key order (on
    /// PostgreSQL the fragment is read in the text past the id's start, migration 0018's index,
    /// so the prefix's own matches are not read a second time).
    @Test(arguments: ConsoleBackend.available)
    func fragmentsBesideABroadPrefixAreFoundOnce(_ backend: ConsoleBackend) throws {
        let f = try ConsoleFixture(populated: false, backend: backend)
        let customers = (0..<1_100).map { (String(format: "cust-2%04d", $0), "Lee") }
            + [("CUST-2X", "Lee"), ("x-cust-2a", "Lee"), ("9001", "a cust-2 fan"), ("9002", "Lee"), ("über-1", "Lee"), ("ab", "cd Lee")]
        try f.database.writeTransaction {
            for (id, name) in customers {
                try f.database.execute("INSERT INTO customers (customer_id, created_at, updated_at, display_name) VALUES (?, ?, ?, ?)",
                                       [.text(id), .text("2025-06-01T12:00:00.000Z"), .text("2025-06-01T12:00:00.000Z"), .text(name)])
            }
        }
        let browser = Browser(f.database)
        let expected = Self.expected(customers.map { (id: $0.0, name: $0.1) }) { $0.id.lowercased().contains("cust-2") || $0.name.contains("cust-2") }
        #expect(expected.count == 1_103 && expected.prefix(2) == [.text("9001"), .text("CUST-2X")])
        let first = try browser.page(.customers, filter: try BrowseFilter(parsing: "cust-2"), cursor: .first, limit: 40)
        #expect(first.rows.map(\.key) == Array(expected.prefix(40)) && first.isFull)
        #expect(try SearchTests.keys(browser, .customers, "cust-2", limit: 97) == expected, "every match once, in order")
        let count = try browser.matchCount(.customers, filter: try BrowseFilter(parsing: "cust-2"))
        #expect(count.count == BrowseLimits.matchCountCap && count.isLowerBound)
        #expect(try SearchTests.keys(browser, .customers, "cust-2a") == [.text("x-cust-2a")], "a fragment past the id's start")
        #expect(try browser.matchCount(.customers, filter: try BrowseFilter(parsing: "cust-2a")).count == 1)
        #expect(try SearchTests.keys(browser, .customers, "über") == [.text("über-1")], "another script at the id's start")
        if backend == .postgres {
            // The whole text still holds what only it can: a quoted fragment across the id and the name.
            #expect(try SearchTests.keys(browser, .customers, "\"ab cd\"") == [.text("ab")])
            let indexes = Set(try f.database.query("SELECT indexname FROM pg_indexes WHERE tablename = 'customers'", []).compactMap { $0.string("indexname") })
            #expect(indexes.contains("customers_by_contact") == indexes.contains("customers_by_contact_past_id"))
            let past = { (term: String) in BrowseQuery(.customers, try BrowseFilter(parsing: term), f.database.dialect).sources[1].sql }
            #expect(try past("cust-2").contains("substr(customers.customer_id, 2)"))
            #expect(try !past("über").contains("substr(") && !past("\"ab cd\"").contains("substr("))
        }
    }

    /// A broad name whose matches thin out near the cursor: none in the first 1,000 keys (the
    /// walk's first fifth finds too few and the page is picked from the lookups), 10 in the next
    /// 1,000 (enough to go on walking, and the rest of the chunk fills the page), then dense.
    /// Every page is the next matches in key order, forward and back.
    @Test(arguments: ConsoleBackend.available)
    func aBroadNameThinNearTheCursorFillsItsPagesInKeyOrder(_ backend: ConsoleBackend) throws {
        let f = try ConsoleFixture(populated: false, backend: backend)
        var customers = (0..<1_000).map { (id: String(format: "0-%04d", $0), name: "Lee") }
        customers += (0..<5_000).map { (id: String(format: "a-%04d", $0), name: ($0 < 1_000 ? $0 % 100 : $0 % 20) == 0 ? "Kimura" : "Lee") }
        customers += (0..<1_000).map { (id: String(format: "b-%04d", $0), name: "Kimura") }
        try f.database.writeTransaction {
            for chunk in stride(from: 0, to: customers.count, by: 500) {
                let part = customers[chunk..<min(chunk + 500, customers.count)]
                try f.database.execute("INSERT INTO customers (customer_id, created_at, updated_at, display_name) VALUES "
                                       + part.map { _ in "(?, '2025-06-01T12:00:00.000Z', '2025-06-01T12:00:00.000Z', ?)" }.joined(separator: ", "),
                                       part.flatMap { [SQLValue.text($0.id), .text($0.name)] })
            }
        }
        let expected = Self.expected(customers) { $0.name == "Kimura" }
        #expect(expected.count == 1_210)
        let browser = Browser(f.database)
        let filter = try BrowseFilter(parsing: "kimura")
        let first = try browser.page(.customers, filter: filter, cursor: .first, limit: 40)
        #expect(first.rows.map(\.key) == Array(expected.prefix(40)) && first.isFull)
        let thin = try browser.page(.customers, filter: filter, cursor: .after(.text("0-0999")), limit: 40)
        #expect(thin.rows.map(\.key) == Array(expected.prefix(40)), "10 in the first 1,000 keys, 30 after them")
        let later = try browser.page(.customers, filter: filter, cursor: .after(expected[5]), limit: 40)
        #expect(later.rows.map(\.key) == Array(expected[6..<46]))
        #expect(try SearchTests.keys(browser, .customers, "kimura", limit: 40) == expected, "every match once, in order")
        let back = try browser.page(.customers, filter: filter, cursor: .before(expected[100]), limit: 40)
        #expect(back.rows.map(\.key) == Array(expected[60..<100]))
        // The rule: a fifth of the chunk holding less than half a page at the whole chunk's rate.
        #expect(Browser.looksSparse(found: 0, limit: 41) && Browser.looksSparse(found: 4, limit: 41))
        #expect(!Browser.looksSparse(found: 5, limit: 41) && !Browser.looksSparse(found: 10, limit: 41))
    }
}
