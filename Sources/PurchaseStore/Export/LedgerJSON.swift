import Foundation
import ReceiptCore

/// JSON shapes of ledger records: the command line's `--json` output and the live service's
/// answers, one definition for both.
public enum LedgerJSON {
    public static func order(_ o: OrderRecord) -> JSONValue {
        .object([("orderId", .string(o.orderId)), ("customerId", .string(o.customerId)), ("productId", .string(o.productId)),
                 ("accountToken", .string(o.appAccountToken)), ("createdAt", .date(o.createdAt)), ("status", .string(o.status)),
                 ("transactionId", .string(o.transactionId)), ("failureReason", .string(o.failureReason))])
    }

    public static func transaction(_ t: TransactionRecord) -> JSONValue {
        .object([("transactionId", .string(t.transactionId)), ("originalTransactionId", .string(t.originalTransactionId)),
                 ("productId", .string(t.productId)), ("productType", .string(t.productType)), ("customerId", .string(t.customerId)),
                 ("orderId", .string(t.orderId)), ("binding", .string(t.binding)), ("environment", .string(t.environment)),
                 ("purchaseDate", .date(t.purchaseDate)), ("expiresDate", .date(t.expiresDate)),
                 ("revocationDate", .date(t.revocationDate)), ("cancellationDate", .date(t.cancellationDate)),
                 ("quantity", .int(t.quantity)), ("appAccountToken", .string(t.appAccountToken)), ("firstReceiptId", .int(t.firstReceiptId)),
                 ("finishedAtApple", .date(t.finishedAt)), ("finishedBy", .string(t.finishedBy))])
    }

    public static func receipt(_ r: ReceiptRecord) -> JSONValue {
        .object([("receiptId", .int(r.receiptId)), ("sha256", .string(r.sha256)), ("format", .string(r.format)),
                 ("environment", .string(r.environment)), ("verdict", .string(r.verdict)), ("verdictReason", .string(r.verdictReason)),
                 ("source", .string(r.source)), ("importedAt", .date(r.importedAt)), ("importedBy", .string(r.importedBy))])
    }

    public static func grant(_ g: GrantRecord) -> JSONValue {
        .object([("grantId", .int(g.grantId)), ("customerId", .string(g.customerId)), ("entitlement", .string(g.entitlement)),
                 ("startsAt", .date(g.startsAt)), ("endsAt", .date(g.endsAt)), ("reason", .string(g.reason)),
                 ("grantedBy", .string(g.grantedBy)), ("revokedAt", .date(g.revokedAt))])
    }

    /// A note on a customer; `text` is null once the customer's personal data was erased.
    public static func note(_ n: NoteRecord) -> JSONValue {
        .object([("noteId", .int(n.noteId)), ("text", .string(n.text)), ("writtenAt", .date(n.writtenAt)), ("writtenBy", .string(n.writtenBy))])
    }

    public static func conflict(_ c: ConflictRecord) -> JSONValue {
        .object([("conflictId", .int(c.conflictId)), ("transactionId", .string(c.transactionId)),
                 ("owner", .string(c.ownerCustomerId)), ("claimant", .string(c.claimantCustomerId)), ("receiptId", .int(c.receiptId)),
                 ("openedAt", .date(c.openedAt)), ("status", .string(c.status)), ("resolvedOwner", .string(c.resolvedOwner)),
                 ("resolvedBy", .string(c.resolvedBy)), ("resolvedAt", .date(c.resolvedAt)), ("resolutionReason", .string(c.resolutionReason))])
    }

    public static func entitlement(_ e: EntitlementState) -> JSONValue {
        .object([("name", .string(e.name)), ("active", .bool(e.isActive)), ("ends", .date(e.ends)), ("balance", .int(e.balance)),
                 ("reason", .string(e.reason)),
                 ("sources", .array(e.sources.map { s in
                     .object([("kind", .string(s.kind.rawValue)), ("transactionId", .string(s.transactionId)), ("grantId", .int(s.grantId)),
                              ("starts", .date(s.starts)), ("ends", .date(s.ends)), ("units", .int(s.units)), ("active", .bool(s.isActive)),
                              ("reason", .string(s.reason)), ("flags", .array(s.flags.map { .string($0) }))])
                 }))])
    }

    /// Lifetime spend and refunds per currency, in milliunits (as Apple signs prices).
    public static func lifetime(_ l: LifetimeSpend) -> JSONValue {
        .object([("amounts", .array(l.amounts.map { .object([("currency", .string($0.currency)), ("spent", .int($0.spent)),
                                                           ("refunded", .int($0.refunded))]) })),
                 ("unpriced", .int(Int64(l.unpriced))), ("refunds", .int(Int64(l.refunds)))])
    }

    public static func audit(_ a: AuditEntry) -> JSONValue {
        .object([("seq", .int(a.seq)), ("at", .date(a.at)), ("operator", .string(a.operatorName)), ("action", .string(a.action)),
                 ("target", .string(a.target)), ("details", .string(a.details)), ("hash", .string(a.hash)),
                 ("databaseUser", .string(a.databaseUser))])
    }

    /// One artefact's import, as `import --json` prints it (without the file name) and the
    /// live service answers it.
    public static func importResult(_ result: ImportResult) -> [(String, JSONValue)] {
        [
            ("receiptId", .int(result.receiptId)), ("changed", .bool(result.changedDatabase)),
            ("format", .string(result.format.rawValue)), ("environment", .string(result.environment.rawValue)),
            ("verdict", DecodeReport.verdictJSON(result.verdict)),
            ("transactions", .array(result.transactions.map { report in
                var members: [(String, JSONValue)] = [("transactionId", .string(report.transactionId)), ("productId", .string(report.productId))]
                switch report.outcome {
                case .recorded(let binding, let order):
                    members += [("outcome", .string("recorded")), ("binding", .string(binding.rawValue)), ("orderId", .string(order))]
                case .duplicate: members.append(("outcome", .string("duplicate")))
                case .conflict(let owner, let id):
                    members += [("outcome", .string("conflict")), ("owner", .string(owner)), ("conflictId", .int(id))]
                }
                return .object(members)
            })),
            ("notes", .array(result.notes.map { .string($0) })),
        ]
    }
}
