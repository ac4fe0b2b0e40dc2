/// `inAppOwnershipType` (JWS) / `in_app_ownership_type` (verifyReceipt): whether the customer
/// bought the product or a family organiser shares it with them through Family Sharing. Each
/// family member gets a transaction of their own (its own transaction id); the raw value is kept
/// beside this (`Purchase.ownershipType`), so a new value decodes.
public enum OwnershipType: String, Sendable {
    case purchased = "PURCHASED"
    case familyShared = "FAMILY_SHARED"
}
