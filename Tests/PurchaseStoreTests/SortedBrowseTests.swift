import Foundation
import PurchaseStore
import Testing

/// Issue 29, columns sort: a list sorted by a column is a keyset walk on (column, key) over
/// migration 0016's indexes. Paged forward and back across pages that split ties and NULLs, it
/// must give exactly the rows of a plain in-memory sort (values by UTF-8 bytes, which the test
/// server's C.UTF-8 collation shares; rows without a value last, by key), on both backends.
@Suite("Sorted lists")
struct SortedBrowseTests {
    /// The values each row of a sortable column holds, by table and column.
    struct Rows {
        var values: [BrowseTable: [BrowseSort.Column: [(key: BrowseKey, value: String?)]]] = [:]
    }

    static let names: [String?] = ["ada", nil, "bo", "", "ada", nil, "zed", "bo"]
    static let days: [String?] = ["2025-03-01T10:00:00.000Z", "2025-01-15T08:30:00.000Z", nil, "2025-03-01T10:00:00.000Z", "2024-12-31T23:59:59.000Z"]
    static let products = ["p.gold", "p.coins", "p.pro", "p.coins"]

    /// 29 customers, 37 transactions and 23 receipts whose sort values repeat (ties) and are
    /// missing (NULL; an empty name too), inserted out of key order.
    static func populate(_ database: SQLDatabase) throws -> Rows {
        var rows = Rows()
        func key(_ prefix: String, _ n: Int) -> String { prefix + String(format: "%03d", n) }
        let customers = (1...29).reversed().map { key("c", $0) }
        for (index, id) in customers.enumerated() {
            let name = names[index % names.count]
            let created = days[index % days.count] ?? "2025-02-02T00:00:00.000Z"
            try database.execute("INSERT INTO customers (customer_id, is_tester, created_at, updated_at, display_name) VALUES (?, 0, ?, ?, ?)",
                                  [.text(id), .text(created), .text(created), .text(name)])
            rows.values[.customers, default: [:]][.name, default: []].append((.text(id), name))
            rows.values[.customers, default: [:]][.created, default: []].append((.text(id), created))
        }
        for n in 1...23 {
            let received = days[n % days.count] ?? "2025-02-20T12:00:00.000Z"
            let id = Int64(n)
            try database.execute("""
                INSERT INTO receipts (receipt_id, sha256, raw, format, environment, verdict, verdict_reason, decoded_json, source, customer_id,
                                      imported_at, imported_by)
                VALUES (?, ?, ?, 'unified', 'Sandbox', 'valid', '', '{}', 'test', 'c001', ?, 'mei')
                """, [.integer(id), .text("digest-\(n)"), .blob([1]), .text(received)])
            rows.values[.receipts, default: [:]][.received, default: []].append((.integer(id), received))
        }
        for n in (1...37).reversed() {
            let id = key("t", n)
            let purchased = days[n % days.count]
            let expires = n % 3 == 0 ? days[(n / 3) % days.count] : nil
            let product = products[n % products.count]
            try database.execute("""
                INSERT INTO transactions (transaction_id, product_id, customer_id, binding, environment, purchase_date, expires_date, quantity,
                                          first_receipt_id, recorded_at)
                VALUES (?, ?, 'c001', 'unbound', 'Sandbox', ?, ?, 1, 1, '2025-01-01T00:00:00.000Z')
                """, [.text(id), .text(product), .text(purchased), .text(expires)])
            rows.values[.transactions, default: [:]][.purchased, default: []].append((.text(id), purchased))
            rows.values[.transactions, default: [:]][.expires, default: []].append((.text(id), expires))
            rows.values[.transactions, default: [:]][.product, default: []].append((.text(id), product))
        }
        return rows
    }

    /// The keys in display order, sorted in memory: values by UTF-8 bytes then key, rows without one last by key.
    static func expected(_ rows: [(key: BrowseKey, value: String?)], descending: Bool) -> [BrowseKey] {
        let valued = rows.compactMap { row in row.value.map { (row.key, $0) } }.sorted { a, b in
            a.1 == b.1 ? a.0 < b.0 : a.1.utf8.lexicographicallyPrecedes(b.1.utf8)
        }.map(\.0)
        let missing = rows.filter { $0.value == nil }.map(\.key).sorted()
        return descending ? valued.reversed() + missing.reversed() : valued + missing
    }

