import Foundation

/// Reads a table in pages without OFFSET: by key ranges, or (no key) one group of customers at a time.
enum RowPager {
    static func forEachPage(_ table: String, order: [String], in database: SQLDatabase, pageSize: Int,
                            _ body: ([SQLRow]) throws -> Void) throws {
        guard let key = order.first else {
            // entitlements: rows of up to pageSize customers at a time.
            var after = ""
            while true {
                let customers = try database.query("""
                    SELECT DISTINCT customer_id FROM \(table) WHERE customer_id > ? ORDER BY customer_id LIMIT ?
                    """, [.text(after), .integer(Int64(pageSize))]).compactMap { $0.string("customer_id") }
                guard let first = customers.first, let last = customers.last else { return }
                let rows = try database.query("SELECT * FROM \(table) WHERE customer_id >= ? AND customer_id <= ?", [.text(first), .text(last)])
                try body(rows)
                after = last
                if customers.count < pageSize { return }
            }
        }
        var after: SQLValue?
        while true {
            let rows = try database.query(
                "SELECT * FROM \(table)" + (after == nil ? "" : " WHERE \(key) > ?") + " ORDER BY \(key) LIMIT ?",
                (after.map { [$0] } ?? []) + [.integer(Int64(pageSize))])
            guard let last = rows.last else { return }
            try body(rows)
            after = last[key]
            if rows.count < pageSize { return }
        }
    }
}
