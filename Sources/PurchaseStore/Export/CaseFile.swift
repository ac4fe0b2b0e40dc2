import Foundation
import ReceiptCore

/// One customer as a case file for a support ticket: who they are, what they hold and why, their
/// orders, transactions, receipts with verdicts, grants, conflicts, what moved and arrived again,
/// and the audit entries about any of it. Written as Markdown for the ticket and as JSON for
/// tools; both from the same read.
public struct CaseFile: Sendable {
    public let summary: CustomerSummary
    public let transfers: [TransferRecord]
    public let arrivals: [ArrivalRecord]
    public let audit: [AuditEntry]
    /// Apple's side: subscriptions as Apple last reported them, refund requests, Apple's events.
    public let apple: CustomerAppleSide
    public let generatedAt: Date
    public let generatedBy: String

    /// The most audit entries a case file carries (newest first).
    public static let auditLimit = 200

    /// Reads everything about `customerId` (fails with `notFound` for an unknown customer).
    public init(_ customerId: String, ledger: PurchaseLedger, generatedBy: String, now: Date) throws {
        summary = try ledger.customerSummary(customerId)
        transfers = try ledger.transfers(of: customerId)
        arrivals = try ledger.arrivals(of: customerId)
        apple = try ledger.appleSide(of: customerId, eventLimit: 100)
        // The entries about the customer and about each of their orders, transactions and receipts.
        var targets = ["customer:\(customerId)"]
        targets += summary.orders.map { "order:\($0.orderId)" }
        targets += summary.transactions.prefix(500).map { "transaction:\($0.transactionId)" }
        targets += summary.receipts.prefix(500).map { "receipt:\($0.receiptId)" }
        var entries: [Int64: AuditEntry] = [:]
        for target in targets {
            for entry in try AuditLog.entries(ledger.database, target: target, limit: Self.auditLimit) { entries[entry.seq] = entry }
        }
        audit = entries.values.sorted { $0.seq > $1.seq }.prefix(Self.auditLimit).map { $0 }
        generatedAt = now
        self.generatedBy = generatedBy
    }

    /// A file name for it: "case-alice-20261201T0712Z".
    public var fileStem: String {
        let id = summary.customerId.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        let stamp = RFC3339.format(generatedAt).prefix(16).replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
        return "case-\(String(id).prefix(60))-\(stamp)Z"
    }

    // MARK: Markdown

