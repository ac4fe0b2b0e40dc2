import Foundation

/// A transaction the customer owns, as the ledger recorded it: the input of the entitlement
/// calculation for purchases.
public struct OwnedTransaction: Sendable, Equatable {
    public var transactionId: String
    public var originalTransactionId: String?
    public var productId: String
    /// What the artefact said (field 1707, the JWS `type`); used only when the catalogue lacks the
    /// product.
    public var productType: ProductType?
    public var environment: Environment
    public var purchaseDate: Date?
    /// Auto-renewables: the end of the period this transaction paid for.
    public var expiresDate: Date?
    /// When Apple revoked it (JWS `revocationDate`).
    public var revocationDate: Date?
    /// When Apple cancelled (refunded) it (receipt field 1712, `cancellation_date`).
    public var cancellationDate: Date?
    /// Consumables: how many were bought at once.
    public var quantity: Int64
    /// Auto-renewables: the end of Apple's billing grace period after this period, when Apple's
    /// signed renewal info says the subscription is in one (access continues until then).
    public var gracePeriodEnd: Date?
    /// `PURCHASED` or `FAMILY_SHARED` as Apple wrote it; nil when the artefact did not say.
    public var ownershipType: String?
    /// Apple's `revocationType` as written ("REFUND_FULL", "REFUND_PRORATED", "FAMILY_REVOKE").
    public var revocationTypeRaw: String?
    /// Apple's `revocationPercentage`: milliunits of a percent refunded (40000 is 40%).
    public var revocationPercentage: Int64?
    /// Apple's `isUpgraded`: the customer upgraded from this period to another product of the group.
    public var isUpgraded: Bool

    /// Whether a family organiser shares it with this customer (not bought by them).
    public var isFamilyShared: Bool { ownershipType == OwnershipType.familyShared.rawValue }

    public init(transactionId: String, originalTransactionId: String? = nil, productId: String,
                productType: ProductType? = nil, environment: Environment, purchaseDate: Date?,
                expiresDate: Date? = nil, revocationDate: Date? = nil, cancellationDate: Date? = nil,
                quantity: Int64 = 1, ownershipType: String? = nil, revocationTypeRaw: String? = nil,
                revocationPercentage: Int64? = nil, isUpgraded: Bool = false) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.productType = productType
        self.environment = environment
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.cancellationDate = cancellationDate
        self.quantity = quantity
        self.ownershipType = ownershipType
        self.revocationTypeRaw = revocationTypeRaw
        self.revocationPercentage = revocationPercentage
        self.isUpgraded = isUpgraded
    }
}
