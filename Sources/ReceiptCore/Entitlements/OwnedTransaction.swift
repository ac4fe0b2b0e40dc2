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

    public init(transactionId: String, originalTransactionId: String? = nil, productId: String,
                productType: ProductType? = nil, environment: Environment, purchaseDate: Date?,
                expiresDate: Date? = nil, revocationDate: Date? = nil, cancellationDate: Date? = nil,
                quantity: Int64 = 1) {
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
    }
}
