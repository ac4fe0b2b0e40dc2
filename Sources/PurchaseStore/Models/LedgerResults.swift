import Foundation
import ReceiptCore

/// How a transaction was tied to a merchant order.
public enum OrderBinding: String, Sendable {
    /// The order id given with the import.
    case explicit
    /// The transaction's appAccountToken / applicationUsername named the order.
    case accountToken = "account-token"
    /// The customer's only pending order for that product placed before the purchase.
    case singlePendingOrder = "single-pending-order"
    /// No order fits; nothing to do unless the merchant uses orders.
    case unbound
    /// More than one order (or transaction) fits: listed for an operator to decide.
    case ambiguous
}

/// What importing one artefact did.
public struct ImportResult: Sendable {
    /// What happened to one transaction of the artefact.
    public enum TransactionOutcome: Sendable, Equatable {
        /// Recorded for the first time, bound as said.
        case recorded(binding: OrderBinding, orderId: String?)
        /// Already recorded for this customer: nothing changed.
        case duplicate
        /// Already owned by another customer: a conflict is open, nothing granted.
        case conflict(owner: String, conflictId: Int64)
    }

    public struct TransactionReport: Sendable {
        public let transactionId: String
        public let productId: String
        public let outcome: TransactionOutcome
    }

    /// The stored receipt's row id; nil when nothing was stored (an exact repeat).
    public let receiptId: Int64?
    /// False when the same bytes, or only transactions already seen, were imported before.
    public let changedDatabase: Bool
    public let format: ArtefactFormat
    public let environment: Environment
    public let verdict: Verdict
    public let transactions: [TransactionReport]
    /// Why nothing was granted, when nothing was (invalid receipt, unverifiable, …).
    public let notes: [String]
}

/// A merchant order.
public struct OrderRecord: Sendable, Equatable {
    public let orderId: String
    public let customerId: String
    public let productId: String
    public let appAccountToken: String?
    public let createdAt: Date
    public let status: String
    public let transactionId: String?
    public let failureReason: String?
}

/// A transaction as the database holds it.
public struct TransactionRecord: Sendable, Equatable {
    public let transactionId: String
    public let originalTransactionId: String?
    public let productId: String
    public let productType: String?
    public let customerId: String
    public let orderId: String?
    public let binding: String
    public let environment: String
    public let purchaseDate: Date?
    public let expiresDate: Date?
    public let revocationDate: Date?
    public let cancellationDate: Date?
    public let quantity: Int64
    public let appAccountToken: String?
    public let firstReceiptId: Int64
    /// How many times it arrived again after it was recorded (see `arrivals(ofTransaction:)`).
    public var repeatArrivals: Int64 = 0
    /// `PURCHASED` / `FAMILY_SHARED` as Apple wrote it (nil: not said).
    public var ownershipType: String? = nil
    /// Apple's `revocationType` as written, and its `revocationPercentage` (milliunits of a percent).
    public var revocationType: String? = nil
    public var revocationPercentage: Int64? = nil
    /// Apple's `isUpgraded`.
    public var isUpgraded: Bool? = nil
    /// A 12-month commitment plan: `billingPlanType` as written, and the commitment.
    public var billingPlanType: String? = nil
    public var commitment: TransactionCommitment? = nil
    /// When it was finished at Apple (Finish Transaction) and by whom; nil: not finished.
    public var finishedAt: Date? = nil
    public var finishedBy: String? = nil

    /// Whether a family organiser shares it with this customer.
    public var isFamilyShared: Bool { ownershipType == OwnershipType.familyShared.rawValue }

    /// What Apple's revocation was, in words ("prorated refund 40%", "family sharing revoked",
    /// "upgraded"); nil when not revoked or not said.
    public var revocationWords: String? {
        if isUpgraded == true { return "upgraded" }
        return RevocationType.describe(raw: revocationType, percentage: revocationPercentage)
    }
}

/// A stored receipt (without its raw bytes).
public struct ReceiptRecord: Sendable, Equatable {
    public let receiptId: Int64
    public let sha256: String
    public let format: String
    public let environment: String
    public let verdict: String
    public let verdictReason: String
    public let source: String
    public let customerId: String?
    public let importedAt: Date
    public let importedBy: String
}

/// A transaction claimed by a second customer.
public struct ConflictRecord: Sendable, Equatable {
    public let conflictId: Int64
    public let transactionId: String
    public let ownerCustomerId: String
    public let claimantCustomerId: String
    /// The receipt the claimant presented. Receipts are stored once, under whoever presented
    /// them first, so when the claimant presented the owner's receipt it is stored under the
    /// owner (`receiptCustomerId`), not under the claimant.
    public let receiptId: Int64?
    /// The customer that receipt is stored under (nil when not looked up, or no receipt).
    public var receiptCustomerId: String? = nil
    public let openedAt: Date
    public let status: String
    public let resolvedOwner: String?
    /// Who resolved it, when and why (nil while open). `ownerCustomerId` stays the owner it had.
    public var resolvedBy: String? = nil
    public var resolvedAt: Date? = nil
    public var resolutionReason: String? = nil
}

/// A manual grant as stored.
public struct GrantRecord: Sendable, Equatable {
    public let grantId: Int64
    public let customerId: String
    public let entitlement: String
    public let startsAt: Date
    public let endsAt: Date?
    public let reason: String
    public let grantedBy: String
    public let revokedAt: Date?
}

/// Everything support needs about one customer.
public struct CustomerSummary: Sendable {
    public let customerId: String
    public let isTester: Bool
    public let orders: [OrderRecord]
    public let transactions: [TransactionRecord]
    public let receipts: [ReceiptRecord]
    public let grants: [GrantRecord]
    public let entitlements: [EntitlementState]
    public let conflicts: [ConflictRecord]
    /// The name and email the merchant gave the customer, if any.
    public var displayName: String? = nil
    public var email: String? = nil
    /// What they paid and got back, from the prices Apple signed.
    public var lifetimeSpend: LifetimeSpend? = nil
    /// Operators' notes on the customer, oldest first.
    public var notes: [NoteRecord] = []
    /// When and by whom the customer's personal data was erased (nil: never).
    public var erasedAt: Date? = nil
    public var erasedBy: String? = nil
}

/// What a restore moved (or, on a dry run, would move).
public struct RestoreResult: Sendable {
    public let movedTransactions: [(transactionId: String, fromCustomer: String)]
    public let importedTransactions: [String]
    public let dryRun: Bool
    /// Consumable purchases left with their owner: Apple does not restore consumables, and
    /// moving one would let it be spent twice (`includeConsumables` moves them too).
    public var consumablesLeft: [(transactionId: String, fromCustomer: String)] = []
    /// How many of the moved transactions are consumables (only with `includeConsumables`).
    public var consumablesMoved = 0
}
