import Foundation
import ReceiptCore

/// Entitlement rows checked against a recomputation from the ledger's own rows (transactions,
/// grace periods, grants, revocations, receipts, the tester mark) with this ledger's catalogue.
///
/// A row is explained when it equals what the calculation gives at the last refresh that
/// changed anything for the customer (the newest `computed_at` among its rows), or at its own
/// `computed_at` (a row a later refresh left alone: its state as of then). A row with no
/// source in the ledger, a source with no row, and a row whose content differs are named.
/// A different catalogue (`--config`) than the one the rows were computed with shows up as
/// differences too.
///
/// Streams: customers 500 at a time (in id order), each table read once per page by a range of
/// customer ids, so memory holds one page and the work grows with the ledger's rows.
extension PurchaseLedger {
    public func recheckEntitlements(now: Date) throws -> UnexplainedRows {
        var result = UnexplainedRows()
        var checkedRows = 0
        var after: String?
        let page = 500
        while true {
            let customers = try database.query(
                "SELECT customer_id, is_tester FROM customers" + (after == nil ? "" : " WHERE customer_id > ?") + " ORDER BY customer_id LIMIT ?",
                (after.map { [SQLValue.text($0)] } ?? []) + [.integer(Int64(page))])
            guard let first = customers.first?.string("customer_id"), let last = customers.last?.string("customer_id") else { break }
            after = last
            let read = try readPage(from: first, to: last)
            for customer in customers {
                let id = customer.string("customer_id") ?? ""
                var input = EntitlementInput(transactions: read.transactions[id] ?? [], grants: read.grants[id] ?? [],
                                             revocations: read.revocations[id] ?? [], appPurchase: read.appPurchase[id],
                                             isTester: customer.bool("is_tester"))
                Self.applyGracePeriods(read.graces[id] ?? [], to: &input.transactions)
                let stored = read.stored[id] ?? []
                checkedRows += stored.count
                compare(id, input: input, stored: stored, now: now, into: &result)
            }
            if customers.count < page { break }
        }
        result.checked["entitlements"] = checkedRows
        return result
    }

    /// One page of customers' rows, by customer.
    struct RecheckPage {
        var transactions: [String: [OwnedTransaction]] = [:]
        var graces: [String: [SQLRow]] = [:]
        var grants: [String: [ManualGrant]] = [:]
        var revocations: [String: [ManualRevocation]] = [:]
        var appPurchase: [String: AppPurchaseFacts] = [:]
        var stored: [String: [(computedAt: String, row: EntitlementRow)]] = [:]
    }

    private func readPage(from first: String, to last: String) throws -> RecheckPage {
        var page = RecheckPage()
        let range: [SQLValue] = [.text(first), .text(last)]
        let within = "customer_id >= ? AND customer_id <= ?"
        try database.forEachRow("""
            SELECT customer_id, \(Self.ownedTransactionColumns) FROM transactions WHERE \(within)
            ORDER BY customer_id, purchase_date, transaction_id
            """, range) { c in
            page.transactions[c.string(0) ?? "", default: []].append(Self.ownedTransaction(c, from: 1))
        }
        for row in try database.query("SELECT \(Self.gracePeriodColumns) FROM subscription_states WHERE \(within) AND \(Self.gracePeriodCondition)", range) {
            page.graces[row.string("customer_id") ?? "", default: []].append(row)
        }
        for row in try database.query("SELECT customer_id, \(Self.manualGrantColumns) FROM grants WHERE \(within)", range) {
            page.grants[row.string("customer_id") ?? "", default: []].append(Self.manualGrant(row))
        }
        for row in try database.query("SELECT customer_id, \(Self.manualRevocationColumns) FROM revocations WHERE \(within)", range) {
            page.revocations[row.string("customer_id") ?? "", default: []].append(Self.manualRevocation(row))
        }
        // Newest first: the first valid receipt seen for a customer decides (as `entitlementInput`).
        for row in try database.query("""
            SELECT customer_id, \(Self.appPurchaseColumns) FROM receipts WHERE \(within) AND \(Self.appPurchaseCondition)
            ORDER BY receipt_id DESC
            """, range) {
            let customer = row.string("customer_id") ?? ""
            if page.appPurchase[customer] == nil { page.appPurchase[customer] = Self.appPurchaseFacts(row) }
        }
        try database.forEachRow("SELECT customer_id, computed_at, \(EntitlementRow.selectColumns) FROM entitlements WHERE \(within)", range) { c in
            page.stored[c.string(0) ?? "", default: []].append((c.string(1) ?? "", EntitlementRow(c, from: 2)))
        }
        return page
    }

    /// Names the customer's rows the recomputation does not give, and the rows it gives that
    /// are missing.
    private func compare(_ customer: String, input: EntitlementInput, stored: [(computedAt: String, row: EntitlementRow)], now: Date,
                         into result: inout UnexplainedRows) {
        var computedAt: [String: [EntitlementRow.Key: EntitlementRow]] = [:]
        func rows(at time: String) -> [EntitlementRow.Key: EntitlementRow] {
            if let known = computedAt[time] { return known }
            let instant = StoreDates.parse(time) ?? now
            var byKey: [EntitlementRow.Key: EntitlementRow] = [:]
            for row in Self.rows(of: EntitlementCalculator.compute(input, configuration: configuration, now: instant)) { byKey[row.key] = row }
            computedAt[time] = byKey
            return byKey
        }
        let latest = stored.map(\.computedAt).max() ?? StoreDates.format(now)
        let expected = rows(at: latest)
        var seen = Set<EntitlementRow.Key>()
        for (time, row) in stored {
            let name = Self.describe(customer, row.key)
            guard seen.insert(row.key).inserted else {
                result.add("\(name) is stored twice: a row was added by hand")
                continue
            }
            guard let recomputed = expected[row.key] else {
                result.add("\(name) has no source in the ledger (no such transaction, grant or receipt of this customer): it was written outside receiptdesk")
                continue
            }
            if row == recomputed || rows(at: time)[row.key] == row { continue }
            result.add("\(name) differs from its recomputation (stored: \(Self.summary(row)); recomputed: \(Self.summary(recomputed))): it was edited")
        }
        for key in expected.keys.sorted(by: { Self.describe(customer, $0) < Self.describe(customer, $1) }) where !seen.contains(key) {
            result.add("\(Self.describe(customer, key)) is missing: the ledger holds its source, so a row was deleted or the source was written outside receiptdesk")
        }
    }

    static func describe(_ customer: String, _ key: EntitlementRow.Key) -> String {
        let via: String
        if let transaction = key.transactionId {
            via = "transaction \(transaction)"
        } else if let grant = key.grantId {
            via = "grant #\(grant)"
        } else {
            via = key.source
        }
        return "entitlement row (customer \(customer), \(key.entitlement) via \(via))"
    }

    static func summary(_ row: EntitlementRow) -> String {
        "\(row.active ? "active" : "inactive"), \(row.startsAt ?? "no start")–\(row.endsAt ?? "no end")"
            + (row.units.map { ", " + Plural.of($0, "unit") } ?? "") + (row.revoked ? ", revoked" : "") + ", '\(row.reason.prefix(80))'"
    }
}
