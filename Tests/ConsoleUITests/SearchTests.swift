import Foundation
import PurchaseStore
import ReceiptCore
import Testing
@testable import ConsoleUI

/// The search box's matching in PurchaseStore/Browse, on SQLite and PostgreSQL: ids by prefix and
/// case-insensitively, names and emails by fragment, Apple order ids, tokens, web order line
/// items and receipt hashes; counts capped at 1,000; prefixes matching many page in key order;
/// every answer equals the table filtered in memory.
@Suite("Search", .serialized)
struct SearchTests {
    /// BrowseTests' 250 customers, plus names, tokens, web order line items, an Apple order, a
    /// hashed receipt and 300 more transactions for cust-0200 (so a one-digit prefix matches
    /// more than 1,000 transactions).
    static func fixture(_ backend: ConsoleBackend) throws -> ConsoleFixture {
        let f = try BrowseTests.generated(backend)
        try f.ledger.setContact("cust-0042", CustomerContact(displayName: "Ada Lovelace", email: "ada@analytical.example"), operatorName: "test")
        try f.ledger.addCustomer("Cust-Mixed", isTester: false, contact: CustomerContact(displayName: "Zoë Ünal"), operatorName: "test")
        try f.ledger.recordAppleOrder("MK5TTTVWJH", transactionIds: ["7000000020", "7000000021", "not-in-ledger"], operatorName: "test")
        try f.database.writeTransaction {
            try f.database.execute("UPDATE transactions SET app_account_token = ? WHERE transaction_id = ?",
                                   [.text("7f3c2a10-4b1e-4c8e-9d2a-0a1b2c3d4e5f"), .text("7000000030")])
            try f.database.execute("UPDATE transactions SET web_order_line_item_id = ? WHERE transaction_id = ?",
                                   [.text("9000000000123"), .text("7000000031")])
            try f.database.execute("UPDATE receipts SET sha256 = ? WHERE receipt_id = 3", [.text("abcdef0123456789" + String(repeating: "0", count: 48))])
            for n in 0..<300 {
                try f.database.execute("""
                    INSERT INTO transactions (transaction_id, original_transaction_id, product_id, customer_id, binding, environment, quantity,
                                              first_receipt_id, recorded_at)
                    VALUES (?, ?, 'coins', 'cust-0200', 'unbound', 'Production', 1, 201, '2025-06-01T12:00:00.000Z')
                    """, [.text(String(7_100_000_000 + n)), .text(String(7_100_000_000 + n))])
            }
        }
        return f
    }

    static func keys(_ browser: Browser, _ table: BrowseTable, _ text: String, limit: Int = 500) throws -> [BrowseKey] {
        var keys: [BrowseKey] = []
        var cursor = PageCursor.first
        while true {
            let page = try browser.page(table, filter: try BrowseFilter(parsing: text), cursor: cursor, limit: limit)
            keys += page.rows.map(\.key)
            if let scanned = page.scannedThrough { cursor = .after(scanned); continue }
            guard page.isFull, let last = page.rows.last else { return keys }
            cursor = .after(last.key)
        }
    }

