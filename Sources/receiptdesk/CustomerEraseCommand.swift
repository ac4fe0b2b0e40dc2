import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk customer erase ID --reason TEXT [--yes] [--json]`: a customer's personal data
/// erased on their request. Without `--yes`, what would go (and what stays) and nothing
/// written; with it, erased in one audited write transaction.
enum CustomerEraseCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        let reason = try args.value("--reason")
        let confirmed = args.flag("--yes")
        guard let id = try args.finish(maxPositionals: 1).first else { throw CommandFailure.usage("customer erase needs ID --reason TEXT") }
        guard let reason else { throw CommandFailure.usage("customer erase needs --reason TEXT (why: the customer's request, its ticket)") }
        let ledger = try options.openLedger(checking: [(id, "customer id")])
        let erasure: PersonalDataErasure
        if confirmed {
            erasure = try ledger.erasePersonalData(customer: id, reason: reason, operatorName: options.operatorName)
        } else {
            do { try Validate.checkReason(reason) } catch let error as StoreError { throw CommandFailure.from(error) }
            erasure = try ledger.planErasure(customer: id)
        }
        if options.json {
            print(JSONValue.object([
                ("customerId", .string(erasure.customerId)), ("applied", .bool(erasure.applied)),
                ("fields", .array(erasure.fields.map { .string($0) })), ("notes", .int(Int64(erasure.notes))),
                ("receipts", .array(erasure.receipts.map { .int($0) })), ("appleAnswers", .int(Int64(erasure.appleAnswers))),
                ("digestKey", .bool(erasure.digestKey)),
                ("clearAuditEntries", .array(erasure.clearAuditEntries.map { .int($0) })),
            ]).serialized())
        } else {
            var lines = erasure.lines
            if !erasure.applied {
                lines.append(erasure.isEmpty ? "nothing to erase: customer \(id) holds no personal data" : "nothing written: run it again with --yes to erase")
            }
            print(lines.joined(separator: "\n"))
        }
        return .ok
    }
}
