import Foundation
import ReceiptCore

/// Goodwill for many: one entitlement, one end, one reason, granted to a list of customers in
/// one audited write transaction, with a report of who got what.
public struct GrantBatch: Sendable {
    /// The most customers one batch may name.
    public static let maxCustomers = 5_000

    /// What happens (or happened) to one customer of the batch.
    public enum Outcome: Sendable, Equatable {
        /// Granted (in a preview: would be granted); the grant's number once written.
        case granted(grantId: Int64?)
        /// Already holds a grant of the entitlement in force: left as it is.
        case alreadyGranted(grantId: Int64, endsAt: Date?)
        /// Not in the ledger.
        case notFound
    }

    public struct Line: Sendable, Equatable {
        public let customerId: String
        public let outcome: Outcome

        public init(customerId: String, outcome: Outcome) {
            self.customerId = customerId
            self.outcome = outcome
        }
    }

    /// Names the batch in its audit entries (`grant-batch`, and `batch` in each `grant`).
    public let batchId: String
    public let entitlement: String
    /// The end every grant gets (nil: forever), as stored.
    public let until: Date?
    public let reason: String
    public let lines: [Line]
    /// Whether it was written (false: a preview).
    public let applied: Bool

    public var granted: [Line] { lines.filter { if case .granted = $0.outcome { return true } else { return false } } }
    public var skipped: [Line] { lines.filter { if case .granted = $0.outcome { return false } else { return true } } }

    /// The customer ids of a list file: one a line; blank lines and lines starting with `#` are
    /// skipped, spaces around an id trimmed, repeats dropped (first one kept). At most
    /// `maxCustomers`, each a valid id.
    public static func customers(fromList text: String, source: String) throws -> [String] {
        var seen = Set<String>(), ids: [String] = []
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            do { try Validate.checkIdentifier(line, "customer id") } catch let error as StoreError {
                throw StoreError(.invalidInput, "\(source) line \(number + 1): \(error.reason)")
            }
            if seen.insert(line).inserted { ids.append(line) }
            guard ids.count <= maxCustomers else {
                throw StoreError(.invalidInput, "\(source) names more than \(maxCustomers) customers (line \(number + 1)): split it into several batches")
            }
        }
        guard !ids.isEmpty else { throw StoreError(.invalidInput, "\(source) names no customer (one id a line; # starts a comment)") }
        return ids
    }

    /// Every customer the search (`receiptdesk search`, the console's filter) finds for
    /// `filter`, in the list's order; more than `maxCustomers`, or none, is refused.
    public static func customers(matching filter: BrowseFilter, in database: SQLDatabase) throws -> [String] {
        let browser = Browser(database)
        var ids: [String] = [], cursor = PageCursor.first
        while true {
            let page = try browser.page(.customers, filter: filter, cursor: cursor, limit: BrowseLimits.maxPage)
            for row in page.rows { if case .customer(_, let c) = row { ids.append(c.customerId) } }
            guard ids.count <= maxCustomers else {
                throw StoreError(.invalidInput, "search \(filter.text) finds more than \(maxCustomers) customers: narrow it")
            }
            guard let next = page.scannedThrough ?? (page.isFull ? page.rows.last?.key : nil) else { break }
            cursor = .after(next)
        }
        guard !ids.isEmpty else { throw StoreError(.invalidInput, "search \(filter.text) finds no customer: nothing to grant") }
        return ids
    }
}

extension PurchaseLedger {
    /// What `grantBatch` would do now, writing nothing.
    public func planGrantBatch(customers: [String], entitlement: String, until: Date?, reason: String) throws -> GrantBatch {
        try grantBatchRun(customers: customers, entitlement: entitlement, until: until, reason: reason, operatorName: nil)
    }

    /// Grants `entitlement` until `until` to every customer of `customers` who exists and holds
    /// no grant of it in force, in one write transaction: the customers locked in one order
    /// first, then each decided on and granted as `grant` would (a grant that ran out is closed
    /// first), each grant with its own `grant` audit entry naming the batch, and one
    /// `grant-batch` entry with who got what. A second batch over the same customers at the same
    /// moment waits, then finds the grants this one wrote and leaves those customers out.
    public func grantBatch(customers: [String], entitlement: String, until: Date?, reason: String,
                           operatorName: String) throws -> GrantBatch {
        try grantBatchRun(customers: customers, entitlement: entitlement, until: until, reason: reason, operatorName: operatorName)
    }

