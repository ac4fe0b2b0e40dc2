import Foundation
@testable import PurchaseStore
import ReceiptCore
import Testing
import Benchmarks
@testable import ConsoleUI

/// Keyset paging of PurchaseStore/Browse on a generated database, on SQLite and PostgreSQL:
/// every page in both directions matches the table read whole in key order, filters use
/// indexes only (plans checked on SQLite), counts need no full count(*).
@Suite("Keyset browsing", .serialized)
struct BrowseTests {
    /// 250 customers with 4 transactions each, written straight into the tables.
    static func generated(_ backend: ConsoleBackend = .sqlite) throws -> ConsoleFixture {
        let f = try ConsoleFixture(populated: false, backend: backend)
        try f.database.writeTransaction {
            let now = "2025-06-01T12:00:00.000Z"
            for index in 0..<250 {
                let customer = String(format: "cust-%04d", index)
                try f.database.execute("INSERT INTO customers (customer_id, created_at, updated_at) VALUES (?, ?, ?)",
                                       [.text(customer), .text(now), .text(now)])
                try f.database.execute("""
                    INSERT INTO receipts (sha256, raw, format, environment, verdict, verdict_reason, decoded_json, source, customer_id, imported_at, imported_by)
                    VALUES (?, ?, 'unified', ?, ?, 'test', '{}', 'test', ?, ?, 'test')
                    """, [.text("digest-\(index)"), .blob([0]), .text(index % 50 == 0 ? "Sandbox" : "Production"), .text(index % 100 == 7 ? "invalid" : "valid"),
                          .text(customer), .text(now)])
                for n in 0..<4 {
                    let id = String(7_000_000_000 + index * 4 + n)
                    try f.database.execute("""
                        INSERT INTO transactions (transaction_id, original_transaction_id, product_id, customer_id, binding, environment, quantity,
                                                  first_receipt_id, recorded_at)
                        VALUES (?, ?, ?, ?, 'unbound', ?, 1, ?, ?)
                        """, [.text(id), .text(String(7_000_000_000 + index * 4)), .text(n == 3 ? "coins" : "pro.monthly"), .text(customer),
                              .text(index % 50 == 0 ? "Sandbox" : "Production"), .integer(Int64(index + 1)), .text(now)])
                }
            }
        }
        return f
    }

    @Test(arguments: ConsoleBackend.available, BrowseTable.allCases)
    func pagesInBothDirectionsCoverTheTableExactlyOnce(_ backend: ConsoleBackend, _ table: BrowseTable) throws {
        let f = try Self.generated(backend)
        let browser = Browser(f.database)
        var forward: [BrowseKey] = []
        var cursor = PageCursor.first
        while true {
            let page = try browser.page(table, cursor: cursor, limit: 17)
            forward += page.rows.map(\.key)
            guard page.isFull, let last = page.rows.last else { break }
            cursor = .after(last.key)
        }
        var backward: [BrowseKey] = []
        cursor = .last
        while true {
            let page = try browser.page(table, cursor: cursor, limit: 17)
            backward = page.rows.map(\.key) + backward
            guard page.isFull, let first = page.rows.first else { break }
            cursor = .before(first.key)
        }
        let (name, key) = [BrowseTable.customers: ("customers", "customer_id"), .orders: ("orders", "order_id"),
                           .transactions: ("transactions", "transaction_id"), .receipts: ("receipts", "receipt_id"),
                           .conflicts: ("conflicts", "conflict_id"), .audit: ("audit_log", "seq")][table] ?? ("", "")
        let textual = [.customers, .orders, .transactions].contains(table)
        let all = try f.database.query("SELECT \(key) AS k FROM \(name) ORDER BY \(key) \(table.newestFirst ? "DESC" : "ASC")", [])
            .map { textual ? BrowseKey.text($0.string("k") ?? "") : BrowseKey.integer($0.int("k") ?? 0) }
        #expect(all.count > 0 || [.orders, .conflicts, .audit].contains(table))
        #expect(forward == all)
        #expect(backward == all)
        if let middle = all.dropFirst(all.count / 2).first {
            #expect(try browser.page(table, cursor: .from(middle), limit: 3).rows.first?.key == middle)
        }
    }