    public var markdown: String {
        let s = summary
        func d(_ date: Date?) -> String { date.map(RFC3339.format) ?? "–" }
        func cell(_ text: String) -> String { UnsafeText.escaped(text, keeping: []).replacingOccurrences(of: "|", with: "\\|") }
        var out = ["# Customer \(cell(s.customerId))", ""]
        let contact = [s.displayName, s.email].compactMap { $0 }.map(cell)
        if !contact.isEmpty { out.append(contact.joined(separator: " · ")) }
        if let money = s.lifetimeSpend?.line { out.append("Money: \(cell(money)).") }
        if let erased = s.erasedAt { out.append("Personal data erased \(d(erased)) by \(cell(s.erasedBy ?? "?")).") }
        out.append("Case file written \(d(generatedAt)) by \(cell(generatedBy)) with receiptdesk\(s.isTester ? "; the customer is a sandbox tester" : "").")
        if !s.notes.isEmpty {
            out += ["", "## Notes", ""]
            for n in s.notes { out.append("- \(d(n.writtenAt)) by \(cell(n.writtenBy)): \(n.text.map(cell) ?? "(erased with the customer's personal data)")") }
        }
        out += ["", "## Entitlements", ""]
        if s.entitlements.isEmpty { out.append("None.") }
        for e in s.entitlements {
            out.append("- **\(cell(e.name))**: \(e.isActive ? "held" : "not held")\(e.ends.map { " until \(d($0))" } ?? "")\(e.balance.map { ", balance \($0)" } ?? "") — \(cell(e.reasonAfterName))")
        }
        if !apple.isEmpty {
            out += ["", "## Apple's side", ""]
            for state in apple.states {
                let price = AppleMoney.format(state.price, currency: state.currency).map { ", paid \($0)\(state.storefront.map { " (\($0))" } ?? "")" } ?? ""
                out.append("- **\(cell(state.productId ?? "?"))** (original \(cell(state.originalTransactionId)), \(cell(state.environment))): \(state.statusName) — \(cell(SubscriptionStory.line(state, now: generatedAt)))\(price); from \(cell(state.source)), signed by Apple \(d(state.signedDate))")
            }
            for request in apple.refundRequests {
                out.append("- Refund request #\(request.requestId) for transaction \(cell(request.transactionId)): \(request.timing(at: generatedAt)), deadline \(d(request.deadline))\(request.sentBy.map { ", sent by \(cell($0))" } ?? "")\(request.requestReason.map { "; the customer's reason: \(cell(RefundRequest.reasonWords($0)))" } ?? "")")
            }
            if !apple.events.isEmpty {
                out += ["", "| When | What | Detail |", "|---|---|---|"]
                for event in apple.events { out.append("| \(d(event.occurredAt)) | \(cell(event.kind)) | \(cell(event.detail)) |") }
            }
        }
        out += ["", "## Orders", ""]
        if s.orders.isEmpty { out.append("None.") } else {
            out += ["| order | product | status | created | transaction |", "|---|---|---|---|---|"]
            for o in s.orders { out.append("| \(cell(o.orderId)) | \(cell(o.productId)) | \(o.status)\(o.failureReason.map { " (\(cell($0)))" } ?? "") | \(d(o.createdAt)) | \(o.transactionId ?? "–") |") }
        }
        out += ["", "## Transactions", ""]
        if s.transactions.isEmpty { out.append("None.") } else {
            out += ["| transaction | product | environment | purchased | expires | refunded | order | arrived again | finished at Apple |",
                    "|---|---|---|---|---|---|---|---|---|"]
            for t in s.transactions {
                let product = cell(t.productId) + (t.isFamilyShared ? " (family shared)" : "")
                    + (t.billingPlanType.map { ", \(BillingPlanType.describe($0))" } ?? "")
                    + (t.commitment.map { ", " + cell($0.describe(currency: nil, day: { RFC3339.format($0) })) } ?? "")
                let refunded = d(t.revocationDate ?? t.cancellationDate) + (t.revocationWords.map { " (\(cell($0)))" } ?? "")
                let finished = t.finishedAt.map { "\(d($0)) by \(cell(t.finishedBy ?? "unknown"))" } ?? "–"
                out.append("| \(t.transactionId) | \(product) | \(t.environment) | \(d(t.purchaseDate)) | \(d(t.expiresDate)) | \(refunded) | \(t.orderId.map(cell) ?? t.binding) | \(t.repeatArrivals) | \(finished) |")
            }
        }
        out += ["", "## Receipts", ""]
        if s.receipts.isEmpty { out.append("None.") } else {
            out += ["| receipt | format | environment | verdict | imported | sha256 |", "|---|---|---|---|---|---|"]
            for r in s.receipts {
                out.append("| #\(r.receiptId) | \(r.format) | \(r.environment) | \(r.verdict): \(cell(r.verdictReason)) | \(d(r.importedAt)) by \(cell(r.importedBy)) | \(r.sha256) |")
            }
        }
        out += ["", "## Grants", ""]
        if s.grants.isEmpty { out.append("None.") }
        for g in s.grants {
            out.append("- #\(g.grantId) **\(cell(g.entitlement))** from \(d(g.startsAt)) until \(g.endsAt.map { d($0) } ?? "forever") by \(cell(g.grantedBy)): \(cell(g.reason))\(g.revokedAt.map { " — revoked \(d($0))" } ?? "")")
        }
        if !s.conflicts.isEmpty {
            out += ["", "## Conflicts", ""]
            for c in s.conflicts {
                out.append("- #\(c.conflictId) transaction \(c.transactionId): owner \(cell(c.ownerCustomerId)), claimed by \(cell(c.claimantCustomerId)), \(c.status)"
                           + (c.resolvedOwner.map { " for \(cell($0))" } ?? "") + (c.resolvedBy.map { " by \(cell($0))" } ?? "")
                           + (c.resolvedAt.map { " at \(d($0))" } ?? "") + (c.resolutionReason.map { ": \(cell($0))" } ?? ""))
            }
        }
        if !transfers.isEmpty || !arrivals.isEmpty {
            out += ["", "## Moves and repeated arrivals", ""]
            for t in transfers {
                out.append("- \(d(t.at)) transaction \(t.transactionId) moved from \(cell(t.fromCustomer)) to \(cell(t.toCustomer)) (\(t.kind)) by \(cell(t.operatorName)): \(cell(t.reason))")
            }
            for a in arrivals.prefix(100) {
                out.append("- \(d(a.at)) transaction \(a.transactionId) arrived again from \(cell(a.source))\(a.presentedFor.map { " for \(cell($0))" } ?? "") by \(cell(a.operatorName))")
            }
        }
        out += ["", "## Audit", ""]
        if audit.isEmpty { out.append("No entries.") } else {
            out += ["| # | at | operator | action | target | details |", "|---|---|---|---|---|---|"]
            for e in audit { out.append("| \(e.seq) | \(d(e.at)) | \(cell(e.operatorName)) | \(cell(e.action)) | \(cell(e.target)) | `\(cell(e.details).replacingOccurrences(of: "`", with: "'"))` |") }
        }
        return out.joined(separator: "\n") + "\n"
    }

    // MARK: JSON

    public var json: JSONValue {
        let s = summary
        return .object([
            ("customerId", .string(s.customerId)), ("displayName", .string(s.displayName)), ("email", .string(s.email)),
            ("tester", .bool(s.isTester)), ("generatedAt", .date(generatedAt)), ("generatedBy", .string(generatedBy)),
            ("notes", .array(s.notes.map(LedgerJSON.note))), ("erasedAt", .date(s.erasedAt)),
            ("appleSubscriptions", .array(apple.states.map { state in
                .object([("originalTransactionId", .string(state.originalTransactionId)), ("productId", .string(state.productId)),
                         ("environment", .string(state.environment)), ("status", .string(state.statusName)),
                         ("why", .string(SubscriptionStory.line(state, now: generatedAt))), ("price", .int(state.price)),
                         ("currency", .string(state.currency)), ("storefront", .string(state.storefront)), ("source", .string(state.source)),
                         ("signedDate", .date(state.signedDate))])
            })),
            ("refundRequests", .array(apple.refundRequests.map { r in
                .object([("requestId", .int(r.requestId)), ("transactionId", .string(r.transactionId)), ("status", .string(r.status.rawValue)),
                         ("deadline", .date(r.deadline)), ("sentBy", .string(r.sentBy)), ("requestReason", .string(r.requestReason))])
            })),
            ("appleEvents", .array(apple.events.map { e in
                .object([("at", .date(e.occurredAt)), ("kind", .string(e.kind)), ("detail", .string(e.detail)), ("source", .string(e.source))])
            })),
            ("entitlements", .array(s.entitlements.map { e in
                .object([("name", .string(e.name)), ("active", .bool(e.isActive)), ("ends", .date(e.ends)), ("balance", .int(e.balance)),
                         ("reason", .string(e.reason))])
            })),
            ("orders", .array(s.orders.map { o in
                .object([("orderId", .string(o.orderId)), ("productId", .string(o.productId)), ("status", .string(o.status)),
                         ("createdAt", .date(o.createdAt)), ("transactionId", .string(o.transactionId)), ("failureReason", .string(o.failureReason))])
            })),
            ("transactions", .array(s.transactions.map { t in
                .object([("transactionId", .string(t.transactionId)), ("originalTransactionId", .string(t.originalTransactionId)),
                         ("productId", .string(t.productId)), ("environment", .string(t.environment)), ("purchaseDate", .date(t.purchaseDate)),
                         ("expiresDate", .date(t.expiresDate)), ("revocationDate", .date(t.revocationDate)),
                         ("cancellationDate", .date(t.cancellationDate)), ("orderId", .string(t.orderId)), ("binding", .string(t.binding)),
                         ("repeatArrivals", .int(t.repeatArrivals)), ("finishedAtApple", .date(t.finishedAt)),
                         ("finishedBy", .string(t.finishedBy))] + Self.entitlementChangeMembers(t))
            })),
            ("receipts", .array(s.receipts.map { r in
                .object([("receiptId", .int(r.receiptId)), ("sha256", .string(r.sha256)), ("format", .string(r.format)),
                         ("environment", .string(r.environment)), ("verdict", .string(r.verdict)), ("verdictReason", .string(r.verdictReason)),
                         ("importedAt", .date(r.importedAt)), ("importedBy", .string(r.importedBy))])
            })),
            ("grants", .array(s.grants.map { g in
                .object([("grantId", .int(g.grantId)), ("entitlement", .string(g.entitlement)), ("startsAt", .date(g.startsAt)),
                         ("endsAt", .date(g.endsAt)), ("grantedBy", .string(g.grantedBy)), ("reason", .string(g.reason)),
                         ("revokedAt", .date(g.revokedAt))])
            })),
            ("conflicts", .array(s.conflicts.map { c in
                .object([("conflictId", .int(c.conflictId)), ("transactionId", .string(c.transactionId)), ("owner", .string(c.ownerCustomerId)),
                         ("claimant", .string(c.claimantCustomerId)), ("status", .string(c.status)), ("resolvedOwner", .string(c.resolvedOwner)),
                         ("resolvedBy", .string(c.resolvedBy)), ("resolvedAt", .date(c.resolvedAt)), ("resolutionReason", .string(c.resolutionReason))])
            })),
            ("transfers", .array(transfers.map { t in
                .object([("transactionId", .string(t.transactionId)), ("from", .string(t.fromCustomer)), ("to", .string(t.toCustomer)),
                         ("kind", .string(t.kind)), ("at", .date(t.at)), ("operator", .string(t.operatorName)), ("reason", .string(t.reason))])
            })),
            ("arrivals", .array(arrivals.map { a in
                .object([("transactionId", .string(a.transactionId)), ("at", .date(a.at)), ("source", .string(a.source)),
                         ("presentedFor", .string(a.presentedFor)), ("operator", .string(a.operatorName))])
            })),
            ("audit", .array(audit.map { e in
                .object([("seq", .int(e.seq)), ("at", .date(e.at)), ("operator", .string(e.operatorName)), ("action", .string(e.action)),
                         ("target", .string(e.target)), ("details", .string(e.details)), ("hash", .string(e.hash))])
            })),
        ])
    }

    /// Apple's entitlement changes on a transaction, only those it has (so older case files read
    /// the same): ownership, revocation type and share, upgrade, billing plan and commitment.
    static func entitlementChangeMembers(_ t: TransactionRecord) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        if let v = t.ownershipType { members.append(("ownershipType", .string(v))) }
        if let v = t.revocationType { members.append(("revocationType", .string(v))) }
        if let v = t.revocationPercentage { members.append(("revocationPercentage", .int(v))) }
        if let v = t.isUpgraded { members.append(("isUpgraded", .bool(v))) }
        if let v = t.billingPlanType { members.append(("billingPlanType", .string(v))) }
        if let c = t.commitment {
            members.append(("commitment", .object([("billingPeriodNumber", .int(c.billingPeriodNumber)), ("totalBillingPeriods", .int(c.totalBillingPeriods)),
                                                   ("periodsLeft", .int(c.periodsLeft)), ("commitmentPrice", .int(c.commitmentPrice)),
                                                   ("commitmentExpiresDate", .date(c.commitmentExpiresDate))])))
        }
        return members
    }
}
