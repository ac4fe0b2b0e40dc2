import Foundation

/// Why an auto-renewable subscription expired: the `EXPIRED` notification's subtype and the
/// renewal info's `expirationIntent`.
public enum SubscriptionExpiry: String, Sendable, CaseIterable {
    /// The customer turned auto-renew off (intent 1).
    case voluntary = "VOLUNTARY"
    /// The billing retry period ended without a successful charge (intent 2).
    case billingRetry = "BILLING_RETRY"
    /// The customer did not consent to a price increase (intent 3).
    case priceIncrease = "PRICE_INCREASE"
    /// The product was not for sale at renewal time (intent 4).
    case productNotForSale = "PRODUCT_NOT_FOR_SALE"

    /// Apple's `expirationIntent` for this reason.
    public var expirationIntent: Int64 {
        switch self {
        case .voluntary: return 1
        case .billingRetry: return 2
        case .priceIncrease: return 3
        case .productNotForSale: return 4
        }
    }
}

/// The life of an auto-renewable subscription as Apple tells the merchant about it: each method
/// changes what the simulator knows, then mints (and records, and delivers when a notification
/// URL is set) the App Store Server Notification V2 Apple sends for that change, about the
/// subscription's newest transaction with its renewal info and status at `date`. Nothing reads
/// the clock. They do not save by themselves: on a state opened from a directory, call them
/// inside `change { }`, which saves (or `save(to:)` a state of your own).
///
///     let bought = try state.subscribe(purchase, environment: .sandbox)          // SUBSCRIBED INITIAL_BUY
///     let original = bought.record.transactionId ?? ""
///     try state.failRenewal(originalTransactionId: original, date: end, gracePeriodExpiresDate: end + 6 days)
///     try state.recoverBilling(originalTransactionId: original, purchaseDate: end + 2 days, expiresDate: end + 32 days)
extension SimulatorState {
    /// A new subscription: registers `purchase` (an auto-renewable one) and mints
    /// `SUBSCRIBED`/`INITIAL_BUY`, signed at the purchase date.
    @discardableResult
    public func subscribe(_ purchase: SimulatedPurchase, environment: SimulatorEnvironment, account: String? = nil) throws -> MintedNotification {
        guard purchase.type == .autoRenewable else {
            throw SimulatorError(.invalidRequest, "subscribe: \(purchase.productId) is \(purchase.type.rawValue), not an auto-renewable subscription")
        }
        let issued = try register(purchase, environment: environment, account: account)
        return try mintNotification(type: "SUBSCRIBED", subtype: "INITIAL_BUY", transactionId: issued.transactionId, signedDate: issued.purchaseDate)
    }

    /// The customer subscribes again after it expired: a new transaction of the same original
    /// (of `productId`, default the renewal product), auto-renew on; `SUBSCRIBED`/`RESUBSCRIBE`.
    @discardableResult
    public func resubscribe(originalTransactionId: String, productId: String? = nil, purchaseDate: Date,
                            expiresDate: Date) throws -> MintedNotification {
        let issued = try withRecords { records in
            let latest = try records.subscription(originalTransactionId, "resubscribe")
            var renewal = records.renewal(of: latest)
            var purchase = SimulatedPurchase(productId: productId ?? renewal.autoRenewProductId, type: .autoRenewable,
                                             purchaseDate: purchaseDate, expiresDate: expiresDate,
                                             originalTransactionId: originalTransactionId, appAccountToken: latest.appAccountToken)
            purchase.price = latest.price
            purchase.currency = latest.currency
            let issued = try records.register(purchase, environment: latest.environment, account: latest.account)
            renewal = SubscriptionRenewal(autoRenewProductId: issued.productId)
            records.subscriptions[originalTransactionId] = renewal
            return issued
        }
        return try mintNotification(type: "SUBSCRIBED", subtype: "RESUBSCRIBE", transactionId: issued.transactionId, signedDate: purchaseDate)
    }

    /// A successful renewal (`renew`), then `DID_RENEW` signed at the renewal's purchase date.
    @discardableResult
    public func renewAndNotify(originalTransactionId: String, purchaseDate: Date, expiresDate: Date) throws -> MintedNotification {
        let renewed = try renew(originalTransactionId: originalTransactionId, purchaseDate: purchaseDate, expiresDate: expiresDate)
        return try mintNotification(type: "DID_RENEW", transactionId: renewed.transactionId, signedDate: purchaseDate)
    }

