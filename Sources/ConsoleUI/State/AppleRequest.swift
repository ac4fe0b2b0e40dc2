import Foundation
import ReceiptCore

/// Something the operator asked of Apple (the App Store Server API, reached only through
/// PurchaseStore's `AppleActions`), as the plain values a form collected. Those that change
/// Apple or the ledger are previewed (the ledger's plan) and confirmed first; all run off the
/// screen's thread and end in a one-line message.
enum AppleRequest: Equatable, Sendable {
    /// Get All Subscription Statuses for the customer, applied and recorded.
    case refresh(customer: String)
    case extend(customer: String, original: String, days: Int, reasonCode: Int, reason: String)
    case setToken(original: String, token: String, reason: String)
    /// Look Up Order ID: the order's transactions imported for the customer.
    case lookUpOrder(customer: String, orderId: String)
    /// Get Transaction History around a transaction, read in the pager.
    case history(transactionId: String)
    case consumption(requestId: Int64, choices: ConsumptionChoices, reason: String)
    case massExtend(productId: String, days: Int, reasonCode: Int, environment: Environment, storefronts: [String], reason: String)
    case fetchNotifications(start: Date, end: Date, environment: Environment)
    case testNotification(environment: Environment)
    /// A promotional or win-back offer signed for the customer (no request to Apple: signed with
    /// the Server API key), shown once in the pager and never kept.
    case offer(customer: String, productId: String, offerId: String, transactionId: String?, reason: String)
    /// Goodwill at Apple for many: every subscription of the `customers` (the tagged ones), or
    /// when none are given of every customer the filter `query` finds, extended by `days`.
    case extendBatch(query: String, customers: [String], days: Int, reasonCode: Int, reason: String)

    /// The action's name, for messages ("extend", "refund #3").
    var name: String {
        switch self {
        case .refresh: return "Apple status"
        case .extend: return "extend"
        case .setToken: return "set token"
        case .lookUpOrder: return "lookup order"
        case .history: return "transaction history"
        case .consumption(let id, _, _): return "refund request #\(id)"
        case .massExtend: return "mass extension"
        case .fetchNotifications: return "notification history"
        case .testNotification: return "test notification"
        case .offer: return "offer"
        case .extendBatch: return "goodwill at Apple"
        }
    }

    /// What the header says while it runs.
    var label: String {
        switch self {
        case .refresh(let customer): return "asking Apple about \(customer)"
        case .extend(_, let original, let days, _, _): return "extending \(original) by \(days)d"
        case .setToken(let original, _, _): return "setting the token of \(original)"
        case .lookUpOrder(_, let order): return "looking up order \(order)"
        case .history(let id): return "history of \(id)"
        case .consumption(let id, _, _): return "sending refund request #\(id)"
        case .massExtend(let product, _, _, _, _, _): return "mass extension of \(product)"
        case .fetchNotifications: return "fetching notifications"
        case .testNotification: return "test notification"
        case .offer(let customer, _, let offer, _, _): return "signing offer \(offer) for \(customer)"
        case .extendBatch(let query, let customers, let days, _, _):
            return "extending by \(days)d at Apple for " + (customers.isEmpty ? query : "\(customers.count) tagged customers")
        }
    }
}

/// What the operator decided in the consumption form: consent, the sample flag, and every coded
/// field shown (refund preference included), by Apple's field name.
struct ConsumptionChoices: Equatable, Sendable {
    var consented: Bool
    var sampleContentProvided: Bool
    var codes: [String: Int]
}

/// A job at Apple in the background: what, and the tick it started at (the header's spinner).
struct AppleJobState: Equatable, Sendable {
    let label: String
    let startedTick: Int
    /// The last progress report ("page 2: 40 read, 3 new").
    var progress: String?
}