    @Test(arguments: ConsoleBackend.available)
    func filtersFindIdsThroughIndexesAndQualifiersAreChecked(_ backend: ConsoleBackend) throws {
        let f = try Self.generated(backend)
        let browser = Browser(f.database)
        func keys(_ table: BrowseTable, _ text: String) throws -> Int {
            try browser.page(table, filter: try BrowseFilter(parsing: text), cursor: .first, limit: 500).rows.count
        }
        #expect(try keys(.transactions, "7000000005") == 1)
        #expect(try keys(.transactions, "7000000004") == 4, "the id and the renewals that name it as their original")
        #expect(try keys(.transactions, "cust-0003") == 4)
        #expect(try keys(.transactions, "coins") == 250)
        #expect(try keys(.transactions, "coins env:sandbox") == 5)
        #expect(try keys(.transactions, "env:sandbox") == 20)
        #expect(try keys(.customers, "7000000005") == 1)
        #expect(try keys(.customers, "env:sandbox") == 5)
        #expect(try keys(.receipts, "verdict:invalid") == 3)
        #expect(try keys(.receipts, "cust-0007 verdict:invalid") == 1)
        #expect(try keys(.receipts, "#12") == 1)
        #expect(try browser.page(.customers, filter: try BrowseFilter(parsing: "7000000005"), cursor: .first, limit: 5).rows.map(\.key) == ["cust-0001"])
        // Several sources merge in key order, each row once.
        let merged = try browser.page(.transactions, filter: try BrowseFilter(parsing: "7000000004"), cursor: .first, limit: 3)
        #expect(merged.rows.map(\.key) == ["7000000004", "7000000005", "7000000006"] && merged.isFull)
        #expect(try browser.page(.transactions, filter: try BrowseFilter(parsing: "7000000004"), cursor: .after("7000000006"), limit: 3)
            .rows.map(\.key) == ["7000000007"])
        let ignored = try browser.page(.orders, filter: try BrowseFilter(parsing: "verdict:invalid"), cursor: .first, limit: 5)
        #expect(ignored.ignored == ["verdict:invalid (only receipts, their transactions and customers have a verdict)"])
    }

    @Test func noListQueryScansATable() throws {
        let f = try Self.generated()
        let browser = Browser(f.database)
        for text in ["", "7000000005", "cust-0003", "coins", "customer:cust-0001 product:coins", "tx:7000000005", "original:7000000004",
                     "order:o-1", "status:conflict", "status:resolved", "#12"] {
            let scans = try browser.fullScans(filter: try BrowseFilter(parsing: text))
            #expect(scans == [], "/\(text): \(scans.joined(separator: "\n"))")
        }
        // Property-only filters walk the key range in bounded chunks: a rowid range search, not a scan.
        for text in ["env:sandbox", "verdict:invalid", "status:paid", "status:refunded"] {
            #expect(try browser.fullScans(filter: try BrowseFilter(parsing: text)) == [], "/\(text)")
        }
    }

    @Test(arguments: ConsoleBackend.available)
    func aScanWithoutAnIndexStopsAtItsBudgetAndContinues(_ backend: ConsoleBackend) throws {
        let f = try ConsoleFixture(populated: false, backend: backend)
        let total = Int(BrowseLimits.scanBudget(.transactions)) + 5_000
        try f.database.writeTransaction {
            let now = "2025-06-01T12:00:00.000Z"
            try f.database.execute("INSERT INTO customers (customer_id, created_at, updated_at) VALUES ('c', ?, ?)", [.text(now), .text(now)])
            try f.database.execute("""
                INSERT INTO receipts (sha256, raw, format, environment, verdict, verdict_reason, decoded_json, source, customer_id, imported_at, imported_by)
                VALUES ('d', ?, 'unified', 'Production', 'valid', 'test', '{}', 'test', 'c', ?, 'test')
                """, [.blob([0]), .text(now)])
            for index in 0..<total {
                try f.database.execute("""
                    INSERT INTO transactions (transaction_id, product_id, customer_id, binding, environment, quantity, first_receipt_id, recorded_at)
                    VALUES (?, 'p', 'c', 'unbound', ?, 1, 1, ?)
                    """, [.text(Self.padded(index)), .text(index >= total - 3 ? "Sandbox" : "Production"), .text(now)])
            }
        }
        let browser = Browser(f.database)
        let filter = try BrowseFilter(parsing: "env:sandbox")
        let first = try browser.page(.transactions, filter: filter, cursor: .first, limit: 10)
        #expect(first.rows.isEmpty)
        let stopped = try #require(first.scannedThrough)
        #expect(stopped == .text(Self.padded(Int(BrowseLimits.scanBudget(.transactions)) - 1)), "the last key examined")
        let next = try browser.page(.transactions, filter: filter, cursor: .after(stopped), limit: 10)
        #expect(next.rows.map(\.key) == [total - 3, total - 2, total - 1].map { .text(Self.padded($0)) })
        #expect(next.scannedThrough == nil)
        // The console says where it stopped and goes on with ↓.
        let (c, screen) = f.console()
        c.press(.character("3"), .character("/"), on: screen)
        c.typeText("env:sandbox", on: screen)
        c.press(.enter, on: screen)
        #expect(screen.text.contains("searched to \(stopped)"))
        c.press(.down, on: screen)
        #expect(c.state.list.rows.count == 1 && c.state.list.rows.first?.key == .text(Self.padded(total - 3)))
        c.press(.pageDown, on: screen)
        #expect(c.state.list.rows.count == 3)
    }

    static func padded(_ index: Int) -> String { String(format: "%08d", index) }

    @Test(arguments: ConsoleBackend.available)
    func anIndexOnAPropertyReplacesTheBoundedScan(_ backend: ConsoleBackend) throws {
        let f = try Self.generated(backend)
        let browser = Browser(f.database)
        let filter = try BrowseFilter(parsing: "env:sandbox")
        #expect(browser.statements(.transactions, filter: filter, cursor: .first, limit: 5).contains { $0.sql.contains("AS chunk") })
        let before = try browser.page(.transactions, filter: filter, cursor: .first, limit: 100).rows.map(\.key)
        #expect(before.count == 20)
        try f.database.execute("CREATE INDEX transactions_by_environment ON transactions(environment)", [])
        let statements = browser.statements(.transactions, filter: filter, cursor: .first, limit: 5)
        #expect(statements.count == 1 && !statements.contains { $0.sql.contains("AS chunk") })
        if backend == .sqlite, let statement = statements.first {
            let plan = try f.database.query("EXPLAIN QUERY PLAN " + statement.sql, statement.parameters).compactMap { $0.string("detail") }
            #expect(plan.contains { $0.contains("USING INDEX transactions_by_environment") }, "\(plan)")
        }
        #expect(try browser.page(.transactions, filter: filter, cursor: .first, limit: 100).rows.map(\.key) == before)
    }

    @Test(arguments: ConsoleBackend.available)
    func countsNeedNoFullCount(_ backend: ConsoleBackend) throws {
        let f = try Self.generated(backend)
        let counts = try Browser(f.database).counts()
        #expect(counts.rows[.customers] == 250)
        #expect(counts.rows[.transactions] == 1000)
        #expect(counts.rows[.receipts] == 250)
        #expect(counts.openConflicts == 0)
    }

    @Test(arguments: ConsoleBackend.available)
    func theConsolePagesThroughALongList(_ backend: ConsoleBackend) throws {
        let f = try Self.generated(backend)
        let (c, screen) = f.console()
        c.press(.character("3"), on: screen)
        let visible = c.state.layout.listRows
        func tx(_ n: Int) -> BrowseKey { .text(String(7_000_000_000 + n - 1)) }  // the nth transaction
        for _ in 0..<(visible + 5) { c.press(.down, on: screen) }
        #expect(c.state.list.rows.count == visible, "the window never grows")
        #expect(c.state.list.selectedRow?.key == tx(visible + 6))
        c.press(.pageDown, on: screen)
        #expect(c.state.list.selectedRow?.key == tx(2 * visible + 6))
        c.press(.end, on: screen)
        #expect(c.state.list.selectedRow?.key == tx(1000))
        #expect(screen.text.contains("▲ more"))
        c.press(.pageUp, .home, on: screen)
        #expect(c.state.list.selectedRow?.key == tx(1))
        c.press(.up, on: screen)
        #expect(c.state.list.selectedRow?.key == tx(1))
    }

    /// The customers list reads its columns for the whole page at once (ListRowLookups): each
    /// column still says what it said when it was read row by row.
    @Test(arguments: ConsoleBackend.available)
    func eachCustomerRowShowsItsOwnColumns(_ backend: ConsoleBackend) throws {
        let f = try Self.generated(backend)
        let now = "2025-06-01T12:00:00.000Z"
        try f.database.writeTransaction {
            // cust-0001: over the count cap, an entitlement held and one not, a receipt Apple placed
            // elsewhere; cust-0002: a receipt in an environment no receiptdesk writes, the other
            // side of an open conflict with cust-0003 (and of a resolved one).
            for n in 0..<BrowseLimits.countCap {
                try f.database.execute("""
                    INSERT INTO transactions (transaction_id, original_transaction_id, product_id, customer_id, binding, environment, quantity,
                                              first_receipt_id, recorded_at) VALUES (?, ?, 'coins', 'cust-0001', 'unbound', 'Xcode', 1, 2, ?)
                    """, [.text(String(8_000_000_000 + n)), .text(String(8_000_000_000 + n)), .text(now)])
            }
            for (entitlement, active) in [("pro", 1), ("old", 0), ("pro", 1), ("coins", 1)] {
                try f.database.execute("""
                    INSERT INTO entitlements (customer_id, entitlement, source, active, revoked, reason, flags, computed_at)
                    VALUES ('cust-0001', ?, 'purchase', ?, 0, 'test', '', ?)
                    """, [.text(entitlement), .integer(Int64(active)), .text(now)])
            }
            try f.database.execute("UPDATE receipts SET apple_environment = 'Sandbox' WHERE customer_id = 'cust-0001'", [])
            try f.database.execute("UPDATE receipts SET environment = 'Staging' WHERE customer_id = 'cust-0002'", [])
            for (transaction, status) in [("7000000008", "open"), ("7000000009", "resolved")] {
                try f.database.execute("""
                    INSERT INTO conflicts (transaction_id, owner_customer_id, claimant_customer_id, opened_at, status)
                    VALUES (?, 'cust-0002', 'cust-0003', ?, ?)
                    """, [.text(transaction), .text(now), .text(status)])
            }
        }
        let rows = try Browser(f.database).page(.customers, cursor: .first, limit: 5).rows.compactMap { row -> CustomerListRow? in
            if case .customer(_, let listed) = row { return listed } else { return nil }
        }
        try #require(rows.map(\.customerId) == ["cust-0000", "cust-0001", "cust-0002", "cust-0003", "cust-0004"])
        #expect(rows[0].environments == ["Sandbox"] && rows[0].transactionCount == 4 && !rows[0].transactionCountCapped)
        #expect(rows[1].transactionCount == BrowseLimits.countCap && rows[1].transactionCountCapped)
        #expect(rows[1].activeEntitlements == ["coins", "pro"])
        #expect(rows[1].environments == ["Production", "Xcode"] && rows[1].environmentMismatch)
        #expect(rows[2].environments == ["Production", "Staging"] && !rows[2].environmentMismatch)
        #expect(rows.map(\.openConflicts) == [0, 0, 1, 1, 0])
        #expect(rows[4].activeEntitlements.isEmpty && rows[4].environments == ["Production"] && rows[4].transactionCount == 4)
        let transactions = try Browser(f.database).page(.transactions, cursor: .after(.text("7000000007")), limit: 3).rows.compactMap { row -> TransactionListRow? in
            if case .transaction(_, let listed) = row { return listed } else { return nil }
        }
        #expect(transactions.map(\.inOpenConflict) == [true, false, false])
    }

    /// A customer's receipts and transactions are read for the list through their indexes only
    /// (SQLite's plan): a receipt's row is 2 KB, and reading them was most of a page-down at ten
    /// million transactions.
    @Test func aCustomerRowsColumnsReadIndexesOnly() throws {
        let f = try Self.generated(.sqlite)
        let plan = try f.database.query("EXPLAIN QUERY PLAN " + ListRowLookups.customerColumns(count: 2), [.text("cust-0001"), .text("cust-0002")])
            .compactMap { $0.string("detail") }
        let reads = plan.filter { $0.hasPrefix("SEARCH r ") || $0.hasPrefix("SEARCH t ") || $0.hasPrefix("SCAN r ") || $0.hasPrefix("SCAN t ") }
        #expect(reads.count == 5, "\(plan)")
        #expect(reads.allSatisfy { $0.contains("USING COVERING INDEX receipts_by_customer") || $0.contains("USING COVERING INDEX transactions_by_customer") },
                "\(plan)")
        // Their active entitlements too (migration 0021): an entitlement row is read from the index.
        let entitlements = try f.database.query("EXPLAIN QUERY PLAN " + ListRowLookups.activeEntitlements(count: 2), [.text("cust-0001"), .text("cust-0002")])
            .compactMap { $0.string("detail") }
        #expect(entitlements.contains { $0.contains("USING COVERING INDEX entitlements_by_customer") }, "\(entitlements)")
        #expect(!entitlements.contains { $0.hasPrefix("SCAN entitlements") }, "\(entitlements)")
    }

    @Test(arguments: ConsoleBackend.available)
    func theBenchmarkHookRuns(_ backend: ConsoleBackend) throws {
        let f = try Self.generated(backend)
        let figures = try ConsoleBenchmark.run(ledger: f.ledger, size: ScreenSize(rows: 24, columns: 80), runs: 3)
        #expect(figures.map(\.0).contains("console filter by transaction id, median ms"))
        #expect(figures.allSatisfy { $0.1 > 0 })
    }
}
