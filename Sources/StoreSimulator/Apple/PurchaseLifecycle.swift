import Foundation

/// Refunds, revocations, consumption requests and one-time charges as Apple tells the merchant
/// about them: each changes what the simulator knows and mints (records, and delivers when a
/// notification URL is set) the notification Apple sends. Nothing reads the clock; nothing saves
/// by itself.
extension SimulatorState {
    /// Apple refunded `transactionId` on `date` (`refund`), then `REFUND` signed that day. Any
    /// pending consumption request for it is settled.
    @discardableResult
    public func refundAndNotify(transactionId: String, date: Date, reason: Int64 = 0) throws -> MintedNotification {
        let refunded = try refund(transactionId: transactionId, date: date, reason: reason)
        withRecords { $0.pendingConsumptionRequests[transactionId] = nil }
        return try mintNotification(type: "REFUND", transactionId: refunded.transactionId, signedDate: date)
    }

    /// Apple declined the customer's refund request; nothing changes but the pending consumption
    /// request, which is settled. `REFUND_DECLINED`.
    @discardableResult
    public func declineRefund(transactionId: String, date: Date) throws -> MintedNotification {
        try withRecords { records in
            guard records.transactions[transactionId] != nil else {
                throw SimulatorError(.invalidRequest, "declineRefund: transaction \(transactionId) was not issued by the simulator")
            }
            records.pendingConsumptionRequests[transactionId] = nil
        }
        return try mintNotification(type: "REFUND_DECLINED", transactionId: transactionId, signedDate: date)
    }

    /// Apple reversed an earlier refund (the customer's dispute was resolved for the merchant):
    /// the revocation is removed. `REFUND_REVERSED`.
    @discardableResult
    public func reverseRefund(transactionId: String, date: Date) throws -> MintedNotification {
        try withRecords { records in
            guard var transaction = records.transactions[transactionId], transaction.isRevoked else {
                throw SimulatorError(.invalidRequest, "reverseRefund: transaction \(transactionId) is unknown or was not refunded")
            }
            transaction.revocation = nil
            records.transactions[transactionId] = transaction
        }
        return try mintNotification(type: "REFUND_REVERSED", transactionId: transactionId, signedDate: date)
    }

    /// Family Sharing access ended (the purchaser stopped sharing, or left the family): the
    /// transaction is marked `FAMILY_SHARED` and revoked on `date` (reason 0, type
    /// `FAMILY_REVOKE`). `REVOKE`. Give it the family member's copy (`shareWithFamily`).
    @discardableResult
    public func revokeFamilySharing(transactionId: String, date: Date) throws -> MintedNotification {
        try withRecords { records in
            guard var transaction = records.transactions[transactionId] else {
                throw SimulatorError(.invalidRequest, "revokeFamilySharing: transaction \(transactionId) was not issued by the simulator")
            }
            transaction.inAppOwnershipType = "FAMILY_SHARED"
            transaction.revocation = IssuedTransaction.Revocation(date: SimulatorRecords.wholeMilliseconds(date), reason: 0,
                                                                  type: "FAMILY_REVOKE")
            records.transactions[transactionId] = transaction
        }
        return try mintNotification(type: "REVOKE", transactionId: transactionId, signedDate: date)
    }

    /// The customer asked Apple for a refund of a consumable or a subscription transaction; Apple
    /// asks the merchant for consumption information within 12 hours of `date`. The request stays
    /// pending (`pendingConsumptionRequest(transactionId:)`) until Send Consumption Information
    /// arrives or the refund is decided. `CONSUMPTION_REQUEST`.
    @discardableResult
    public func requestConsumption(transactionId: String, date: Date, reason: String = "UNSATISFIED_WITH_PURCHASE") throws -> MintedNotification {
        try withRecords { records in
            guard let transaction = records.transactions[transactionId] else {
                throw SimulatorError(.invalidRequest, "requestConsumption: transaction \(transactionId) was not issued by the simulator")
            }
            guard transaction.productType == .consumable || transaction.productType == .autoRenewable else {
                throw SimulatorError(.invalidRequest, "requestConsumption: transaction \(transactionId) is \(transaction.productType.rawValue); Apple asks only about consumables and auto-renewable subscriptions")
            }
            records.pendingConsumptionRequests[transactionId] = SimulatorRecords.wholeMilliseconds(date)
        }
        return try mintNotification(type: "CONSUMPTION_REQUEST", transactionId: transactionId, signedDate: date, consumptionRequestReason: reason)
    }

    /// A one-time purchase (consumable, non-consumable or non-renewing subscription): registers
    /// `purchase` and mints `ONE_TIME_CHARGE` signed at its purchase date.
    @discardableResult
    public func chargeOneTime(_ purchase: SimulatedPurchase, environment: SimulatorEnvironment, account: String? = nil) throws -> MintedNotification {
        guard purchase.type != .autoRenewable else {
            throw SimulatorError(.invalidRequest, "chargeOneTime: \(purchase.productId) is an auto-renewable subscription; use subscribe")
        }
        let issued = try register(purchase, environment: environment, account: account)
        return try mintNotification(type: "ONE_TIME_CHARGE", transactionId: issued.transactionId, signedDate: issued.purchaseDate)
    }

    /// When Apple asked for consumption information about `transactionId` and is still waiting; nil
    /// when nothing is pending.
    public func pendingConsumptionRequest(transactionId: String) -> Date? {
        withRecords { $0.pendingConsumptionRequests[transactionId] }
    }

    /// Every consumption information sent for `transactionId`, oldest first.
    public func consumptionRecords(transactionId: String) -> [ConsumptionRecord] {
        withRecords { records in records.consumption.filter { $0.transactionId == transactionId } }
    }

    /// Every renewal-date extension of `originalTransactionId`, oldest first.
    public func extensions(originalTransactionId: String) -> [SubscriptionExtension] {
        withRecords { records in records.extensions.filter { $0.originalTransactionId == originalTransactionId } }
    }

    /// Sets the merchant's `appAccountToken` (lower-cased UUID) on every transaction of
    /// `originalTransactionId`; later renewals copy it from the newest one.
    public func setAppAccountToken(originalTransactionId: String, token: String) throws {
        guard let uuid = UUID(uuidString: token) else {
            throw SimulatorError(.invalidRequest, "setAppAccountToken: '\(token.prefix(64))' is not a UUID")
        }
        try withRecords { records in
            let ids = records.transactions.values.filter { $0.originalTransactionId == originalTransactionId }.map(\.transactionId)
            guard !ids.isEmpty else {
                throw SimulatorError(.invalidRequest, "setAppAccountToken: \(originalTransactionId) was not issued by the simulator")
            }
            for id in ids { records.transactions[id]?.appAccountToken = uuid.uuidString.lowercased() }
        }
    }
}
