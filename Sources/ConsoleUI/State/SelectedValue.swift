import Foundation
import PurchaseStore
import ReceiptCore

/// The whole value of what is selected, for `v` (read it) and `y` (copy it): the list's row with
/// every field uncut, or the detail line under the cursor (its full value when it shows less).
enum SelectedValue {
    static func current(_ state: ConsoleState) -> (title: String, text: String)? {
        if state.focus == .detail {
            let lines = DetailLines.build(state)
            guard lines.indices.contains(state.detail.cursor) else { return nil }
            let line = lines[state.detail.cursor]
            if let value = line.value { return value }
            let text = line.spans.text.trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? nil : ("\(state.detail.target?.title ?? "detail"): line", text)
        }
        guard let selected = state.list.selectedRow else { return nil }
        return row(selected)
    }

    /// A list row as "field: value" lines, nothing cut.
    static func row(_ row: BrowseRow) -> (title: String, text: String) {
        func lines(_ pairs: [(String, String?)]) -> String {
            pairs.compactMap { name, value in value.map { "\(name): \($0)" } }.joined(separator: "\n")
        }
        func date(_ d: Date?) -> String? { d.map(RFC3339.format) }
        switch row {
        case .customer(_, let c):
            return ("customer \(c.customerId)", lines([
                ("customer", c.customerId), ("name", c.displayName), ("email", c.email), ("sandbox tester", c.isTester ? "yes" : "no"),
                ("transactions", "\(c.transactionCount)\(c.transactionCountCapped ? "+" : "")"),
                ("entitlements", c.activeEntitlements.joined(separator: ", ")), ("environments", c.environments.joined(separator: ", ")),
                ("open conflicts", String(c.openConflicts)),
            ]))
        case .order(_, let o):
            return ("order \(o.orderId)", lines([
                ("order", o.orderId), ("customer", o.customerId), ("product", o.productId), ("status", o.status),
                ("app account token", o.appAccountToken), ("created", date(o.createdAt)), ("transaction", o.transactionId),
                ("failure", o.failureReason),
            ]))
        case .transaction(_, let t):
            let r = t.record
            return ("transaction \(r.transactionId)", lines([
                ("transaction", r.transactionId), ("original transaction", r.originalTransactionId), ("customer", r.customerId),
                ("product", r.productId), ("type", r.productType), ("environment", r.environment), ("purchased", date(r.purchaseDate)),
                ("expires", date(r.expiresDate)), ("revoked", date(r.revocationDate)), ("cancelled", date(r.cancellationDate)),
                ("quantity", String(r.quantity)), ("order", r.orderId), ("order binding", r.binding), ("app account token", r.appAccountToken),
                ("first receipt", "#\(r.firstReceiptId)"), ("arrived again", r.repeatArrivals > 0 ? String(r.repeatArrivals) : nil),
                ("open conflict", t.inOpenConflict ? "yes" : nil),
                ("finished at Apple", r.finishedAt.map { "\(date($0) ?? "") by \(r.finishedBy ?? "unknown")" }),
            ]))
        case .receipt(_, let r):
            let record = r.record
            return ("receipt #\(record.receiptId)", lines([
                ("receipt", "#\(record.receiptId)"), ("sha256", record.sha256), ("format", record.format), ("customer", record.customerId),
                ("environment", record.environment), ("Apple's environment", r.appleEnvironment), ("verdict", record.verdict),
                ("verdict reason", record.verdictReason), ("source", record.source), ("imported", date(record.importedAt)),
                ("imported by", record.importedBy), ("last re-verified", date(r.lastVerifiedAt)),
            ]))
        case .conflict(_, let c):
            return ("conflict #\(c.conflictId)", lines([
                ("conflict", "#\(c.conflictId)"), ("transaction", c.transactionId), ("owner", c.ownerCustomerId), ("claimant", c.claimantCustomerId),
                ("status", c.status), ("opened", date(c.openedAt)), ("resolved for", c.resolvedOwner), ("resolved by", c.resolvedBy),
                ("resolved at", date(c.resolvedAt)), ("reason", c.resolutionReason),
            ]))
        case .audit(_, let a):
            return ("audit entry #\(a.seq)", lines([
                ("entry", "#\(a.seq)"), ("at", RFC3339.format(a.at)), ("operator", a.operatorName), ("database user", a.databaseUser),
                ("action", a.action), ("target", a.target),
                ("details", Self.prettyJSON(a.details)), ("previous hash", a.previousHash), ("hash", a.hash),
            ]))
        }
    }

    /// JSON text indented for reading (as it is when it does not parse).
    static func prettyJSON(_ text: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)),
              let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]) else { return text }
        return String(decoding: data, as: UTF8.self)
    }
}
