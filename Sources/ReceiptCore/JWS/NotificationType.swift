/// App Store Server Notification V2 types (`notificationType`), as Apple names them. A
/// notification keeps the raw string too (`ServerNotification.notificationType`), so a type added
/// after this list decodes.
public enum NotificationType: String, Sendable, CaseIterable {
    case subscribed = "SUBSCRIBED"
    case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
    case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
    case offerRedeemed = "OFFER_REDEEMED"
    case didRenew = "DID_RENEW"
    case expired = "EXPIRED"
    case didFailToRenew = "DID_FAIL_TO_RENEW"
    case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
    case priceIncrease = "PRICE_INCREASE"
    case refund = "REFUND"
    case refundDeclined = "REFUND_DECLINED"
    case consumptionRequest = "CONSUMPTION_REQUEST"
    case renewalExtended = "RENEWAL_EXTENDED"
    case revoke = "REVOKE"
    case test = "TEST"
    case renewalExtension = "RENEWAL_EXTENSION"
    case refundReversed = "REFUND_REVERSED"
    /// An external purchase token was not reported to Apple (subtype UNREPORTED).
    case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
    case oneTimeCharge = "ONE_TIME_CHARGE"
    /// A parent or guardian withdrew consent for a minor's use of the app (age assurance); the
    /// payload carries `appData`, not `data`.
    case rescindConsent = "RESCIND_CONSENT"
    /// Advanced Commerce API: a subscription's metadata changed.
    case metadataUpdate = "METADATA_UPDATE"
    /// Advanced Commerce API: a subscription was migrated to an Advanced Commerce subscription.
    case migration = "MIGRATION"
    /// Advanced Commerce API: a subscription's price changed.
    case priceChange = "PRICE_CHANGE"
}