    @Test(arguments: ConsoleBackend.available)
    func idsMatchByPrefixAndCaseInsensitively(_ backend: ConsoleBackend) throws {
        let f = try Self.fixture(backend)
        let browser = Browser(f.database)
        #expect(try Self.keys(browser, .customers, "CUST-001") == (10...19).map { .text(String(format: "cust-%04d", $0)) })
        #expect(try Self.keys(browser, .customers, "cust-mi") == ["Cust-Mixed"])
        #expect(try Self.keys(browser, .transactions, "700000002") == (20...31).map { .text(String(7_000_000_000 + $0)) },
                "ids and original ids by prefix (7000000028 is the original of 29-31)")
        #expect(try Self.keys(browser, .transactions, "cust-0003") == ["7000000012", "7000000013", "7000000014", "7000000015"],
                "a whole customer id finds their transactions")
        #expect(try Self.keys(browser, .customers, "7000000013") == ["cust-0003"], "a whole transaction id finds its owner")
        #expect(try Self.keys(browser, .transactions, "7F3C2A") == ["7000000030"], "an app account token by prefix, any case")
        #expect(try Self.keys(browser, .customers, "7F3C2A10-4B1E-4C8E-9D2A-0A1B2C3D4E5F") == ["cust-0007"], "a whole token finds its owner")
        #expect(try Self.keys(browser, .transactions, "900000000012") == ["7000000031"], "a web order line item by prefix")
        #expect(try Self.keys(browser, .receipts, "ABCDEF01") == [.integer(3)], "a receipt by the start of its SHA-256")
        #expect(try Self.keys(browser, .receipts, "#3") == [.integer(3)])
    }

    @Test(arguments: ConsoleBackend.available)
    func namesAndEmailsMatchByFragmentAndFollowChanges(_ backend: ConsoleBackend) throws {
        let f = try Self.fixture(backend)
        let browser = Browser(f.database)
        #expect(try Self.keys(browser, .customers, "lovel") == ["cust-0042"])
        #expect(try Self.keys(browser, .customers, "ANALYTICAL.EX") == ["cust-0042"])
        #expect(try Self.keys(browser, .customers, "\"ada lov\"") == ["cust-0042"], "a quoted fragment with a space")
        #expect(try Self.keys(browser, .customers, "ad") == [], "two characters match ids by prefix only")
        #expect(try Self.keys(browser, .customers, "T-MIX") == ["Cust-Mixed"], "any fragment of a customer id, any case")
        #expect(try Self.keys(browser, .customers, "0042") == ["cust-0042"])
        #expect(try Self.keys(browser, .customers, "Ünal") == ["Cust-Mixed"])
        try f.ledger.setContact("cust-0042", CustomerContact(displayName: "Grace Hopper"), operatorName: "test")
        #expect(try Self.keys(browser, .customers, "lovel") == [])
        #expect(try Self.keys(browser, .customers, "hopper") == ["cust-0042"])
        #expect(try Self.keys(browser, .customers, "analytical") == ["cust-0042"], "the email was kept")
        try f.ledger.setContact("cust-0042", CustomerContact(displayName: "", email: ""), operatorName: "test")
        #expect(try Self.keys(browser, .customers, "hopper") == [])
        #expect(try f.ledger.customerSummary("cust-0042").displayName == nil)
        #expect(throws: StoreError.self) { try f.ledger.setContact("cust-0042", CustomerContact(email: "not an address"), operatorName: "test") }
        #expect(throws: StoreError.self) { try f.ledger.setContact("cust-0042", CustomerContact(displayName: "a\u{1B}[2Jb"), operatorName: "test") }
    }

    @Test(arguments: ConsoleBackend.available)
    func anAppleOrderIdFindsItsTransactionsOrdersAndOwner(_ backend: ConsoleBackend) throws {
        let f = try Self.fixture(backend)
        let browser = Browser(f.database)
        #expect(try Self.keys(browser, .transactions, "mk5tttvwjh") == ["7000000020", "7000000021"])
        #expect(try Self.keys(browser, .customers, "MK5TTTVWJH") == ["cust-0005"])
        #expect(try Self.keys(browser, .receipts, "MK5TTTVWJH") == [.integer(6)])
        #expect(try f.ledger.recordAppleOrder("MK5TTTVWJH", transactionIds: ["7000000020"], operatorName: "test") == 0, "recorded once")
        let entry = try f.database.queryFirst("SELECT action, target FROM audit_log WHERE action = 'apple-order'", [])
        #expect(entry?.string("target") == "apple-order:MK5TTTVWJH")
    }

    /// One app download (an app transaction id) links a customer's purchases across reinstalls
    /// and devices: the id finds the customer, all their transactions, and the stored JWS naming it.
    @Test(arguments: ConsoleBackend.available)
    func anAppTransactionIdFindsTheCustomersTransactions(_ backend: ConsoleBackend) throws {
        let f = try Self.fixture(backend)
        let browser = Browser(f.database)
        try f.database.writeTransaction {
            try f.database.execute("UPDATE transactions SET app_transaction_id = ? WHERE transaction_id = ?",
                                   [.text("704897469903383919"), .text("7000000013")])
            try f.database.execute("UPDATE receipts SET app_transaction_id = ? WHERE receipt_id = 9", [.text("705555555555555555")])
        }
        let owner9 = try f.database.queryFirst("SELECT customer_id FROM receipts WHERE receipt_id = 9", [])?.string("customer_id")
        #expect(try Self.keys(browser, .customers, "704897469903383919") == ["cust-0003"])
        #expect(try Self.keys(browser, .transactions, "704897469903383919") == ["7000000012", "7000000013", "7000000014", "7000000015"],
                "every transaction of the customer, not only the one that named the download")
        #expect(try Self.keys(browser, .transactions, "70489746990338391") == [], "an app transaction id only whole")
        #expect(try Self.keys(browser, .receipts, "705555555555555555") == [.integer(9)])
        #expect(try Self.keys(browser, .customers, "705555555555555555") == [owner9].compactMap { $0.map { .text($0) } })
    }

    @Test(arguments: ConsoleBackend.available)
    func countsAreExactUpToAThousandAndBroadPrefixesWalkTheList(_ backend: ConsoleBackend) throws {
        let f = try Self.fixture(backend)
        let browser = Browser(f.database)
        func count(_ table: BrowseTable, _ text: String) throws -> MatchCount { try browser.matchCount(table, filter: try BrowseFilter(parsing: text)) }
        #expect(try count(.customers, "cust-001") == MatchCount(count: 10, isLowerBound: false))
        #expect(try count(.transactions, "7") == MatchCount(count: 1_000, isLowerBound: true), "1,300 transactions start with 7")
        #expect(try count(.transactions, "70") == MatchCount(count: 1_000, isLowerBound: false))
        #expect(try count(.transactions, "7 cust-0200") == MatchCount(count: 304, isLowerBound: false))
        #expect(try count(.transactions, "zzz-nothing") == MatchCount(count: 0, isLowerBound: false))
        #expect(try count(.audit, "env:sandbox").applies == false)
        #expect(try count(.transactions, "env:sandbox") == MatchCount(count: 20, isLowerBound: false))
        // A prefix matching 1,300 transactions pages them in key order: every match, in order, each once.
        let all = try f.database.query("SELECT transaction_id FROM transactions ORDER BY transaction_id", []).compactMap { $0.string("transaction_id") }
        #expect(try Self.keys(browser, .transactions, "7", limit: 37) == all.map { .text($0) })
        #expect(try Self.keys(browser, .transactions, "71", limit: 37) == all.filter { $0.hasPrefix("71") }.map { .text($0) })
        let backward = try browser.page(.transactions, filter: try BrowseFilter(parsing: "7"), cursor: .last, limit: 5)
        #expect(backward.rows.map(\.key) == all.suffix(5).map { .text($0) })
    }

    @Test(arguments: ConsoleBackend.available)
    func sinceKeepsRowsFromADateOn(_ backend: ConsoleBackend) throws {
        let f = try Self.fixture(backend)
        let browser = Browser(f.database)
        #expect(try BrowseFilter(parsing: "since:2025-06-01").text == "since:2025-06-01")
        #expect(try Self.keys(browser, .receipts, "since:2025-06-01").count == 250)
        #expect(try Self.keys(browser, .receipts, "since:2025-06-01T12:00:00.001Z").count == 0)
        #expect(throws: StoreError.self) { try BrowseFilter(parsing: "since:yesterday") }
    }

    /// Every id prefix of every customer and transaction, against the tables filtered in memory.
    @Test(arguments: ConsoleBackend.available)
    func prefixesAgreeWithTheTablesFilteredInMemory(_ backend: ConsoleBackend) throws {
        let f = try Self.fixture(backend)
        let browser = Browser(f.database)
        let customers = try f.database.query("SELECT customer_id FROM customers", []).compactMap { $0.string("customer_id") }
        for prefix in ["c", "CUST-02", "cust-0249", "cust-1", "C"] {
            let expected = customers.filter { $0.lowercased().hasPrefix(prefix.lowercased()) }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            let found = try Self.keys(browser, .customers, prefix, limit: 23).map { key -> String in if case .text(let t) = key { return t } else { return "" } }
            #expect(Set(found) == Set(expected), "/\(prefix)")
            #expect(found.count == expected.count, "/\(prefix): each once")
        }
    }
}