    /// The renewal charge failed on `date`: Apple retries billing (`isInBillingRetryPeriod`,
    /// `expirationIntent` 2) and, with a grace period, keeps service until `gracePeriodExpiresDate`.
    /// `DID_FAIL_TO_RENEW` (subtype `GRACE_PERIOD` with a grace period); status 4 in grace, else 3.
    @discardableResult
    public func failRenewal(originalTransactionId: String, date: Date, gracePeriodExpiresDate: Date? = nil) throws -> MintedNotification {
        let latest = try withRecords { records in
            let latest = try records.subscription(originalTransactionId, "failRenewal")
            var renewal = records.renewal(of: latest)
            renewal.isInBillingRetryPeriod = true
            renewal.expirationIntent = 2
            renewal.gracePeriodExpiresDate = gracePeriodExpiresDate.map(SimulatorRecords.wholeMilliseconds)
            records.subscriptions[originalTransactionId] = renewal
            return latest
        }
        return try mintNotification(type: "DID_FAIL_TO_RENEW", subtype: gracePeriodExpiresDate == nil ? nil : "GRACE_PERIOD",
                                    transactionId: latest.transactionId, signedDate: date)
    }

    /// The billing grace period ended on `date` without a successful charge; Apple keeps retrying
    /// (status 3). `GRACE_PERIOD_EXPIRED`.
    @discardableResult
    public func expireGracePeriod(originalTransactionId: String, date: Date) throws -> MintedNotification {
        let latest = try withRecords { records in
            let latest = try records.subscription(originalTransactionId, "expireGracePeriod")
            var renewal = records.renewal(of: latest)
            guard renewal.isInBillingRetryPeriod == true, let grace = renewal.gracePeriodExpiresDate else {
                throw SimulatorError(.invalidRequest, "expireGracePeriod: subscription \(originalTransactionId) is not in a billing grace period")
            }
            renewal.gracePeriodExpiresDate = min(grace, SimulatorRecords.wholeMilliseconds(date))
            records.subscriptions[originalTransactionId] = renewal
            return latest
        }
        return try mintNotification(type: "GRACE_PERIOD_EXPIRED", transactionId: latest.transactionId, signedDate: date)
    }

    /// A charge during billing retry succeeded: a renewal transaction for the new period and the
    /// retry state cleared. `DID_RENEW`/`BILLING_RECOVERY`.
    @discardableResult
    public func recoverBilling(originalTransactionId: String, purchaseDate: Date, expiresDate: Date) throws -> MintedNotification {
        try withRecords { records in
            let latest = try records.subscription(originalTransactionId, "recoverBilling")
            var renewal = records.renewal(of: latest)
            guard renewal.isInBillingRetryPeriod == true else {
                throw SimulatorError(.invalidRequest, "recoverBilling: subscription \(originalTransactionId) is not in billing retry")
            }
            renewal.isInBillingRetryPeriod = nil
            renewal.gracePeriodExpiresDate = nil
            renewal.expirationIntent = nil
            records.subscriptions[originalTransactionId] = renewal
        }
        let renewed = try renew(originalTransactionId: originalTransactionId, purchaseDate: purchaseDate, expiresDate: expiresDate)
        return try mintNotification(type: "DID_RENEW", subtype: "BILLING_RECOVERY", transactionId: renewed.transactionId, signedDate: purchaseDate)
    }

    /// The subscription expired on `date` for `reason`: auto-renew off, the intent set, billing
    /// retry over, and the newest period cut short to `date` if it ran later. `EXPIRED` with the
    /// reason as subtype; status 2.
    @discardableResult
    public func expire(originalTransactionId: String, because reason: SubscriptionExpiry, date: Date) throws -> MintedNotification {
        let latest = try withRecords { records in
            var latest = try records.subscription(originalTransactionId, "expire")
            var renewal = records.renewal(of: latest)
            renewal.autoRenewStatus = false
            renewal.expirationIntent = reason.expirationIntent
            renewal.isInBillingRetryPeriod = reason == .billingRetry ? false : nil
            renewal.gracePeriodExpiresDate = nil
            records.subscriptions[originalTransactionId] = renewal
            let cut = SimulatorRecords.wholeMilliseconds(date)
            if latest.expiresDate.map({ $0 > cut }) ?? true {
                latest.expiresDate = cut
                records.transactions[latest.transactionId] = latest
            }
            return latest
        }
        return try mintNotification(type: "EXPIRED", subtype: reason.rawValue, transactionId: latest.transactionId, signedDate: date)
    }

    /// The customer turned auto-renew off or on. `DID_CHANGE_RENEWAL_STATUS` with
    /// `AUTO_RENEW_DISABLED` or `AUTO_RENEW_ENABLED`.
    @discardableResult
    public func setAutoRenew(originalTransactionId: String, enabled: Bool, date: Date) throws -> MintedNotification {
        let latest = try withRecords { records in
            let latest = try records.subscription(originalTransactionId, "setAutoRenew")
            var renewal = records.renewal(of: latest)
            renewal.autoRenewStatus = enabled
            if enabled { renewal.expirationIntent = nil }
            records.subscriptions[originalTransactionId] = renewal
            return latest
        }
        return try mintNotification(type: "DID_CHANGE_RENEWAL_STATUS", subtype: enabled ? "AUTO_RENEW_ENABLED" : "AUTO_RENEW_DISABLED",
                                    transactionId: latest.transactionId, signedDate: date)
    }

