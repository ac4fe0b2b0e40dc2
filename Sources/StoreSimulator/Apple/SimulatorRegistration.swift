import Foundation

/// How the records take in a new transaction, assigning what Apple assigns: transaction ids
/// (numbers counting up from 2000000100000001), order ids (`MK` and eight base-36 digits),
/// accounts (`account-N`) and web order line item ids.
extension SimulatorRecords {
    /// Records `purchase`; see `SimulatorState.register`.
    mutating func register(_ purchase: SimulatedPurchase, environment: SimulatorEnvironment, account: String?,
                           reason: String = "PURCHASE") throws -> IssuedTransaction {
        if let id = purchase.transactionId, let existing = transactions[id] {
            guard existing.environment == environment else {
                throw SimulatorError(.invalidRequest, "transaction \(id) was issued in \(existing.environment.rawValue), not \(environment.rawValue)")
            }
            return existing
        }
        let id = purchase.transactionId ?? newTransactionId()
        let originalId = purchase.originalTransactionId ?? id
        let original = transactions[originalId]
        if let original, original.environment != environment {
            throw SimulatorError(.invalidRequest, "original transaction \(originalId) was issued in \(original.environment.rawValue), not \(environment.rawValue)")
        }
        var transaction = IssuedTransaction(
            transactionId: id, originalTransactionId: originalId, environment: environment, bundleId: bundleId,
            productId: purchase.productId, productType: purchase.type,
            purchaseDate: SimulatorRecords.wholeMilliseconds(purchase.purchaseDate),
            originalPurchaseDate: original?.purchaseDate ?? SimulatorRecords.wholeMilliseconds(purchase.purchaseDate),
            expiresDate: purchase.expiresDate.map(SimulatorRecords.wholeMilliseconds), quantity: purchase.quantity,
            transactionReason: reason, account: account ?? original?.account ?? newAccount())
        transaction.appAccountToken = purchase.appAccountToken?.lowercased()
        transaction.price = purchase.price
        transaction.currency = purchase.currency
        transaction.offerType = purchase.offerType
        transaction.offerIdentifier = purchase.offerIdentifier
        transaction.offerDiscountType = purchase.offerDiscountType
        let orderId = purchase.orderId ?? newOrderId()
        transaction.orderId = orderId
        orders[orderId, default: []].append(id)
        if purchase.type == .autoRenewable {
            transaction.webOrderLineItemId = String(nextWebOrderNumber + 2_000_000_000_000_000)
            nextWebOrderNumber += 1
            transaction.subscriptionGroupIdentifier = purchase.subscriptionGroupIdentifier ?? original?.subscriptionGroupIdentifier
                ?? purchase.productId
            if subscriptions[originalId] == nil {
                subscriptions[originalId] = SubscriptionRenewal(autoRenewProductId: purchase.productId)
            }
        }
        issue(transaction)
        return transaction
    }

    /// The next transaction id not yet issued.
    mutating func newTransactionId() -> String {
        while transactions[String(nextTransactionNumber)] != nil { nextTransactionNumber += 1 }
        defer { nextTransactionNumber += 1 }
        return String(nextTransactionNumber)
    }

    /// The next order id not yet used: "MK" and eight upper-case base-36 digits.
    mutating func newOrderId() -> String {
        while true {
            let digits = String(nextOrderNumber, radix: 36).uppercased()
            nextOrderNumber += 1
            let id = "MK" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
            if orders[id] == nil { return id }
        }
    }

    /// A new account name.
    mutating func newAccount() -> String {
        defer { nextAccountNumber += 1 }
        return "account-\(nextAccountNumber)"
    }

    /// `date` rounded to whole milliseconds, as App Store JSON carries dates (so saved and
    /// reloaded records compare equal).
    static func wholeMilliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: Double(JSONMembers.milliseconds(date)) / 1000)
    }
}