/// Whatever is typed into the search box, the answer is rows or a one-line error, on both
/// backends: quotes, LIKE and FTS syntax, SQL, control characters, very long input.
@Suite("Search input that tries to break it")
struct SearchHostileInputTests {
    @Test(arguments: ConsoleBackend.available)
    func oddInputIsSearchedOrRefusedInOneLine(_ backend: ConsoleBackend) throws {
        let f = try SearchTests.fixture(backend)
        let browser = Browser(f.database)
        let inputs = ["%", "_", "\\", "'", "''", "\"\"", "a\"b", "\"abc", "*", "NEAR(a b)", "lov*", "a OR b", "col:val", "^lov", "-lov",
                      "'; DROP TABLE customers; --", "%lov%", "_ov", "lov\\", "\u{1B}[2J", "a\u{202E}b", "since:", ":x", "env:",
                      String(repeating: "x", count: 600), Array(repeating: "w", count: 20).joined(separator: " "), "日本語", "🙂🙂🙂", "\u{0}x"]
        var seed: UInt64 = 0x5EA4
        var random: [String] = []
        let alphabet = Array("aZ09-_%*\"'\\:;()[]{}^$.|?+~ \t#@!é日")
        for _ in 0..<150 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            var text = ""
            for step in 0..<Int(seed % 12 + 1) { text.append(alphabet[Int((seed >> UInt64(step * 4 % 60)) % UInt64(alphabet.count))]) }
            random.append(text)
        }
        for text in inputs + random {
            let filter: BrowseFilter
            do {
                filter = try BrowseFilter(parsing: text)
            } catch let error as StoreError {
                #expect(error.code == .invalidInput && !error.reason.contains("\n"), "\(text): \(error.reason)")
                continue
            }
            for table in BrowseTable.allCases {
                do {
                    _ = try browser.page(table, filter: filter, cursor: .first, limit: 10)
                    _ = try browser.matchCount(table, filter: filter)
                } catch {
                    Issue.record("/\(text) on \(table): \(error)")
                }
            }
        }
        #expect(try f.database.queryFirst("SELECT count(*) AS n FROM customers", [])?.int("n") ?? 0 > 200, "nothing was dropped")
    }
}
