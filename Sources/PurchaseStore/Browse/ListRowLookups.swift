import Foundation
import ReceiptCore

/// The small lookups a list page shows beside its rows (a customer's transaction count,
/// entitlements, environments and open conflicts; whether a transaction is in an open conflict),
/// read for the whole page at once: a customers page costs two statements and a transactions
/// page one, where a statement per column and row cost PostgreSQL seven round trips per
/// customer shown (280 for a page-down). The same SQL runs on SQLite and PostgreSQL.
enum ListRowLookups {
    /// The list row of each customer in `rows` (customers table rows), by customer id.
    static func customers(_ rows: [SQLRow], database: SQLDatabase) throws -> [String: CustomerListRow] {
        let ids = rows.compactMap { $0.string("customer_id") }
        guard !ids.isEmpty else { return [:] }
        let values = ids.map { SQLValue.text($0) }
        let columns = try database.query(customerColumns(count: ids.count), values)
        var entitlements: [String: [String]] = [:]
        for row in try database.query(activeEntitlements(count: ids.count), values) {
            guard let id = row.string("customer_id"), let entitlement = row.string("entitlement") else { continue }
            entitlements[id, default: []].append(entitlement)
        }
        let byId = Dictionary(columns.compactMap { row in row.string("customer_id").map { ($0, row) } }, uniquingKeysWith: { a, _ in a })
        var result: [String: CustomerListRow] = [:]
        for row in rows {
            guard let id = row.string("customer_id"), let looked = byId[id] else { continue }
            let count = Int(looked.int("tx_count") ?? 0)
            var environments = try receiptEnvironments(looked.int("receipt_environments") ?? 0, customer: id, database: database)
            if let other = looked.string("other_environment") { environments.insert(other) }
            if looked.int("has_production") == 1 { environments.insert(Environment.production.rawValue) }
            result[id] = CustomerListRow(customerId: id, isTester: row.bool("is_tester"), transactionCount: min(count, BrowseLimits.countCap),
                                         transactionCountCapped: count > BrowseLimits.countCap,
                                         activeEntitlements: (entitlements[id] ?? []).sorted(),
                                         environments: environments.subtracting([Environment.unknown.rawValue]).sorted(),
                                         environmentMismatch: looked.int("mismatch") == 1, openConflicts: Int(looked.int("open_conflicts") ?? 0),
                                         displayName: row.string("display_name"), email: row.string("email"), createdAt: row.date("created_at"))
        }
        return result
    }

    /// The statement `customers` reads a page's columns with, for `count` customer ids: a
    /// customer's receipts and transactions are read through their indexes by customer only
    /// (never a receipt's 2 KB row nor a transaction's, `EnvironmentIndexSchema`).
    static func customerColumns(count: Int) -> String {
        let marks = SQLDialect.placeholders(count)
        return """
        SELECT c.customer_id,
          (SELECT count(*) FROM (SELECT 1 FROM transactions t WHERE t.customer_id = c.customer_id
                                 LIMIT \(BrowseLimits.countCap + 1)) AS capped) AS tx_count,
          (SELECT sum(DISTINCT \(environmentBit("recent.environment"))) FROM (SELECT r.environment FROM receipts r
             WHERE r.customer_id = c.customer_id ORDER BY r.receipt_id DESC LIMIT 50) AS recent) AS receipt_environments,
          (SELECT t.environment FROM transactions t WHERE t.customer_id = c.customer_id AND t.environment != 'Production'
             LIMIT 1) AS other_environment,
          CASE WHEN EXISTS (SELECT 1 FROM transactions t WHERE t.customer_id = c.customer_id AND t.environment = 'Production')
               THEN 1 ELSE 0 END AS has_production,
          CASE WHEN EXISTS (SELECT 1 FROM receipts r WHERE r.customer_id = c.customer_id AND r.apple_environment IS NOT NULL
                            AND r.apple_environment != r.environment AND r.apple_environment != 'Unknown'
                            AND r.environment != 'Unknown') THEN 1 ELSE 0 END AS mismatch,
          (SELECT count(*) FROM conflicts k WHERE k.owner_customer_id = c.customer_id AND k.status = 'open')
            + (SELECT count(*) FROM conflicts k WHERE k.claimant_customer_id = c.customer_id
               AND k.owner_customer_id != c.customer_id AND k.status = 'open') AS open_conflicts
        FROM customers c WHERE c.customer_id IN (\(marks))
        """
    }

    /// The statement `customers` reads a page's active entitlements with, for `count` customer
    /// ids: from `entitlements_by_customer` alone (migration 0021), never the rows.
    static func activeEntitlements(count: Int) -> String {
        "SELECT DISTINCT customer_id, entitlement FROM entitlements WHERE active = 1 AND customer_id IN (\(SQLDialect.placeholders(count)))"
    }

    /// The transaction ids among `ids` that are in an open conflict.
    static func inOpenConflict(_ ids: [String], database: SQLDatabase) throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        let marks = SQLDialect.placeholders(ids.count)
        return Set(try database.query("""
            SELECT DISTINCT transaction_id FROM conflicts WHERE status = 'open' AND transaction_id IN (\(marks))
            """, ids.map { .text($0) }).compactMap { $0.string("transaction_id") })
    }

    /// Each known environment name as a bit (in `Environment.allCases` order), any other text
    /// as `otherBit`, so `sum(DISTINCT …)` over a customer's recent receipts is the set of them.
    private static func environmentBit(_ column: String) -> String {
        let cases = Environment.allCases.enumerated().map { "WHEN '\($1.rawValue)' THEN \(1 << $0)" }.joined(separator: " ")
        return "CASE \(column) \(cases) ELSE \(otherBit) END"
    }

    private static let otherBit = 1 << Environment.allCases.count

    /// The environments of a customer's 50 newest receipts from their bits; when one of them is
    /// a name outside `Environment` (a database written by something else), read as stored.
    private static func receiptEnvironments(_ bits: Int64, customer: String, database: SQLDatabase) throws -> Set<String> {
        guard bits & Int64(otherBit) == 0 else {
            return Set(try database.query("SELECT environment FROM receipts WHERE customer_id = ? ORDER BY receipt_id DESC LIMIT 50",
                                          [.text(customer)]).compactMap { $0.string("environment") })
        }
        return Set(Environment.allCases.enumerated().filter { bits & (1 << Int64($0.offset)) != 0 }.map(\.element.rawValue))
    }
}
