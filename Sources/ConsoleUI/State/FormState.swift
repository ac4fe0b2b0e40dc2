import Foundation
import ReceiptCore

/// A one-line text input with a cursor.
struct TextField: Equatable, Sendable {
    var text = ""
    /// Cursor position, in characters.
    var cursor = 0

    init(_ text: String = "") {
        self.text = text
        cursor = text.count
    }

    /// Applies an editing key; returns false when the key is not an edit.
    mutating func edit(_ key: KeyEvent) -> Bool {
        switch key {
        case .paste(let pasted):
            let index = text.index(text.startIndex, offsetBy: min(cursor, text.count))
            text.insert(contentsOf: pasted, at: index)
            cursor += pasted.count
        case .character(let c):
            let index = text.index(text.startIndex, offsetBy: min(cursor, text.count))
            text.insert(c, at: index)
            cursor += 1
        case .backspace:
            guard cursor > 0 else { return true }
            let index = text.index(text.startIndex, offsetBy: cursor - 1)
            text.remove(at: index)
            cursor -= 1
        case .delete:
            guard cursor < text.count else { return true }
            text.remove(at: text.index(text.startIndex, offsetBy: cursor))
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(text.count, cursor + 1)
        case .home, .control("a"): cursor = 0
        case .end, .control("e"): cursor = text.count
        case .control("u"):
            text = ""
            cursor = 0
        default: return false
        }
        return true
    }
}

/// One field of a form.
struct FormField: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        case text(TextField)
        /// Options cycled with ← / →.
        case choice([String], Int)
    }

    let label: String
    var kind: Kind
    /// A hint under the field ("2026-12-31, P30D or empty for forever").
    let hint: String

    var text: String {
        switch kind {
        case .text(let field): return field.text
        case .choice(let options, let index): return options.indices.contains(index) ? options[index] : ""
        }
    }
}

/// Which form is open and what it acts on.
enum FormKind: Equatable, Sendable {
    case grant(customer: String)
    /// One grant to each of these customers (the tagged rows'), with one preview.
    case grantMany(customers: [String])
    /// `options` pairs each choice with an entitlement name or a grant number.
    case revoke(customer: String, options: [RevokeOption])
    /// The entitlement named revoked from each of these customers (the tagged rows'), with one preview.
    case revokeMany(customers: [String])
    case restore(customer: String)
    case resolve(conflictId: Int64, owner: String, claimant: String)
    case importArtefact
    /// Extend one of `originals` (the customer's subscriptions, in the choice's order).
    case extend(customer: String, originals: [String])
    case setToken(original: String)
    case lookUpOrder(customer: String)
    case consumption(requestId: Int64)
    case massExtend
    case notifications
    /// Sign an offer for one of `choices` (the customer's subscriptions, in the choice's order).
    case offer(customer: String, choices: [OfferChoice])
    case note(customer: String)
    case erase(customer: String)
    /// Goodwill (a grant here, or an extension at Apple) for the `tagged` customers, or when
    /// none are tagged for every customer the filter `query` finds (`GoodwillForm`).
    case grantBatch(query: String, tagged: [String])

    var title: String {
        switch self {
        case .grant(let c): return "Grant an entitlement to \(c)"
        case .grantMany(let customers): return "Grant an entitlement to \(customers.count) tagged customers"
        case .revoke(let c, _): return "Revoke for \(c)"
        case .revokeMany(let customers): return "Revoke an entitlement from \(customers.count) tagged customers"
        case .restore(let c): return "Restore purchases to \(c)"
        case .resolve(let id, _, _): return "Resolve conflict #\(id)"
        case .importArtefact: return "Import a receipt, JWS or notification"
        case .extend(let c, _): return "Extend a subscription of \(c) at Apple"
        case .setToken(let original): return "Set the app account token of \(original) at Apple"
        case .lookUpOrder(let c): return "Look up an Apple order for \(c)"
        case .consumption(let id): return "Refund request #\(id): consumption information for Apple"
        case .massExtend: return "Extend every subscriber of a product at Apple"
        case .notifications: return "Apple's notifications"
        case .offer(let c, _): return "Sign a promotional or win-back offer for \(c)"
        case .note(let c): return "Add a note on \(c) for the team"
        case .erase(let c): return "Erase the personal data of \(c)"
        case .grantBatch(let q, let tagged):
            return tagged.isEmpty ? "Goodwill for every customer found by \(q)" : "Goodwill for the \(tagged.count) tagged customers"
        }
    }
}