    /// The customer chose another product of the group. A downgrade takes effect at the next
    /// renewal (`autoRenewProductId`); an upgrade at once, as Apple does: the current period is
    /// marked `isUpgraded` and ends at `date` (its revocation date, no reason), and a new
    /// transaction of `productId` runs from `date` for as long as the current period lasts.
    /// `DID_CHANGE_RENEWAL_PREF` with `UPGRADE` or `DOWNGRADE`.
    @discardableResult
    public func changeRenewalPreference(originalTransactionId: String, to productId: String, upgrade: Bool,
                                        date: Date) throws -> MintedNotification {
        let subject = try withRecords { records in
            let latest = try records.subscription(originalTransactionId, "changeRenewalPreference")
            var renewal = records.renewal(of: latest)
            renewal.autoRenewProductId = productId
            records.subscriptions[originalTransactionId] = renewal
            guard upgrade else { return latest }
            var upgraded = latest
            upgraded.isUpgraded = true
            upgraded.revocation = IssuedTransaction.Revocation(date: SimulatorRecords.wholeMilliseconds(date), reason: nil)
            records.transactions[latest.transactionId] = upgraded
            let length = (latest.expiresDate ?? date).timeIntervalSince(latest.purchaseDate)
            var purchase = SimulatedPurchase(productId: productId, type: .autoRenewable, purchaseDate: date,
                                             expiresDate: date.addingTimeInterval(max(length, 86_400)),
                                             originalTransactionId: originalTransactionId, appAccountToken: latest.appAccountToken)
            purchase.subscriptionGroupIdentifier = latest.subscriptionGroupIdentifier
            purchase.price = latest.price
            purchase.currency = latest.currency
            return try records.register(purchase, environment: latest.environment, account: latest.account)
        }
        return try mintNotification(type: "DID_CHANGE_RENEWAL_PREF", subtype: upgrade ? "UPGRADE" : "DOWNGRADE",
                                    transactionId: subject.transactionId, signedDate: date)
    }

    /// The merchant raised the price: the next renewal costs `renewalPrice` (milliunits);
    /// `priceIncreaseStatus` 0 until the customer accepts, 1 after. `PRICE_INCREASE` with
    /// `PENDING` or `ACCEPTED`.
    @discardableResult
    public func increasePrice(originalTransactionId: String, renewalPrice: Int64, accepted: Bool, date: Date) throws -> MintedNotification {
        let latest = try withRecords { records in
            let latest = try records.subscription(originalTransactionId, "increasePrice")
            var renewal = records.renewal(of: latest)
            renewal.priceIncreaseStatus = accepted ? 1 : 0
            renewal.renewalPrice = renewalPrice
            records.subscriptions[originalTransactionId] = renewal
            return latest
        }
        return try mintNotification(type: "PRICE_INCREASE", subtype: accepted ? "ACCEPTED" : "PENDING",
                                    transactionId: latest.transactionId, signedDate: date)
    }

    /// The customer redeemed an offer (`offerType` 1 introductory, 2 promotional, 3 offer code,
    /// 4 win-back) for the current subscription: as at Apple, it applies from the next renewal, so
    /// the renewal info carries it (with how it discounts, `offerDiscountType`) and the current
    /// period's transaction does not; the renewal's transaction will (`renew`). A purchase that
    /// begins with an offer (a free trial) states it on its own `SimulatedPurchase`.
    /// `OFFER_REDEEMED`, about the current transaction.
    @discardableResult
    public func redeemOffer(originalTransactionId: String, offerType: Int64, offerIdentifier: String?, offerDiscountType: String? = nil,
                            date: Date) throws -> MintedNotification {
        guard (1...4).contains(offerType) else {
            throw SimulatorError(.invalidRequest, "redeemOffer: offer type \(offerType) is not 1 (introductory), 2 (promotional), 3 (offer code) or 4 (win-back)")
        }
        let latest = try withRecords { records in
            let latest = try records.subscription(originalTransactionId, "redeemOffer")
            var renewal = records.renewal(of: latest)
            renewal.offerType = offerType
            renewal.offerIdentifier = offerIdentifier
            if let offerDiscountType { renewal.offerDiscountType = offerDiscountType }
            records.subscriptions[originalTransactionId] = renewal
            return latest
        }
        return try mintNotification(type: "OFFER_REDEEMED", transactionId: latest.transactionId, signedDate: date)
    }
}

extension SimulatorRecords {
    /// The newest transaction of an auto-renewable subscription, or an error naming `what`.
    func subscription(_ original: String, _ what: String) throws -> IssuedTransaction {
        guard let latest = latestTransaction(original: original), latest.productType == .autoRenewable else {
            throw SimulatorError(.invalidRequest, "\(what): \(original) is not an auto-renewable subscription the simulator issued")
        }
        return latest
    }

    /// The renewal state of `latest`'s subscription (a fresh one when none is recorded).
    func renewal(of latest: IssuedTransaction) -> SubscriptionRenewal {
        subscriptions[latest.originalTransactionId] ?? SubscriptionRenewal(autoRenewProductId: latest.productId)
    }
}
