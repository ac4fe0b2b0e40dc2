import Foundation

/// One purchase (transaction) in the shape shared by every format: a unified receipt's in-app
/// entry, a legacy purchase-info, a StoreKit 2 transaction, or an entry of Apple's answer.
public struct Purchase: Sendable, Equatable {
    public var transactionId: String?
    public var originalTransactionId: String?
    public var productId: String?
    public var quantity: Int64?
    public var purchaseDate: Date?
    public var originalPurchaseDate: Date?
    public var expiresDate: Date?
    public var cancellationDate: Date?
    public var revocationDate: Date?
    public var webOrderLineItemId: String?
    public var isTrialPeriod: Bool?
    public var isInIntroOfferPeriod: Bool?
    public var promotionalOfferId: String?
    /// The merchant's account token (`appAccountToken`, or `app_account_token` in Apple's answer):
    /// the binding from a StoreKit purchase to the merchant's order.
    public var appAccountToken: String?
    /// The product type as written (1707 number, JWS `type`, …).
    public var productTypeRaw: String?
    /// The product type, when the raw value is one Apple documents.
    public var productType: ProductType?
    /// Why Apple revoked or cancelled it (raw, as Apple wrote it).
    public var revocationReason: String?
    /// `PURCHASED` or `FAMILY_SHARED`, as Apple wrote it (see `ownership`).
    public var ownershipType: String?
    /// `appTransactionId`: the app download (one Apple account's, across reinstalls and devices)
    /// the purchase was made in. StoreKit 2 transactions only.
    public var appTransactionId: String?
    /// What the customer paid, in milliunits of `currency` (9990 is 9.99), as Apple signs it on a
    /// StoreKit 2 transaction (`price`); nil where the artefact carries none (app receipts).
    public var price: Int64?
    /// ISO 4217 code of `price` (`currency`).
    public var currency: String?
    /// How Apple refunded or revoked it (`revocationType`), as written (see `revocationType`).
    public var revocationTypeRaw: String?
    /// The share refunded or revoked, in milliunits of a percent (40000 is 40%): `revocationPercentage`.
    public var revocationPercentage: Int64?
    /// Whether the customer upgraded from this subscription to another of its group (`isUpgraded`,
    /// `is_upgraded`): it stops granting at its revocation (or cancellation) date, the upgrade.
    public var isUpgraded: Bool?
    /// `billingPlanType` as written ("MONTHLY", "BILLED_UPFRONT"): a 12-month commitment plan.
    public var billingPlanTypeRaw: String?
    /// The commitment this transaction is part of (`commitmentInfo`).
    public var commitment: TransactionCommitment?

    /// The ownership type, when the raw value is one Apple documents.
    public var ownership: OwnershipType? { ownershipType.flatMap(OwnershipType.init(rawValue:)) }
    /// The revocation type, when the raw value is one Apple documents.
    public var revocationType: RevocationType? { revocationTypeRaw.flatMap(RevocationType.init(rawValue:)) }
    /// The billing plan, when the raw value is one Apple documents.
    public var billingPlanType: BillingPlanType? { billingPlanTypeRaw.flatMap(BillingPlanType.init(rawValue:)) }

    public init() {}
}

/// The four App Store product types.
public enum ProductType: String, Sendable {
    case nonConsumable = "non-consumable"
    case consumable = "consumable"
    case nonRenewing = "non-renewing"
    case autoRenewable = "auto-renewable"

    /// From unified receipt field 1707: 0 non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable.
    public init?(receiptCode: Int64) {
        switch receiptCode {
        case 0: self = .nonConsumable
        case 1: self = .consumable
        case 2: self = .nonRenewing
        case 3: self = .autoRenewable
        default: return nil
        }
    }

    /// From a JWS `type` ("Auto-Renewable Subscription", "Non-Consumable", …).
    public init?(jwsType: String) {
        switch jwsType {
        case "Auto-Renewable Subscription": self = .autoRenewable
        case "Non-Consumable": self = .nonConsumable
        case "Consumable": self = .consumable
        case "Non-Renewing Subscription": self = .nonRenewing
        default: return nil
        }
    }
}
