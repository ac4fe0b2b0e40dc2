import Foundation
import PurchaseStore
import ReceiptCore

/// The database invariants the soak checks at its end (both backends; SQLite adds its own
/// integrity and foreign-key checks).
enum SoakChecks {
    static func run(_ database: SQLDatabase, isPostgres: Bool) throws -> [SoakCheck] {
        var checks: [SoakCheck] = []
        func none(_ name: String, _ sql: String) throws {
            let rows = try database.query(sql, [])
            checks.append(SoakCheck(name: name, passed: rows.isEmpty,
                                    detail: rows.isEmpty ? "" : "\(rows.count) found, e.g. " + rows.prefix(3).map { row in
                                        zip(row.columns, row.values).map { "\($0)=\($1)" }.joined(separator: " ") }.joined(separator: "; ")))
        }
        if isPostgres {
            let transactions = try count(database, "transactions")
            checks.append(SoakCheck(name: "PostgreSQL answers and enforces the schema's constraints", passed: transactions > 0,
                                    detail: "\(transactions) transactions"))
        } else {
            let integrity = try database.query("PRAGMA integrity_check", []).compactMap { $0.string("integrity_check") }
            checks.append(SoakCheck(name: "PRAGMA integrity_check", passed: integrity == ["ok"], detail: integrity.prefix(3).joined(separator: "; ")))
            let foreign = try database.query("PRAGMA foreign_key_check", [])
            checks.append(SoakCheck(name: "PRAGMA foreign_key_check", passed: foreign.isEmpty, detail: foreign.isEmpty ? "" : "\(foreign.count) rows"))
        }
        let audit = try AuditLog.verify(database)
        let entries = try count(database, "audit_log")
        checks.append(SoakCheck(name: "audit verify", passed: audit.isIntact, detail: audit.problem ?? "\(entries) entries, one unbroken chain"))
        try none("no transaction owned twice",
                 "SELECT transaction_id FROM transactions GROUP BY transaction_id HAVING count(*) > 1")
        try none("no transaction without its customer",
                 "SELECT t.transaction_id FROM transactions t LEFT JOIN customers c ON c.customer_id = t.customer_id WHERE c.customer_id IS NULL")
        try none("no grant in force twice (customer × entitlement)",
                 "SELECT customer_id, entitlement FROM grants WHERE revoked_at IS NULL GROUP BY customer_id, entitlement HAVING count(*) > 1")
        try none("no purchase entitles anyone but its owner", """
            SELECT e.customer_id, e.transaction_id FROM entitlements e JOIN transactions t ON t.transaction_id = e.transaction_id
            WHERE e.source = 'purchase' AND e.customer_id <> t.customer_id
            """)
        try none("no conflict names the owner as its claimant",
                 "SELECT conflict_id FROM conflicts WHERE claimant_customer_id = owner_customer_id")
        let grants = try count(database, "grants")
        let audited = try database.queryFirst("SELECT count(*) AS n FROM audit_log WHERE action = 'grant'", [])?.int("n") ?? -1
        checks.append(SoakCheck(name: "every grant audited exactly once", passed: grants == audited,
                                detail: "\(grants) grants, \(audited) grant entries"))
        return checks
    }

    static func count(_ database: SQLDatabase, _ table: String) throws -> Int64 {
        try database.queryFirst("SELECT count(*) AS n FROM \(table)", [])?.int("n") ?? -1
    }
}
