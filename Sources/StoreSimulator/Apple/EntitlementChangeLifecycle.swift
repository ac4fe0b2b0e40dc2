import Foundation

/// What changes an entitlement besides a plain refund, as Apple tells the merchant about it: a
/// prorated refund, Family Sharing (a member's own copy of a purchase, and its revocation), and a
/// 12-month commitment plan (upgrades and downgrades: `changeRenewalPreference`). Nothing
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
            records.issue(copy)
            return copy
        }
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