    /// Plans (operatorName nil: rolled back, nothing written) or applies a batch.
    private func grantBatchRun(customers given: [String], entitlement: String, until: Date?, reason: String,
                               operatorName: String?) throws -> GrantBatch {
        if let operatorName { try Validate.operatorName(operatorName) }
        try Validate.reason(reason)
        try Validate.identifier(entitlement, "entitlement")
        var seen = Set<String>()
        let customers = given.filter { seen.insert($0).inserted }
        guard !customers.isEmpty else { throw StoreError(.invalidInput, "the batch names no customer") }
        guard customers.count <= GrantBatch.maxCustomers else {
            throw StoreError(.invalidInput, "the batch names \(customers.count) customers, more than \(GrantBatch.maxCustomers): split it")
        }
        for id in customers { try Validate.identifier(id, "customer id") }
        let known = Set(configuration.products.values.map(\.entitlement))
        guard known.isEmpty || known.contains(entitlement) || configuration.paidToFree?.entitlement == entitlement else {
            throw StoreError(.invalidInput, "entitlement \(entitlement) is not in the catalogue (known: \(known.sorted().joined(separator: ", ")))")
        }
        let now = clock()
        let until = try Self.grantEnd(until, now: now)
        let batchId = "batch-" + UUID().uuidString.lowercased().prefix(8)
        let body = { () throws -> GrantBatch in
            var existing = Set<String>()
            for chunk in stride(from: 0, to: customers.count, by: 500).map({ Array(customers[$0..<min($0 + 500, customers.count)]) }) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                for row in try self.database.query("SELECT customer_id FROM customers WHERE customer_id IN (\(marks))", chunk.map { .text($0) }) {
                    existing.insert(row.string("customer_id") ?? "")
                }
            }
            if operatorName != nil { try self.database.lockCustomers(existing) }
            var lines: [GrantBatch.Line] = []
            for customer in customers {
                guard existing.contains(customer) else {
                    lines.append(GrantBatch.Line(customerId: customer, outcome: .notFound))
                    continue
                }
                let open = try self.database.queryFirst("SELECT * FROM grants WHERE customer_id = ? AND entitlement = ? AND revoked_at IS NULL",
                                                        [.text(customer), .text(entitlement)]).map(Self.grantRecord)
                if let open, open.endsAt.map({ $0 > now }) ?? true {
                    lines.append(GrantBatch.Line(customerId: customer, outcome: .alreadyGranted(grantId: open.grantId, endsAt: open.endsAt)))
                    continue
                }
                guard let operatorName else {
                    lines.append(GrantBatch.Line(customerId: customer, outcome: .granted(grantId: nil)))
                    continue
                }
                if let open, let ends = open.endsAt {
                    try self.database.executeChangingOne("""
                        UPDATE grants SET revoked_at = ?, revoked_by = 'system', revoke_reason = 'ended' WHERE grant_id = ? AND revoked_at IS NULL
                        """, [.date(ends), .integer(open.grantId)],
                        raced: StoreError(.alreadyExists, "grant #\(open.grantId) of \(entitlement) to \(customer) was closed by another operator meanwhile: nothing changed, look again"))
                }
                let grantId = try self.database.query("""
                    INSERT INTO grants (customer_id, entitlement, starts_at, ends_at, reason, granted_by, granted_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING grant_id
                    """, [.text(customer), .text(entitlement), .date(now), .date(until), .text(reason), .text(operatorName), .date(now)])
                    .first?.int("grant_id") ?? 0
                try self.refreshEntitlements(customer, now: now)
                try self.audit(now, operatorName, "grant", "customer:\(customer)", .object([
                    ("grantId", .int(grantId)), ("entitlement", .string(entitlement)), ("until", .date(until)), ("reason", .string(reason)),
                    ("batch", .string(batchId)),
                ]))
                lines.append(GrantBatch.Line(customerId: customer, outcome: .granted(grantId: grantId)))
            }
            let batch = GrantBatch(batchId: batchId, entitlement: entitlement, until: until, reason: reason, lines: lines, applied: operatorName != nil)
            if let operatorName {
                try self.audit(now, operatorName, "grant-batch", "batch:\(batchId)", .object([
                    ("entitlement", .string(entitlement)), ("until", .date(until)), ("reason", .string(reason)),
                    ("granted", .array(batch.granted.map { .string($0.customerId) })),
                    ("skipped", .array(batch.skipped.map { .string($0.customerId) })),
                ]))
            }
            return batch
        }
        guard operatorName != nil else { return try body() }  // a preview reads only
        do {
            return try database.writeTransaction(body)
        } catch let error as StoreError where error.code == .constraint {
            throw StoreError(.alreadyExists, "another operator granted \(entitlement) to one of these customers meanwhile: nothing changed, preview again")
        }
    }
}
