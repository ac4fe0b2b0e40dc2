import Foundation
import PurchaseStore
import ReceiptCore

/// What the actions that make sense for many rows do with the tagged ones (Space): grant and
/// revoke act on each tagged row's customer once, re-verify asks Apple about each tagged
/// receipt and every receipt of each other tagged row's customer once; each with one preview.
enum TaggedActions {
    /// The commands that act on every tagged row, in the order the status line names them.
    static let commands: [(command: Command, verb: String)] = [(.grant, "grant"), (.revoke, "revoke"), (.reverify, "re-verify")]

    /// The status line after Space: how many rows and customers are tagged, and which keys
    /// (as remapped) act on them all; none in read-only mode.
    static func status(_ state: ConsoleState, tagged: Int) -> String {
        let customers = state.taggedCustomers.count
        var text = "\(tagged) tagged (\(Plural.of(customers, "customer")))"
        let verbs = state.header.readOnly ? [] : commands.compactMap { command, verb -> String? in
            guard let key = key(command, state) else { return nil }
            return "\(key) \(verb)"
        }
        text += verbs.isEmpty ? ": read-only, nothing acts on them" : " · " + verbs.joined(separator: ", ") + " each once"
        if let untag = key(.untag, state) { text += " · \(untag) untag" }
        return text
    }

    /// The first key of `command` in force in the list, or nil when none is bound.
    static func key(_ command: Command, _ state: ConsoleState) -> String? {
        KeyBindings.active(scopes: state.scopes, readOnly: state.header.readOnly, table: state.bindings)
            .first { $0.command == command }?.keys.first?.description
    }

    /// The re-verification of the current tab's tagged rows (receipts by id, other rows by their
    /// customer, each once, in the order tagged), or nil when no row is tagged.
    static func reverify(_ state: ConsoleState) -> PendingChange? {
        guard let tagged = state.tags[state.tab], !tagged.isEmpty else { return nil }
        var receipts: [Int64] = []
        var customers: [String] = []
        for row in tagged {
            if case .receipt(_, let receipt) = row {
                if !receipts.contains(receipt.record.receiptId) { receipts.append(receipt.record.receiptId) }
            } else if let customer = row.customerId, !customers.contains(customer) {
                customers.append(customer)
            }
        }
        return .reverify(receipts: receipts, customers: customers, receiptIds: nil)
    }
}