    static let sorts: [(BrowseTable, BrowseSort.Column)] = [
        (.customers, .name), (.customers, .created), (.transactions, .purchased), (.transactions, .expires), (.transactions, .product),
        (.receipts, .received),
    ]

    @Test(arguments: TestBackend.available)
    func pagingASortedListForwardAndBackGivesTheInMemorySort(_ backend: TestBackend) throws {
        let scratch = try ScratchDatabase(backend)
        let database = try scratch.open()
        let rows = try Self.populate(database)
        let browser = Browser(database)
        for (table, column) in Self.sorts {
            for descending in [false, true] {
                let sort = BrowseSort(column, descending: descending)
                let all = rows.values[table]?[column] ?? []
                let expected = Self.expected(all, descending: descending)
                #expect(expected.count == all.count && expected.count > 20)
                for limit in [1, 4, 7] {
                    var forward: [BrowseKey] = []
                    var cursor = PageCursor.first
                    for _ in 0...expected.count {
                        let page = try browser.page(table, cursor: cursor, limit: limit, sort: sort)
                        #expect(page.sort == sort && page.sortNote == nil)
                        forward += page.rows.map(\.key)
                        guard page.isFull, let last = forward.last else { break }
                        cursor = .after(last)
                    }
                    #expect(forward == expected, "\(backend) \(table) by \(sort.description), \(limit) a page: forward")
                    var backward: [BrowseKey] = []
                    cursor = .last
                    for _ in 0...expected.count {
                        let page = try browser.page(table, cursor: cursor, limit: limit, sort: sort)
                        backward = page.rows.map(\.key) + backward
                        guard page.isFull, let first = backward.first else { break }
                        cursor = .before(first)
                    }
                    #expect(backward == expected, "\(backend) \(table) by \(sort.description), \(limit) a page: backward")
                }
                // From a row inside the ties, and from a row without a value: the page starts with it.
                for start in [expected[expected.count / 3], expected[expected.count - 2]] {
                    guard let index = expected.firstIndex(of: start) else { continue }
                    let page = try browser.page(table, cursor: .from(start), limit: 5, sort: sort)
                    #expect(page.rows.map(\.key) == Array(expected[index..<min(expected.count, index + 5)]), "\(backend) \(table) \(sort.description) from \(start)")
                }
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func aNarrowSearchSortsItsMatchesAndABroadOneSaysItKeepsTheKeyOrder(_ backend: TestBackend) throws {
        let scratch = try ScratchDatabase(backend)
        let database = try scratch.open()
        let rows = try Self.populate(database)
        let browser = Browser(database)
        let sort = BrowseSort(.name, descending: false)
        // Two id prefixes: two narrow lookups, merged in the sort's order.
        let narrow = try BrowseFilter(parsing: "c00")
        let matches = (rows.values[.customers]?[.name] ?? []).filter { $0.key.description.hasPrefix("c00") }
        let page = try browser.page(.customers, filter: narrow, cursor: .first, limit: 50, sort: sort)
        #expect(page.sort == sort && page.sortNote == nil)
        #expect(page.rows.map(\.key) == Self.expected(matches, descending: false), "\(backend)")
        // A condition with no lookup (testers) would have to read every match to sort: key order, said so.
        let broad = try BrowseFilter(parsing: "status:tester")
        let walked = try browser.page(.customers, filter: broad, cursor: .first, limit: 5, sort: sort)
        #expect(walked.sort == BrowseSort.own(.customers))
        #expect(walked.sortNote?.contains("shown by id, not by name") == true, "\(walked.sortNote ?? "no note")")
    }

    @Test(arguments: TestBackend.available)
    func aPageStartingFromARowThatIsGoneSaysSo(_ backend: TestBackend) throws {
        let scratch = try ScratchDatabase(backend)
        let database = try scratch.open()
        _ = try Self.populate(database)
        #expect(throws: StoreError.self) {
            try Browser(database).page(.customers, cursor: .after("c999"), limit: 5, sort: BrowseSort(.name, descending: false))
        }
    }

    /// Each sort reads its index in both directions, at either end, past a row with a value and
    /// past one without: SQLite's plan walks the index with no sorting step; PostgreSQL's reads
    /// it, and sorts only when the range left is a few rows (its estimate). 20,000 more rows of
    /// each table (analysed) make it plan as for a large table: a few dozen it would rather sort.
    @Test(arguments: TestBackend.available)
    func eachSortReadsItsIndex(_ backend: TestBackend) throws {
        let scratch = try ScratchDatabase(backend)
        let database = try scratch.open()
        let rows = try Self.populate(database)
        let numbers = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) "
        try database.execute(numbers + """
            INSERT INTO customers (customer_id, is_tester, created_at, updated_at, display_name)
            SELECT 'x' || i, 0, '2024-06-01T00:00:00.000Z', '2024-06-01T00:00:00.000Z', CASE WHEN i % 3 = 0 THEN NULL ELSE 'n' || (i % 97) END FROM n
            """, [])
        try database.execute(numbers + """
            INSERT INTO transactions (transaction_id, product_id, customer_id, binding, environment, purchase_date, expires_date, quantity,
                                      first_receipt_id, recorded_at)
            SELECT 'x' || i, 'p.' || (i % 13), 'c001', 'unbound', 'Sandbox', CASE WHEN i % 5 = 0 THEN NULL ELSE '2024-0' || (1 + i % 9) END,
                   CASE WHEN i % 4 = 0 THEN '2024-1' || (i % 3) ELSE NULL END, 1, 1, '2025-01-01T00:00:00.000Z' FROM n
            """, [])
        try database.execute(numbers + """
            INSERT INTO receipts (receipt_id, sha256, raw, format, environment, verdict, verdict_reason, decoded_json, source, customer_id,
                                  imported_at, imported_by)
            SELECT 100 + i, 'bulk-' || i, 'x', 'unified', 'Sandbox', 'valid', '', '{}', 'test', 'c001', '2024-0' || (1 + i % 9), 'mei' FROM n
            """, [])
        try database.execute("ANALYZE", [])
        let browser = Browser(database)
        let indexes: [BrowseSort.Column: String] = [
            .name: "customers_by_name", .created: "customers_by_created", .purchased: "transactions_by_purchase",
            .expires: "transactions_by_expiry", .product: "transactions_by_product_key", .received: "receipts_by_received",
        ]
        let postgres = backend == .postgres
        for (table, column) in Self.sorts {
            let all = rows.values[table]?[column] ?? []
            let valued = all.first { $0.value != nil }?.key
            let missing = all.first { $0.value == nil }?.key
            var cursors: [PageCursor] = [.first, .last]
            for key in [valued, missing].compactMap({ $0 }) { cursors += [.after(key), .before(key)] }
            for descending in [false, true] {
                for cursor in cursors {
                    let sort = BrowseSort(column, descending: descending)
                    for statement in try browser.sortedStatements(table, sort: sort, cursor: cursor, limit: 10) {
                        let plan = try database.query((postgres ? "EXPLAIN " : "EXPLAIN QUERY PLAN ") + statement.sql, statement.parameters)
                            .compactMap { $0.string(postgres ? "QUERY PLAN" : "detail") }
                        let index = indexes[column] ?? "?"
                        let context = "\(backend) \(table) \(sort.description) \(cursor): \(statement.sql) → \(plan)"
                        if postgres {
                            #expect(plan.contains { $0.contains("Index") && ($0.contains("using \(index)") || $0.contains("on \(index)")) }, "\(context)")
                            // A sort only of the few rows the index range holds (the planner's estimate).
                            let sorted = plan.filter { $0.contains("Sort  (") }.map { line in
                                Int(line.split(separator: "rows=").last?.prefix { $0.isNumber } ?? "") ?? .max
                            }
                            #expect(sorted.allSatisfy { $0 <= 50 }, "\(context)")
                        } else {
                            #expect(plan.contains { $0.contains("USING INDEX \(index)") || $0.contains("USING COVERING INDEX \(index)") }, "\(context)")
                            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(context)")
                        }
                    }
                }
            }
        }
    }
}
