import Foundation

/// Everything the entitlement calculation knows about one customer.
public struct EntitlementInput: Sendable {
    /// The customer's transactions, each once (a repeated transaction id is counted once).
    public var transactions: [OwnedTransaction]
    public var grants: [ManualGrant]
    public var revocations: [ManualRevocation]
    /// From the newest valid app receipt, for the paid-to-free rule; nil when there is none.
    public var appPurchase: AppPurchaseFacts?
    /// Whether the customer is marked as a tester: their sandbox purchases grant.
    public var isTester: Bool

    public init(transactions: [OwnedTransaction] = [], grants: [ManualGrant] = [], revocations: [ManualRevocation] = [],
                appPurchase: AppPurchaseFacts? = nil, isTester: Bool = false) {
        self.transactions = transactions
        self.grants = grants
        self.revocations = revocations
        self.appPurchase = appPurchase
        self.isTester = isTester
    }
}
