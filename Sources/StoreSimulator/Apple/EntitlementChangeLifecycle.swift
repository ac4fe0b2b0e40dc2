import Foundation

/// What changes an entitlement besides a plain refund, as Apple tells the merchant about it: a
/// prorated refund, Family Sharing (a member's own copy of a purchase, and its revocation), an
/// upgrade or a downgrade within a subscription group, and a 12-month commitment plan. Nothing
/// reads the clock; nothing saves by itself.
extension SimulatorState {
    /// Apple refunded `percentage` (milliunits of a percent, 40000 is 40%) of `transactionId` on
    /// `date`: `REFUND` with `revocationType` `REFUND_PRORATED`.
    @discardableResult
    public func refundProratedAndNotify(transactionId: String, date: Date, percentage: Int64, reason: Int64 = 0) throws -> MintedNotification {
        let refunded = try refund(transactionId: transactionId, date: date, reason: reason, type: "REFUND_PRORATED", percentage: percentage)
        withRecords { $0.pendingConsumptionRequests[transactionId] = nil }
        return try mintNotification(type: "REFUND", transactionId: refunded.transactionId, signedDate: date)
    }

    /// The family member `account`'s copy of a shared purchase: a transaction of its own
    /// (`memberTransactionId`, else a new id) with the same original transaction, product, dates
    /// and `inAppOwnershipType` `FAMILY_SHARED`. Apple issues one per family member.
    @discardableResult
    public func shareWithFamily(transactionId: String, account: String, memberTransactionId: String? = nil) throws -> IssuedTransaction {
        try withRecords { records in
            guard let shared = records.transactions[transactionId] else {
                throw SimulatorError(.invalidRequest, "shareWithFamily: transaction \(transactionId) was not issued by the simulator")
            }
            let id = memberTransactionId ?? records.newTransactionId()
            guard records.transactions[id] == nil else {
                throw SimulatorError(.invalidRequest, "shareWithFamily: transaction \(id) already exists")
            }
            var copy = shared
            copy.transactionId = id
            copy.account = account
            copy.inAppOwnershipType = "FAMILY_SHARED"
            copy.appAccountToken = nil  // the organiser's order token is not the member's
            copy.orderId = nil
            copy.revocation = nil
            records.transactions[id] = copy
            return copy
        }
    }

    /// The customer upgraded `originalTransactionId` to `productId` on `date`: the current period
    /// is marked `isUpgraded` and ends at the upgrade (its revocation date, no reason), and a new
    /// transaction of `productId` starts then, in the same original (an upgrade takes effect at
    /// once). `DID_CHANGE_RENEWAL_PREF` / `UPGRADE`, carrying the new transaction.
    @discardableResult
    public func upgradeAndNotify(originalTransactionId: String, to productId: String, date: Date, expiresDate: Date,
                                 newTransactionId: String? = nil, price: Int64? = nil) throws -> MintedNotification {
        let upgraded = try withRecords { records -> IssuedTransaction in
            guard var latest = records.latestTransaction(original: originalTransactionId), latest.productType == .autoRenewable else {
                throw SimulatorError(.invalidRequest, "upgrade: \(originalTransactionId) is not an auto-renewable subscription the simulator issued")
            }
            let at = SimulatorRecords.wholeMilliseconds(date)
            latest.isUpgraded = true
            latest.revocation = IssuedTransaction.Revocation(date: at, reason: nil)
            records.transactions[latest.transactionId] = latest
            var purchase = SimulatedPurchase(productId: productId, type: .autoRenewable, purchaseDate: at, expiresDate: expiresDate,
                                             transactionId: newTransactionId, originalTransactionId: originalTransactionId,
                                             appAccountToken: latest.appAccountToken)
            purchase.subscriptionGroupIdentifier = latest.subscriptionGroupIdentifier ?? latest.productId
            purchase.price = price ?? latest.price
            purchase.currency = latest.currency
            let next = try records.register(purchase, environment: latest.environment, account: latest.account)
            var renewal = records.subscriptions[originalTransactionId] ?? SubscriptionRenewal(autoRenewProductId: productId)
            renewal.autoRenewProductId = productId
            records.subscriptions[originalTransactionId] = renewal
            return next
        }
        return try mintNotification(type: "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE", transactionId: upgraded.transactionId, signedDate: date)
    }

    /// The customer chose `productId` for the next renewal (a downgrade or crossgrade): the current
    /// period keeps granting until it ends, and the renewal info's `autoRenewProductId` says what
    /// follows. `DID_CHANGE_RENEWAL_PREF` / `DOWNGRADE` (nil subtype for a crossgrade).
    @discardableResult
    public func changeRenewalProductAndNotify(originalTransactionId: String, to productId: String, date: Date,
                                              subtype: String? = "DOWNGRADE") throws -> MintedNotification {
        let latest = try withRecords { records -> IssuedTransaction in
            guard let latest = records.latestTransaction(original: originalTransactionId), latest.productType == .autoRenewable else {
                throw SimulatorError(.invalidRequest, "changeRenewalProduct: \(originalTransactionId) is not an auto-renewable subscription the simulator issued")
            }
            var renewal = records.subscriptions[originalTransactionId] ?? SubscriptionRenewal(autoRenewProductId: productId)
            renewal.autoRenewProductId = productId
            records.subscriptions[originalTransactionId] = renewal
            return latest
        }
        return try mintNotification(type: "DID_CHANGE_RENEWAL_PREF", subtype: subtype, transactionId: latest.transactionId, signedDate: date)
    }

    /// Puts `transactionId` on a 12-month commitment plan: `billingPlanType` (`MONTHLY` or
    /// `BILLED_UPFRONT`) and its `commitmentInfo`.
    public func setCommitment(transactionId: String, billingPlanType: String, commitment: IssuedTransaction.Commitment) throws {
        try withRecords { records in
            guard records.transactions[transactionId] != nil else {
                throw SimulatorError(.invalidRequest, "setCommitment: transaction \(transactionId) was not issued by the simulator")
            }
            records.transactions[transactionId]?.billingPlanType = billingPlanType
            records.transactions[transactionId]?.commitment = commitment
        }
    }
}
