import Foundation

/// Apple's rules for extending a subscription's renewal date, applied to the records: only an
/// active auto-renewable subscription can be extended, at most twice and by at most 180 days in
/// all within the 365 days before the request. Refused with 4030004 as Apple's
/// `SubscriptionExtensionIneligibleError` lists them: in a free offer period, in billing retry,
/// in a billing grace period whose expiration date has passed, expired (and revoked).
extension SimulatorRecords {
    /// Extensions of one subscription within a year: at most this many…
    static let maxExtensionsPerYear = 2
    /// …adding at most this many days.
    static let maxExtensionDaysPerYear: Int64 = 180

    /// The extension already granted for `requestIdentifier` on `original`, if any (a repeated request).
    func extensionGranted(requestIdentifier: String, original: String) -> SubscriptionExtension? {
        extensions.first { $0.requestIdentifier == requestIdentifier && $0.originalTransactionId == original }
    }

    /// The newest transaction of `original` in `environment` when it is an active auto-renewable
    /// subscription that may be extended by `days` at `now`, else the error Apple answers.
    func extensionCandidate(original: String, environment: SimulatorEnvironment, days: Int64, now: Date) throws -> IssuedTransaction {
        guard let latest = latestTransaction(original: original), latest.environment == environment,
              transactions[original] != nil else {
            throw ServerAPIError.originalTransactionIdNotFound
        }
        guard latest.productType == .autoRenewable, extensionEligible(latest, now: now) else {
            throw ServerAPIError.subscriptionExtensionIneligible
        }
        let yearAgo = now.addingTimeInterval(-365 * 86_400)
        let recent = extensions.filter { $0.originalTransactionId == original && $0.date > yearAgo && $0.date <= now }
        guard recent.count < Self.maxExtensionsPerYear,
              recent.reduce(0, { $0 + $1.days }) + days <= Self.maxExtensionDaysPerYear else {
            throw ServerAPIError.subscriptionMaxExtension
        }
        return latest
    }

    /// Whether Apple's rule lets `latest`'s subscription be extended at `now` (the yearly limits aside).
    func extensionEligible(_ latest: IssuedTransaction, now: Date) -> Bool {
        switch subscriptionStatus(original: latest.originalTransactionId, at: now) {
        case 1:
            // A free offer period (a free trial, or a free promotional, offer code or win-back period) is not extended.
            let inFreePeriod = latest.offerDiscountType == "FREE_TRIAL" && (latest.expiresDate.map { $0 > now } ?? true)
            return !inFreePeriod
        case 4:
            // In a billing grace period: only while the expiration date has not passed (it always
            // has here: grace begins when a renewal fails at expiry).
            return latest.expiresDate.map { $0 > now } ?? false
        default:
            return false  // 2 expired, 3 billing retry, 5 revoked
        }
    }

    /// Extends `original` by `days` at `now` (its newest transaction's expiry, hence the renewal
    /// date, moves) and records the extension; throws as `extensionCandidate` does.
    mutating func extend(original: String, environment: SimulatorEnvironment, days: Int64, reasonCode: Int64,
                         requestIdentifier: String, now: Date) throws -> (SubscriptionExtension, IssuedTransaction) {
        var latest = try extensionCandidate(original: original, environment: environment, days: days, now: now)
        let newExpiry = (latest.expiresDate ?? now).addingTimeInterval(Double(days) * 86_400)
        latest.expiresDate = SimulatorRecords.wholeMilliseconds(newExpiry)
        transactions[latest.transactionId] = latest
        let granted = SubscriptionExtension(originalTransactionId: original, webOrderLineItemId: latest.webOrderLineItemId,
                                            date: SimulatorRecords.wholeMilliseconds(now), days: days, reasonCode: reasonCode,
                                            requestIdentifier: requestIdentifier, effectiveDate: SimulatorRecords.wholeMilliseconds(newExpiry))
        extensions.append(granted)
        return (granted, latest)
    }

    /// The originals of active auto-renewable subscriptions of `productId` in `environment` at
    /// `now`, whose storefront is among `storefronts` (nil: any), oldest first.
    func massExtensionEligible(productId: String, environment: SimulatorEnvironment, storefronts: [String]?, now: Date) -> [String] {
        let originals = SimulatorRecords.subscriptionOriginals(SimulatorRecords.sorted(Array(transactions.values)))
        return originals.filter { original in
            guard let latest = latestTransaction(original: original), latest.environment == environment,
                  latest.productId == productId, subscriptionStatus(original: original, at: now) == 1 else { return false }
            return storefronts.map { $0.contains(SimulatorRecords.storefront) } ?? true
        }
    }

    /// The storefront every simulated purchase is made in.
    static let storefront = "USA"
}

extension SimulatorState {
    /// Extends a subscription's renewal date by `days` on `date`, as Extend a Subscription
    /// Renewal Date does (same eligibility and yearly limits, else `SimulatorError.invalidRequest`
    /// naming Apple's error), and mints `RENEWAL_EXTENDED`.
    @discardableResult
    public func extendRenewalDate(originalTransactionId: String, days: Int64, reasonCode: Int64 = 0,
                                  requestIdentifier: String = UUID().uuidString.lowercased(), date: Date) throws -> MintedNotification {
        guard (1...90).contains(days), (0...3).contains(reasonCode) else {
            throw SimulatorError(.invalidRequest, "extendRenewalDate: \(days) days (1…90) with reason code \(reasonCode) (0…3) is not allowed")
        }
        let latest: IssuedTransaction = try withRecords { records in
            guard let environment = records.transactions[originalTransactionId]?.environment else {
                throw SimulatorError(.invalidRequest, "extendRenewalDate: \(originalTransactionId) was not issued by the simulator")
            }
            do {
                return try records.extend(original: originalTransactionId, environment: environment, days: days, reasonCode: reasonCode,
                                          requestIdentifier: requestIdentifier, now: date).1
            } catch let error as ServerAPIError {
                throw SimulatorError(.invalidRequest, "extendRenewalDate: \(originalTransactionId): \(error.message) (\(error.code))")
            }
        }
        return try mintNotification(type: "RENEWAL_EXTENDED", transactionId: latest.transactionId, signedDate: date)
    }
}
