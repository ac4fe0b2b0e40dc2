import Foundation

/// A subscription's state as the App Store Server API reports it (`status` in Get All
/// Subscription Statuses and in notifications), read from the newest transaction of its original.
extension SimulatorRecords {
    /// 1 active, 2 expired, 3 in the billing retry period, 4 in the billing grace period, 5 revoked.
    func subscriptionStatus(original: String, at now: Date) -> Int64? {
        guard let latest = latestTransaction(original: original), latest.productType == .autoRenewable else { return nil }
        if latest.isRevoked { return 5 }
        if let renewal = subscriptions[original], renewal.isInBillingRetryPeriod == true {
            if let grace = renewal.gracePeriodExpiresDate, grace > now { return 4 }
            return 3
        }
        if let expires = latest.expiresDate, expires <= now { return 2 }
        return 1
    }

    /// The renewal info Apple would sign for a subscription at `signedDate`.
    func renewalPayload(original: String, signedDate: Date) -> RenewalInfoPayload? {
        guard let latest = latestTransaction(original: original), latest.productType == .autoRenewable else { return nil }
        let renewal = subscriptions[original] ?? SubscriptionRenewal(autoRenewProductId: latest.productId)
        var payload = RenewalInfoPayload(originalTransactionId: original, productId: latest.productId,
                                         autoRenewProductId: renewal.autoRenewProductId, signedDate: signedDate,
                                         environment: latest.environment.rawValue)
        payload.autoRenewStatus = renewal.autoRenewStatus ? 1 : 0
        payload.expirationIntent = renewal.expirationIntent
        payload.recentSubscriptionStartDate = latest.originalPurchaseDate
        payload.renewalDate = renewal.autoRenewStatus ? latest.expiresDate : nil
        payload.appAccountToken = latest.appAccountToken
        payload.renewalPrice = renewal.renewalPrice ?? latest.price
        payload.currency = latest.currency
        payload.isInBillingRetryPeriod = renewal.isInBillingRetryPeriod
        payload.gracePeriodExpiresDate = renewal.gracePeriodExpiresDate
        payload.priceIncreaseStatus = renewal.priceIncreaseStatus
        payload.offerType = renewal.offerType
        payload.offerIdentifier = renewal.offerIdentifier
        payload.offerPeriod = renewal.offerPeriod
        payload.offerDiscountType = renewal.offerDiscountType
        payload.eligibleWinBackOfferIds = renewal.eligibleWinBackOfferIds
        payload.appTransactionId = SimulatorRecords.appTransactionId(bundleId: bundleId, account: latest.account, environment: latest.environment)
        return payload
    }

    /// The originals of auto-renewable subscriptions among `transactions`, in first-seen order.
    static func subscriptionOriginals(_ transactions: [IssuedTransaction]) -> [String] {
        var seen = Set<String>()
        return transactions.filter { $0.productType == .autoRenewable }
            .map(\.originalTransactionId)
            .filter { seen.insert($0).inserted }
    }
}