/// What a revoke can target.
enum RevokeOption: Equatable, Sendable {
    case entitlement(String)
    case grant(Int64)
}

/// An open form: its fields, which has the focus, and the last refusal.
struct FormState: Equatable, Sendable {
    let kind: FormKind
    var fields: [FormField]
    var focus = 0
    var error: String?
    /// Esc was pressed once on a form holding a long paste: a second Esc throws it away.
    var discardAsked = false

    /// Text fields this long count as a paste worth asking about before Esc throws them away.
    static let longText = 200

    /// The longest text a field holds, in characters.
    var longestText: Int { fields.map { $0.text.count }.max() ?? 0 }

    func value(_ label: String) -> String {
        fields.first { $0.label == label }?.text.trimmingCharacters(in: .whitespaces) ?? ""
    }

    func choiceIndex(_ label: String) -> Int {
        guard let field = fields.first(where: { $0.label == label }), case .choice(_, let index) = field.kind else { return 0 }
        return index
    }
}

/// When a grant ends.
enum GrantEnd: Equatable, Sendable {
    case forever
    case date(Date)
    case duration(ISODuration)
}

/// Artefact input from a form: text to read (a file path, or the pasted artefact itself), or the bytes once read.
enum ArtefactInput: Equatable, Sendable {
    case text(String)
    case bytes([UInt8])
}

/// A change the operator asked for, ready to preview and then apply through the ledger.
enum PendingChange: Equatable, Sendable {
    case grant(customer: String, entitlement: String, end: GrantEnd, reason: String)
    case revoke(customer: String, target: RevokeOption, reason: String)
    case restore(customer: String, fromCustomer: String?, transactionIds: [String], receipt: ArtefactInput?, reason: String,
                 includeConsumables: Bool = false)
    case resolve(conflictId: Int64, owner: String, reason: String)
    case importArtefact(customer: String, input: ArtefactInput, orderId: String?, createCustomer: Bool = false)
    case note(customer: String, text: String)
    case erase(customer: String, reason: String)
    /// `customers` is nil until the preview looked them up (what it showed is what is granted to).
    case grantBatch(query: String, customers: [String]?, entitlement: String, end: GrantEnd, reason: String)
    /// Asked of Apple (through PurchaseStore's `AppleActions`), off the screen's thread.
    case apple(AppleRequest)
    /// Re-verify with Apple the tagged `receipts` and every receipt of the tagged `customers`,
    /// one at a time; `receiptIds` is nil until the preview looked them up (what it listed is
    /// what is asked).
    case reverify(receipts: [Int64], customers: [String], receiptIds: [Int64]?)
    /// The same change to each tagged customer: previewed together, applied in one write
    /// transaction, each once (all or none).
    indirect case many([PendingChange])

    /// The ledger action's name, for messages.
    var name: String {
        switch self {
        case .grant: return "grant"
        case .revoke: return "revoke"
        case .restore: return "restore"
        case .resolve: return "resolve"
        case .importArtefact: return "import"
        case .note: return "note"
        case .erase: return "erase"
        case .grantBatch: return "grant-batch"
        case .apple(let request): return request.name
        case .reverify: return "re-verify"
        case .many(let changes):
            let first = changes.first?.name ?? "change"
            return first + (first == "grant" ? " to" : " for") + " \(changes.count) customers"
        }
    }
}

/// A change shown before it happens: exactly what will change, then y / n.
struct Confirmation: Sendable {
    let change: PendingChange
    let title: String
    let lines: [StyledLine]
    /// A second question asked after the first y, for a change that needs its own yes (moving
    /// consumables); nil for most.
    var followUp: [StyledLine]? = nil
}
