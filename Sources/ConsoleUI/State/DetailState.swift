import Foundation
import PurchaseStore
import ReceiptCore

/// What the detail pane shows: one thing, by id.
enum DetailTarget: Hashable, Sendable {
    case customer(String)
    case order(String)
    case transaction(String)
    case receipt(Int64)
    case conflict(Int64)
    case audit(Int64)

    /// The detail of a list row.
    init(_ row: BrowseRow) {
        switch row {
        case .customer(_, let c): self = .customer(c.customerId)
        case .order(_, let o): self = .order(o.orderId)
        case .transaction(_, let t): self = .transaction(t.record.transactionId)
        case .receipt(_, let r): self = .receipt(r.record.receiptId)
        case .conflict(_, let c): self = .conflict(c.conflictId)
        case .audit(_, let a): self = .audit(a.seq)
        }
    }

    /// A short title for the pane's border.
    var title: String {
        switch self {
        case .customer(let id): return "customer \(id)"
        case .order(let id): return "order \(id)"
        case .transaction(let id): return "transaction \(id)"
        case .receipt(let id): return "receipt #\(id)"
        case .conflict(let id): return "conflict #\(id)"
        case .audit(let seq): return "audit entry #\(seq)"
        }
    }
}

/// Everything the receipt view shows, read and decoded once when the receipt is opened.
struct ReceiptDetail {
    let stored: StoredReceipt
    /// The environment the receipt states, with the field that said so (nil when it did not decode).
    let environment: EnvironmentReading?
    /// The verdict of the verifier now (validated at the artefact's own time), with its chain.
    let verdict: Verdict?
    let tree: TreeNode?
    let purchases: [Purchase]
    /// Why the stored bytes did not decode, when they did not.
    let decodeError: String?
    /// The ledger's record of each purchase in it, by transaction id (absent: never recorded).
    var recorded: [String: TransactionRecord] = [:]
    /// Why the receipt's customer holds entitlements through `original_application_version`
    /// (bought while the app was paid): then a receipt without in-app purchases needs none.
    var paidEra: [String] = []
    /// The stored re-verifications of it, newest first (whoever ran them).
    var reverifications: [ReverificationResult] = []
}

/// Everything the customer view shows.
struct CustomerDetail {
    let summary: CustomerSummary
    let attempts: [VerificationAttemptRecord]
    let revocations: [RevocationRecord]
    /// Transactions that moved in or out (restores, resolved conflicts), oldest first.
    var transfers: [TransferRecord] = []
    /// Transactions of theirs (or presented for them) that arrived again, newest first.
    var arrivals: [ArrivalRecord] = []
    /// Apple's side: subscriptions as Apple reported them, its events, refund requests, extensions.
    var apple: CustomerAppleSide?
}

/// A transaction with what it is bound to.
struct TransactionDetail {
    let record: TransactionRecord
    let order: OrderRecord?
    let receipt: ReceiptRecord?
    let conflicts: [ConflictRecord]
    /// Its repeated arrivals, newest first.
    var arrivals: [ArrivalRecord] = []
}

/// An order with its transaction.
struct OrderDetail {
    let order: OrderRecord
    let transaction: TransactionRecord?
}

/// A conflict with both sides' entitlements.
struct ConflictDetail {
    let conflict: ConflictRecord
    let transaction: TransactionRecord?
    let ownerEntitlements: [EntitlementState]
    let claimantEntitlements: [EntitlementState]
}

/// The loaded content of the detail pane.
enum DetailModel {
    case customer(CustomerDetail)
    case receipt(ReceiptDetail)
    case order(OrderDetail)
    case transaction(TransactionDetail)
    case conflict(ConflictDetail)
    case audit(AuditEntry)
    /// Nothing to show, and why ("no row selected", "receipt #9 not found").
    case empty(String)
}

/// What a detail line does when chosen with Enter.
enum LineAction: Hashable, Sendable {
    /// Fold or unfold the tree node at this path.
    case toggle(String)
    /// Open this in the detail pane.
    case open(DetailTarget)
}

/// One line of the detail pane.
struct DetailLine {
    var spans: StyledLine
    var action: LineAction?
    /// The tree path this line shows, for h / l.
    var treePath: String?
    /// The whole value the line stands for, when it shows less of it (a cut field, a raw
    /// artefact): what `v` reads and `y` copies. Nil: the line's own text.
    var value: (title: String, text: String)?

    init(_ spans: StyledLine, action: LineAction? = nil, treePath: String? = nil, value: (title: String, text: String)? = nil) {
        self.spans = spans
        self.action = action
        self.treePath = treePath
        self.value = value
    }
}

/// The detail pane's state: what it shows (following the list selection unless the operator
/// opened something from a line), the loaded model, the line cursor and which tree nodes are open.
struct DetailState {
    /// Things opened from lines, newest last; empty: the pane follows the list selection.
    var stack: [DetailTarget] = []
    /// What the model was loaded for.
    var target: DetailTarget?
    var model: DetailModel = .empty("no row selected")
    var cursor = 0
    var scroll = 0
    /// Open tree nodes, by path ("r", "r.3", "r.3.1").
    var expanded: Set<String> = ["r"]
    /// When the model next loads, put the cursor on the first line starting with this text.
    var focusLine: String?
}
