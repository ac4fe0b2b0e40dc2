import Foundation
import ReceiptCore

/// Rows of the ledger the audit log does not explain: each is named ("grant #7 (customer kim,
/// pro) has no `grant` audit entry: it was written outside receiptdesk").
public struct UnexplainedRows: Sendable, Equatable {
    /// Rows looked at, per table.
    public var checked: [String: Int] = [:]
    public var problems: [String] = []
    /// Problems past `maxProblems`, counted but not listed.
    public var unlisted = 0
    public var isExplained: Bool { problems.isEmpty && unlisted == 0 }

    static let maxProblems = 50

    mutating func add(_ problem: String) {
        if problems.count < Self.maxProblems { problems.append(problem) } else { unlisted += 1 }
    }
}

/// Checks that every grant and conflict row is explained by the audit entries that made it.
///
/// - A grant needs the `grant` entry that names its id (for its customer and entitlement); a
///   revoked grant, a `revoke` entry naming it, or (closed by receiptdesk as `ended`) a later
///   `grant` entry of the same entitlement for the same customer, which is what closes it.
/// - A conflict needs the `import` entry of its claimant whose `conflicts` name its transaction;
///   a resolved one, the `conflict-resolve` entry naming it or the claimant's `restore` entry
///   naming its transaction.
/// - The other way round: an entry that names a grant or conflict the table no longer holds, or
///   holds in force / open again, is named too.
///
/// One pass over the entries of those actions, one over each table. Only entries inside the
/// chain count, so run it with the chain verified: an entry appended by someone who recomputed
/// the chain explains its rows as well as a real one (anchors bound that, `AuditAnchorCheck`).
public enum AuditExplanation {
    public static func grantsAndConflicts(_ database: SQLDatabase) throws -> UnexplainedRows {
        var result = UnexplainedRows()
        let entries = try EntriesRead(database)
        try checkGrants(database, entries, into: &result)
        try checkConflicts(database, entries, into: &result)
        return result
    }

    /// What the entries say about grants and conflicts.
    struct EntriesRead {
        var granted: [Int64: (seq: Int64, customer: String, entitlement: String)] = [:]
        var revoked: [Int64: Int64] = [:]
        /// "customer\0entitlement" → the ids granted.
        var grantsOf: [String: [Int64]] = [:]
        /// "claimant\0transaction" → the import entry that opened the conflict.
        var opened: [String: Int64] = [:]
        var resolved: [Int64: Int64] = [:]
        /// "customer\0transaction" of restores.
        var restored: Set<String> = []

        init(_ database: SQLDatabase) throws {
            var after: Int64 = 0
            let page = 5_000
            while true {
                let rows = try database.query("""
                    SELECT seq, action, target, details FROM audit_log
                    WHERE seq > ? AND (action IN ('grant', 'revoke', 'conflict-resolve', 'restore')
                                       OR (action = 'import' AND details LIKE '%"conflicts":[{%'))
                    ORDER BY seq LIMIT ?
                    """, [.integer(after), .integer(Int64(page))])
                for row in rows {
                    let seq = row.int("seq") ?? 0
                    after = seq
                    try take(seq: seq, action: row.string("action") ?? "", target: row.string("target") ?? "", details: row.string("details") ?? "")
                }
                if rows.count < page { break }
            }
        }

        private mutating func take(seq: Int64, action: String, target: String, details: String) throws {
            // An entry whose details are not JSON explains nothing; its rows are named instead.
            guard let object = try? JSONObject(parsing: Array(details.utf8), what: "audit entry \(seq)") else { return }
            // Below, a field missing or of another type (try? gives nil) means the entry explains
            // nothing of that kind: the rows it would have explained are named.
            let customer = target.hasPrefix("customer:") ? String(target.dropFirst("customer:".count)) : ""
            switch action {
            case "grant":
                guard let id = try? object.int("grantId"), let entitlement = try? object.string("entitlement") else { return }
                granted[id] = (seq, customer, entitlement)
                grantsOf[customer + "\u{0}" + entitlement, default: []].append(id)
            case "revoke":
                if let id = try? object.int("grantId") { revoked[id] = seq }
                for id in Self.integers(object.values["grantsRevoked"]) { revoked[id] = seq }
            case "conflict-resolve":
                if let id = try? object.int("conflictId") { resolved[id] = seq }
            case "restore":
                for id in Self.strings(object.values["transactions"]) { restored.insert(customer + "\u{0}" + id) }
            case "import":
                for conflict in (try? object.objects("conflicts")) ?? [] {
                    if let id = try? conflict.string("transactionId") { opened[customer + "\u{0}" + id] = seq }
                }
            default: break
            }
        }

