import Foundation
import ReceiptCore

/// Notifications that added since 2024 beside the subscription's life: consent withdrawn
/// (RESCIND_CONSENT, carrying `appData`), an unreported external purchase token
/// (EXTERNAL_PURCHASE_TOKEN / UNREPORTED, carrying `externalPurchaseToken`), and the Advanced
/// Commerce API's METADATA_UPDATE, MIGRATION and PRICE_CHANGE (carrying `data` as usual).
extension SimulatorState {
    /// A parent or guardian withdrew consent for `account`'s use of the app: RESCIND_CONSENT with
    /// `appData` holding the account's signed app transaction. The account must have bought
    /// something in `environment` (the simulator knows no download without a purchase).
    public func rescindConsent(account: String, environment: SimulatorEnvironment, date: Date) throws -> MintedNotification {
        let signed = SimulatorRecords.wholeMilliseconds(date)
        let records = snapshot()
        guard let app = records.appTransaction(account: account, environment: environment, signedDate: signed) else {
            throw SimulatorError(.invalidRequest, "rescindConsent: account \(account) has no purchase in \(environment.rawValue), so no app transaction")
        }
        var payload = NotificationPayload(notificationType: "RESCIND_CONSENT", notificationUUID: UUID().uuidString.lowercased(),
                                          signedDate: signed, data: nil)
        payload.appData = NotificationAppDataPayload(appAppleId: records.appAppleId, bundleId: records.bundleId,
                                                     environment: environment.rawValue, signedAppTransactionInfo: .payload(app))
        return try mint(payload, environment: environment, transactionId: nil, originalTransactionId: nil)
    }

    /// Apple reminds the merchant of an external purchase token never reported:
    /// EXTERNAL_PURCHASE_TOKEN / UNREPORTED. A sandbox token's id gets the `SANDBOX_` prefix.
    public func unreportedExternalPurchaseToken(externalPurchaseId: String, tokenCreationDate: Date, environment: SimulatorEnvironment,
                                                date: Date) throws -> MintedNotification {
        let records = snapshot()
        let id = environment == .sandbox && !externalPurchaseId.hasPrefix("SANDBOX") ? "SANDBOX_\(externalPurchaseId)" : externalPurchaseId
        var payload = NotificationPayload(notificationType: "EXTERNAL_PURCHASE_TOKEN", subtype: "UNREPORTED",
                                          notificationUUID: UUID().uuidString.lowercased(),
                                          signedDate: SimulatorRecords.wholeMilliseconds(date), data: nil)
        payload.externalPurchaseToken = ExternalPurchaseTokenPayload(externalPurchaseId: id,
                                                                     tokenCreationDate: SimulatorRecords.wholeMilliseconds(tokenCreationDate),
                                                                     appAppleId: records.appAppleId, bundleId: records.bundleId)
        return try mint(payload, environment: environment, transactionId: nil, originalTransactionId: nil)
    }

    /// Apple deems the subscriber eligible for win-back offers `offerIds` (empty: none), with the
    /// next offer's terms: the renewal info says so from now on. No notification: Apple sends none.
    public func setWinBackEligibility(originalTransactionId: String, offerIds: [String], offerPeriod: String? = nil,
                                      offerDiscountType: String? = nil) throws {
        try withRecords { records in
            let latest = try records.subscription(originalTransactionId, "setWinBackEligibility")
            var renewal = records.renewal(of: latest)
            renewal.eligibleWinBackOfferIds = offerIds
            renewal.offerPeriod = offerPeriod ?? renewal.offerPeriod
            renewal.offerDiscountType = offerDiscountType ?? renewal.offerDiscountType
            records.subscriptions[originalTransactionId] = renewal
        }
    }

    /// An Advanced Commerce API change to a subscription: METADATA_UPDATE, MIGRATION or
    /// PRICE_CHANGE about its newest transaction. PRICE_CHANGE with `renewalPrice` sets the price
    /// the next renewal charges.
    public func advancedCommerceChange(_ type: String, originalTransactionId: String, renewalPrice: Int64? = nil,
                                       date: Date) throws -> MintedNotification {
        guard ["METADATA_UPDATE", "MIGRATION", "PRICE_CHANGE"].contains(type) else {
            throw SimulatorError(.invalidRequest, "advancedCommerceChange: \(type) is not METADATA_UPDATE, MIGRATION or PRICE_CHANGE")
        }
        let latest = try withRecords { records in
            let latest = try records.subscription(originalTransactionId, type)
            if type == "PRICE_CHANGE", let renewalPrice {
                var renewal = records.renewal(of: latest)
                renewal.renewalPrice = renewalPrice
                records.subscriptions[originalTransactionId] = renewal
            }
            return latest
        }
        return try mintNotification(type: type, transactionId: latest.transactionId, signedDate: date)
    }
}
