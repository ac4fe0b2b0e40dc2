import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk customer show ID`, `receiptdesk customer add ID [--tester] [--name NAME] [--email EMAIL]` and
/// `receiptdesk customer export ID [--json]` (a case file for a ticket); `customer note …` is
/// `CustomerNoteCommand`'s.
enum CustomerCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        guard let sub = arguments.first else { throw CommandFailure.usage("customer needs a subcommand: show, add, export, note or erase") }
        if sub == "note" { return try CustomerNoteCommand.run(Array(arguments.dropFirst())) }
        if sub == "erase" { return try CustomerEraseCommand.run(Array(arguments.dropFirst())) }
        var args = Arguments(Array(arguments.dropFirst()))
        let options = try StoreOptions.take(&args)
        switch sub {
        case "show":
            guard let id = try args.finish(maxPositionals: 1).first else { throw CommandFailure.usage("customer show needs ID") }
            let ledger = try options.openLedgerForReading()
            let summary = try ledger.customerSummary(id)
            let apple = try ledger.appleSide(of: id)
            let now = Date()
            if options.json {
                guard case .object(let members) = json(summary) else { return .ok }
                print(JSONValue.object(members + AppleSideText.json(apple, now: now)).serialized())
            } else {
                print(text(summary, entitlementsThen: AppleSideText.lines(apple, now: now)))
            }
            return .ok
        case "export":
            // A case file for a support ticket: Markdown, or the same as JSON.
            guard let id = try args.finish(maxPositionals: 1).first else { throw CommandFailure.usage("customer export needs ID") }
            let file = try CaseFile(id, ledger: try options.openLedgerForReading(), generatedBy: options.operatorName, now: Date())
            print(options.json ? file.json.serialized() : file.markdown, terminator: options.json ? "\n" : "")
            return .ok
        case "add":
            let tester = args.flag("--tester")
            let contact = CustomerContact(displayName: try args.value("--name"), email: try args.value("--email"))
            guard let id = try args.finish(maxPositionals: 1).first else { throw CommandFailure.usage("customer add needs ID") }
            do { try contact.validate() } catch { throw CommandFailure.from(error) }
            let ledger = try options.openLedger(mayCreate: true, checking: [(id, "customer id")])
            let existed = try ledger.customerExists(id)
            let changed = try ledger.addCustomer(id, isTester: tester, contact: contact, operatorName: options.operatorName)
            let given = [tester ? "tester mark" : nil, contact.displayName.map { _ in "name" }, contact.email.map { _ in "email" }].compactMap { $0 }
            if !existed {
                print("customer \(id) added\(tester ? " as a sandbox tester" : "")")
            } else if changed {
                print("customer \(id) already exists: updated its \(given.joined(separator: ", "))")
            } else {
                print("customer \(id) already exists: nothing changed")
            }
            return .ok
        default:
            throw CommandFailure.usage("unknown customer subcommand '\(sub)': use show, add, export, note or erase")
        }
    }

    static func json(_ s: CustomerSummary) -> JSONValue {
        .object([("customerId", .string(s.customerId)), ("tester", .bool(s.isTester)),
                 ("displayName", s.displayName.map(JSONValue.string) ?? .null), ("email", s.email.map(JSONValue.string) ?? .null),
                 ("orders", .array(s.orders.map(LedgerJSON.order))),
                 ("transactions", .array(s.transactions.map(LedgerJSON.transaction))),
                 ("receipts", .array(s.receipts.map(LedgerJSON.receipt))),
                 ("grants", .array(s.grants.map(LedgerJSON.grant))),
                 ("entitlements", .array(s.entitlements.map(LedgerJSON.entitlement))),
                 ("conflicts", .array(s.conflicts.map(LedgerJSON.conflict))),
                 ("lifetime", s.lifetimeSpend.map(LedgerJSON.lifetime) ?? .null),
                 ("notes", .array(s.notes.map(LedgerJSON.note))),
                 ("erasedAt", .date(s.erasedAt)), ("erasedBy", .string(s.erasedBy))])
    }

    /// The customer as text; `apple` (Apple's side) follows the entitlements.
    static func text(_ s: CustomerSummary, entitlementsThen apple: [String] = []) -> String {
        func date(_ d: Date?) -> String { d.map(RFC3339.format) ?? "–" }
        var lines = ["customer \(s.customerId)\(s.isTester ? "  (sandbox tester)" : "")"]
        let contact = [s.displayName, s.email.map { "<\($0)>" }].compactMap { $0 }
        if !contact.isEmpty { lines.append("  " + contact.joined(separator: " ")) }
        if let money = s.lifetimeSpend?.line { lines.append("  money: " + money) }
        if let erased = s.erasedAt { lines.append("  personal data erased \(RFC3339.format(erased)) by \(s.erasedBy ?? "?")") }
        if !s.notes.isEmpty {
            lines += ["", "notes:"]
            for n in s.notes { lines.append("  #\(n.noteId)  \(RFC3339.format(n.writtenAt))  \(n.writtenBy): \(n.text ?? "(erased)")") }
        }
        lines += ["", "entitlements:"]
        if s.entitlements.isEmpty { lines.append("  none") }
        for e in s.entitlements {
            lines.append("  \(e.isActive ? "●" : "○") \(e.name): \(e.reasonAfterName)")
            for source in e.otherSources { lines.append("      also: \(source.reason)") }
        }
        lines += apple
        lines += ["", "orders:"]
        if s.orders.isEmpty { lines.append("  none") }
        for o in s.orders {
            lines.append("  \(o.orderId)  \(o.productId)  \(o.status)  created \(date(o.createdAt))" +
                         (o.transactionId.map { "  ← transaction \($0)" } ?? "") + (o.failureReason.map { "  (\($0))" } ?? ""))
        }
        lines += ["", "transactions:"]
        if s.transactions.isEmpty { lines.append("  none") }
        for t in s.transactions {
            var line = "  \(t.transactionId)  \(t.productId) ×\(t.quantity)  \(t.environment.uppercased())  bought \(date(t.purchaseDate))"
            if let expires = t.expiresDate { line += "  expires \(date(expires))" }
            if t.isFamilyShared { line += "  FAMILY SHARED" }
            if let ended = t.revocationDate ?? t.cancellationDate {
                line += t.isUpgraded == true ? "  UPGRADED \(date(ended))" : "  REFUNDED \(date(ended))"
                if let words = t.revocationWords, t.isUpgraded != true { line += " (\(words))" }
            }
            line += t.orderId.map { "  order \($0) (\(t.binding))" } ?? "  \(t.binding)"
            if let finished = t.finishedAt { line += "  finished at Apple \(date(finished))" }
            lines.append(line)
        }
        lines += ["", "receipts:"]
        // A receipt is stored once, under whoever presented it first: say where theirs went.
        let presented = s.conflicts.filter { $0.claimantCustomerId == s.customerId && $0.receiptCustomerId.map { $0 != s.customerId } == true }
        for c in presented {
            lines.append("  #\(c.receiptId ?? 0) presented by them, stored under \(c.receiptCustomerId ?? "?") who presented it first (conflict #\(c.conflictId))")
        }
        if s.receipts.isEmpty && presented.isEmpty { lines.append("  none") }
        for r in s.receipts {
            lines.append("  #\(r.receiptId)  \(r.format)  \(r.environment.uppercased())  \(r.verdict)  imported \(date(r.importedAt)) by \(r.importedBy)  (\(r.source))")
        }
        if !s.grants.isEmpty {
            lines += ["", "manual grants:"]
            for g in s.grants {
                lines.append("  #\(g.grantId)  \(g.entitlement)  until \(g.endsAt.map(RFC3339.format) ?? "forever")  by \(g.grantedBy): \(g.reason)" +
                             (g.revokedAt.map { "  (revoked \(RFC3339.format($0)))" } ?? ""))
            }
        }
        if !s.conflicts.isEmpty {
            lines += ["", "conflicts:"]
            for c in s.conflicts {
                lines.append("  #\(c.conflictId)  transaction \(c.transactionId): owned by \(c.ownerCustomerId), claimed by \(c.claimantCustomerId)  \(c.status)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