        static func integers(_ value: Any?) -> [Int64] {
            ((value as? [Any]) ?? []).compactMap { ($0 as? NSNumber)?.int64Value }
        }

        static func strings(_ value: Any?) -> [String] {
            ((value as? [Any]) ?? []).compactMap { $0 as? String }
        }
    }

    static func checkGrants(_ database: SQLDatabase, _ entries: EntriesRead, into result: inout UnexplainedRows) throws {
        var seen = Set<Int64>()
        var after: Int64 = 0
        let page = 5_000
        while true {
            let rows = try database.query("""
                SELECT grant_id, customer_id, entitlement, revoked_at, revoked_by, revoke_reason FROM grants
                WHERE grant_id > ? ORDER BY grant_id LIMIT ?
                """, [.integer(after), .integer(Int64(page))])
            for row in rows {
                let id = row.int("grant_id") ?? 0
                after = id
                seen.insert(id)
                let customer = row.string("customer_id") ?? "?", entitlement = row.string("entitlement") ?? "?"
                let name = "grant #\(id) (customer \(customer), \(entitlement))"
                guard let entry = entries.granted[id] else {
                    result.add("\(name) has no `grant` audit entry: it was written outside receiptdesk")
                    continue
                }
                if entry.customer != customer || entry.entitlement != entitlement {
                    result.add("\(name) differs from audit entry \(entry.seq), which granted it to customer \(entry.customer), \(entry.entitlement): the row was edited")
                }
                let revokedBy = entries.revoked[id]
                if row.string("revoked_at") != nil {
                    let closedAsEnded = row.string("revoked_by") == "system" && row.string("revoke_reason") == "ended"
                        && (entries.grantsOf[customer + "\u{0}" + entitlement] ?? []).contains { $0 > id }
                    if revokedBy == nil && !closedAsEnded {
                        result.add("\(name) is revoked, but no `revoke` audit entry names it: the row was edited")
                    }
                } else if let revokedBy {
                    result.add("\(name) is in force, but audit entry \(revokedBy) revoked it: the row was edited")
                }
            }
            if rows.count < page { break }
        }
        result.checked["grants"] = seen.count
        for (id, entry) in entries.granted.sorted(by: { $0.key < $1.key }) where !seen.contains(id) {
            result.add("audit entry \(entry.seq) granted #\(id) (customer \(entry.customer), \(entry.entitlement)), which the grants table no longer holds: the row was deleted")
        }
    }

    static func checkConflicts(_ database: SQLDatabase, _ entries: EntriesRead, into result: inout UnexplainedRows) throws {
        var seen = Set<Int64>()
        var after: Int64 = 0
        let page = 5_000
        while true {
            let rows = try database.query("""
                SELECT conflict_id, transaction_id, claimant_customer_id, status FROM conflicts
                WHERE conflict_id > ? ORDER BY conflict_id LIMIT ?
                """, [.integer(after), .integer(Int64(page))])
            for row in rows {
                let id = row.int("conflict_id") ?? 0
                after = id
                seen.insert(id)
                let transaction = row.string("transaction_id") ?? "?", claimant = row.string("claimant_customer_id") ?? "?"
                let name = "conflict #\(id) (transaction \(transaction) claimed by \(claimant))"
                let key = claimant + "\u{0}" + transaction
                if entries.opened[key] == nil {
                    result.add("\(name) has no `import` audit entry of \(claimant) that opened it: it was written outside receiptdesk")
                }
                if row.string("status") == "resolved" {
                    if entries.resolved[id] == nil && !entries.restored.contains(key) {
                        result.add("\(name) is resolved, but no `conflict-resolve` or `restore` audit entry names it: the row was edited")
                    }
                } else if let by = entries.resolved[id] {
                    result.add("\(name) is open, but audit entry \(by) resolved it: the row was edited")
                }
            }
            if rows.count < page { break }
        }
        result.checked["conflicts"] = seen.count
        for (id, seq) in entries.resolved.sorted(by: { $0.key < $1.key }) where !seen.contains(id) {
            result.add("audit entry \(seq) resolved conflict #\(id), which the conflicts table no longer holds: the row was deleted")
        }
    }
}
