import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk customer note add ID TEXT` and `receiptdesk customer note list ID [--json]`:
/// notes on a customer, shown to the whole team (customer show, the case file, the console).
enum CustomerNoteCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        guard let sub = arguments.first else { throw CommandFailure.usage("customer note needs a subcommand: add or list") }
        var args = Arguments(Array(arguments.dropFirst()))
        let options = try StoreOptions.take(&args)
        switch sub {
        case "add":
            let positionals = try args.finish(maxPositionals: 2)
            guard positionals.count == 2 else { throw CommandFailure.usage("customer note add needs ID and TEXT (quote the text)") }
            let ledger = try options.openLedger(checking: [(positionals[0], "customer id")])
            let note = try ledger.addNote(customer: positionals[0], text: positionals[1], operatorName: options.operatorName)
            if options.json {
                print(LedgerJSON.note(note).serialized())
            } else {
                print("note #\(note.noteId) added to customer \(note.customerId) by \(note.writtenBy)")
            }
            return .ok
        case "list":
            guard let id = try args.finish(maxPositionals: 1).first else { throw CommandFailure.usage("customer note list needs ID") }
            let ledger = try options.openLedgerForReading()
            guard try ledger.customerExists(id) else { throw CommandFailure.from(StoreError(.notFound, "customer \(id) not found")) }
            let notes = try ledger.notes(of: id)
            if options.json {
                print(JSONValue.array(notes.map(LedgerJSON.note)).serialized())
            } else if notes.isEmpty {
                print("customer \(id) has no notes")
            } else {
                for n in notes { print("#\(n.noteId)  \(RFC3339.format(n.writtenAt))  \(n.writtenBy): \(n.text ?? "(erased)")") }
            }
            return .ok
        default:
            throw CommandFailure.usage("unknown customer note subcommand '\(sub)': use add or list")
        }
    }
}
