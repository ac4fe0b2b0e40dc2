import Foundation
import PurchaseStore
import ReceiptCore

/// Applies a confirmed change through the ledger (one write transaction each, audited there)
/// and says in one line what happened.
enum ChangeRunner {
    static func apply(_ change: PendingChange, ledger: PurchaseLedger, operatorName: String) throws -> String {
        switch change {
        case .grant(let customer, let entitlement, let end, let reason):
            let until: Date?
            switch end {
            case .forever: until = nil
            case .date(let date): until = date
            case .duration: throw ConsoleFailure("the grant's end was not fixed by its preview")
            }
            let grant = try ledger.grant(customer: customer, entitlement: entitlement, until: until, reason: reason, operatorName: operatorName)
            return "granted \(entitlement) to \(customer) \(until.map { "until " + ConsoleFormat.dateTime($0) } ?? "forever") (grant #\(grant.grantId))"
        case .revoke(let customer, let target, let reason):
            switch target {
            case .grant(let id):
                try ledger.revoke(customer: customer, grantId: id, reason: reason, operatorName: operatorName)
                return "revoked grant #\(id) of \(customer)"
            case .entitlement(let name):
                try ledger.revoke(customer: customer, entitlement: name, reason: reason, operatorName: operatorName)
                return "revoked \(name) for \(customer)"
            }
        case .restore(let customer, let from, let ids, let receipt, let reason, let consumables):
            let bytes = try receipt.map(ArtefactReader.bytes)
            let result = try ledger.restore(customer: customer, fromCustomer: from, transactionIds: ids, receipt: bytes, reason: reason,
                                            operatorName: operatorName, includeConsumables: consumables)
            var text = "restored to \(customer): moved \(result.movedTransactions.count), imported \(result.importedTransactions.count)"
            if !result.consumablesLeft.isEmpty { text += "; \(Plural.of(result.consumablesLeft.count, "consumable")) stayed with \(result.consumablesLeft.count == 1 ? "its" : "their") owner" }
            return text
        case .resolve(let id, let owner, let reason):
            try ledger.resolveConflict(id, owner: owner, reason: reason, operatorName: operatorName)
            return "conflict #\(id) resolved: \(owner) owns it"
        case .importArtefact(let customer, let input, let orderId, _):
            let result = try ledger.importArtefact(try ArtefactReader.bytes(input), customer: customer, orderId: orderId, source: "console",
                                                   operatorName: operatorName)
            let recorded = result.transactions.filter { if case .recorded = $0.outcome { return true } else { return false } }.count
            let conflicts = result.transactions.filter { if case .conflict = $0.outcome { return true } else { return false } }.count
            guard result.changedDatabase else { return "imported " + (result.notes.last { $0.hasPrefix("nothing new") } ?? "nothing new") }
            return "imported receipt #\(result.receiptId ?? 0) for \(customer): \(recorded) recorded, \(Plural.of(conflicts, "conflict")), verdict \(result.verdict.status.rawValue)"
        case .note(let customer, let text):
            let note = try ledger.addNote(customer: customer, text: text, operatorName: operatorName)
            return "note #\(note.noteId) added to \(customer)"
        case .erase(let customer, let reason):
            let erased = try ledger.erasePersonalData(customer: customer, reason: reason, operatorName: operatorName)
            return "personal data of \(customer) erased: \(Plural.of(erased.fields.count, "field")), \(Plural.of(erased.notes, "note text")), the bytes of \(Plural.of(erased.receipts.count, "receipt"))"
        case .grantBatch(_, let customers, let entitlement, let end, let reason):
            guard let customers else { throw ConsoleFailure("the batch's customers were not fixed by its preview") }
            let until: Date?
            switch end {
            case .forever: until = nil
            case .date(let date): until = date
            case .duration: throw ConsoleFailure("the batch's end was not fixed by its preview")
            }
            let batch = try ledger.grantBatch(customers: customers, entitlement: entitlement, until: until, reason: reason, operatorName: operatorName)
            return "\(batch.batchId): granted \(entitlement) to \(batch.granted.count) of \(batch.lines.count) customers (\(batch.skipped.count) left out; the audit's grant-batch entry names them)"
        case .apple(let request):
            throw ConsoleFailure("\(request.name) is asked of Apple, not written here; nothing changed")
        case .reverify:
            throw ConsoleFailure("re-verify runs as a re-verification job, not written here; nothing changed")
        case .many(let changes):
            // Inside the caller's one write transaction: each once, all or none.
            let done = try changes.map { try apply($0, ledger: ledger, operatorName: operatorName) }
            return "\(changes.count) done: " + done.joined(separator: "; ")
        }
    }
}
