import Foundation
import PurchaseStore

/// What a database of the scale benchmark occupies, per million transactions: the whole (the
/// SQLite file; on PostgreSQL every table of the schema with its TOAST and indexes), each
/// table's own data and each index, the largest first. SQLite's come from the `dbstat`
/// virtual table (every page counted), PostgreSQL's from `pg_table_size` and
/// `pg_relation_size`. An object of one or two pages (an empty table or index) is left out.
enum StorageCost {
    struct Object {
        let name: String
        /// "table", "index on TABLE", "FTS5 name search" …
        let kind: String
        let bytes: Int64
    }

    /// The objects of `database` and the whole, in bytes.
    static func measure(_ database: SQLDatabase) throws -> (total: Int64, objects: [Object]) {
        database.dialect.name == SQLDialect.sqlite.name ? try sqlite(database) : try postgres(database)
    }

    /// Figures named `prefix` + "… MB per million transactions", no aims.
    static func figures(_ database: SQLDatabase, transactions: Int, prefix: String, into report: inout LedgerBenchReport) throws {
        let (total, objects) = try measure(database)
        let millions = Double(transactions) / 1_000_000
        func perMillion(_ bytes: Int64) -> Double { Double(bytes) / 1_048_576 / millions }
        report.figures.append(LedgerFigure(name: prefix + "size, MB per million transactions", value: perMillion(total), aim: .none))
        for object in objects.sorted(by: { $0.bytes > $1.bytes }) where object.bytes > 8_192 {
            report.figures.append(LedgerFigure(name: prefix + "\(object.kind) \(object.name), MB per million transactions",
                                               value: perMillion(object.bytes), aim: .none))
        }
    }

    private static func sqlite(_ database: SQLDatabase) throws -> (Int64, [Object]) {
        var owner: [String: (type: String, table: String)] = [:]
        for row in try database.query("SELECT name, type, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')", []) {
            if let name = row.string("name") { owner[name] = (row.string("type") ?? "", row.string("tbl_name") ?? "") }
        }
        var search: Int64 = 0
        var objects: [Object] = []
        for row in try database.query("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name", []) {
            guard let name = row.string("name") else { continue }
            let bytes = row.int("bytes") ?? 0
            if name.hasPrefix("customer_search") {
                search += bytes  // the FTS5 table is its shadow tables
                continue
            }
            let known = owner[name]
            let kind = known?.type == "index" ? "index on \(known?.table ?? "?")" : name.hasPrefix("sqlite_autoindex") ? "index" : "table"
            objects.append(Object(name: name, kind: kind, bytes: bytes))
        }
        if search > 0 { objects.append(Object(name: "customer_search", kind: "FTS5 trigram name search", bytes: search)) }
        let pages = try database.queryFirst("SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()", [])?.int("bytes") ?? 0
        return (pages, objects)
    }

    private static func postgres(_ database: SQLDatabase) throws -> (Int64, [Object]) {
        let rows = try database.query("""
            SELECT c.relname AS name, c.relkind AS kind, t.relname AS owner,
                   CASE WHEN c.relkind = 'r' THEN pg_table_size(c.oid) ELSE pg_relation_size(c.oid) END AS bytes
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            LEFT JOIN pg_index i ON i.indexrelid = c.oid LEFT JOIN pg_class t ON t.oid = i.indrelid
            WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i')
            """, [])
        var total: Int64 = 0
        let objects = rows.compactMap { row -> Object? in
            guard let name = row.string("name") else { return nil }
            let bytes = row.int("bytes") ?? 0
            total += bytes
            return Object(name: name, kind: row.string("kind") == "i" ? "index on \(row.string("owner") ?? "?")" : "table", bytes: bytes)
        }
        return (total, objects)
    }
}
