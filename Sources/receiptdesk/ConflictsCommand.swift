import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk conflicts [--all]` lists conflicts and ambiguous order bindings;
/// `receiptdesk conflicts resolve ID --owner CUSTOMER --reason TEXT` settles one.
enum ConflictsCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        if arguments.first == "resolve" { return try resolve(Array(arguments.dropFirst())) }
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        let all = args.flag("--all")
        _ = try args.finish(maxPositionals: 0)
        let ledger = try options.openLedgerForReading()
        let conflicts = try ledger.conflicts(includeResolved: all)
        let ambiguous = try ledger.ambiguousBindings()
        if options.json {
            print(JSONValue.object([("conflicts", .array(conflicts.map(LedgerJSON.conflict))),
                                    ("ambiguousBindings", .array(ambiguous.map(LedgerJSON.transaction)))]).serialized())
            return .ok
        }
        print(conflicts.isEmpty ? "no \(all ? "" : "open ")conflicts" : "conflicts:")
        for c in conflicts {
            var line = "  #\(c.conflictId)  transaction \(c.transactionId): owned by \(c.ownerCustomerId), claimed by \(c.claimantCustomerId) (\(presented(c)), \(RFC3339.format(c.openedAt)))  \(c.status)"
            if let owner = c.resolvedOwner {
                line += " for \(owner)" + (c.resolvedBy.map { " by \($0)" } ?? "") + (c.resolvedAt.map { " at \(RFC3339.format($0))" } ?? "")
                    + (c.resolutionReason.map { ": \($0)" } ?? "")
            }
            print(line)
        }
        if !ambiguous.isEmpty {
            print("transactions whose order is ambiguous (bind them by hand):")
            for t in ambiguous { print("  \(t.transactionId)  \(t.productId)  customer \(t.customerId)") }
        }
        return .ok
    }

    /// "receipt #372" when the claimant's receipt is stored under them, else "presented receipt
    /// #372, stored under cust-family-parent" (a receipt is stored once, under whoever presented
    /// it first: the claimant presented the owner's).
    static func presented(_ c: ConflictRecord) -> String {
        guard let receipt = c.receiptId else { return "no receipt" }
        guard let holder = c.receiptCustomerId, holder != c.claimantCustomerId else { return "receipt #\(receipt)" }
        return "presented receipt #\(receipt), stored under \(holder)"
    }

    static func resolve(_ arguments: [String]) throws -> ExitStatus {
        var args = Arguments(arguments)
        let options = try StoreOptions.take(&args)
        guard let owner = try args.value("--owner") else { throw CommandFailure.usage("conflicts resolve needs --owner CUSTOMER") }
        let reason = try args.value("--reason") ?? ""
        guard let idText = try args.finish(maxPositionals: 1).first,
              let id = Int64(idText.trimmingCharacters(in: CharacterSet(charactersIn: "#"))) else {
            throw CommandFailure.usage("conflicts resolve needs the conflict number")
        }
        try options.openLedger().resolveConflict(id, owner: owner, reason: reason, operatorName: options.operatorName)
        print("conflict #\(id) resolved: \(owner) owns the transaction")
        return .ok
    }
}
