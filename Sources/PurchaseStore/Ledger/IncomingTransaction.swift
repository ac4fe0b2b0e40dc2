import Foundation
import ReceiptCore

/// A transaction as an artefact states it, before the ledger records it.
struct IncomingTransaction {
    let transactionId: String
    let originalTransactionId: String?
    let productId: String
    let productType: ProductType?
    let environment: Environment
    let purchaseDate: Date?
    let expiresDate: Date?
    var revocationDate: Date?
    let cancellationDate: Date?
    let quantity: Int64
    let appAccountToken: String?
    let webOrderLineItemId: String?
    /// The app download it was bought in (StoreKit 2 transactions); links the customer's purchases.
    var appTransactionId: String? = nil
    /// What was paid (milliunits of `currency`), when Apple signed it.
    var price: Int64? = nil
    var currency: String? = nil
    /// `PURCHASED` / `FAMILY_SHARED` as written.
    var ownershipType: String? = nil
    /// Apple's `revocationType` as written, and `revocationPercentage` (milliunits of a percent).
    var revocationTypeRaw: String? = nil
    var revocationPercentage: Int64? = nil
    /// Apple's `isUpgraded` (nil: not said).
    var isUpgraded: Bool? = nil
    /// A 12-month commitment plan: `billingPlanType` as written, and `commitmentInfo`.
    var billingPlanType: String? = nil
    var commitment: TransactionCommitment? = nil
    /// This transaction's own offer and when Apple signed the JWS that says it (nil when the
    /// artefact is not its signed transaction: a receipt, an answer's purchase list).
    var offer: TransactionOffer? = nil

    /// Whether a family organiser shares it (the member's own copy).
    var isFamilyShared: Bool { ownershipType == OwnershipType.familyShared.rawValue }

    /// Every transaction a verified artefact carries, once each by transaction id, in purchase order.
    /// Purchases without a transaction id or product id cannot be recorded and are reported in `skipped`.
    static func all(in artefact: DecodedArtefact) -> (transactions: [IncomingTransaction], skipped: [String]) {
        let summary = artefact.summary
        let found = from(summary.purchases, environment: summary.environment.environment)
        let signed: SignedTransaction?
        switch artefact {
        case .transaction(let transaction): signed = transaction
        case .notification(let notification): signed = notification.transaction
        default: signed = nil
        }
        guard let signed else { return found }
        return (found.transactions.map { $0.withOffer(of: signed) }, found.skipped)
    }

    /// The same transaction with the offer `signed` states, when `signed` is its own JWS.
    func withOffer(of signed: SignedTransaction) -> IncomingTransaction {
        guard signed.purchase.transactionId == transactionId, let offer = TransactionOffer(signed) else { return self }
        var copy = self
        copy.offer = offer
        return copy
    }

    /// The recordable transactions among `purchases`, once each, in purchase order.
    static func from(_ purchases: [Purchase], environment: Environment) -> (transactions: [IncomingTransaction], skipped: [String]) {
        var seen = Set<String>()
        var result: [IncomingTransaction] = []
        var skipped: [String] = []
        for purchase in purchases {
            guard let id = purchase.transactionId, !id.isEmpty, let product = purchase.productId, !product.isEmpty else {
                skipped.append("a purchase without a transaction id or product id was not recorded")
                continue
            }
            guard seen.insert(id).inserted else { continue }
            result.append(IncomingTransaction(
                transactionId: id, originalTransactionId: purchase.originalTransactionId, productId: product,
                productType: purchase.productType, environment: environment,
                purchaseDate: purchase.purchaseDate, expiresDate: purchase.expiresDate,
                revocationDate: purchase.revocationDate, cancellationDate: purchase.cancellationDate,
                quantity: max(1, purchase.quantity ?? 1), appAccountToken: purchase.appAccountToken,
                webOrderLineItemId: purchase.webOrderLineItemId, appTransactionId: purchase.appTransactionId,
                price: purchase.price, currency: purchase.currency.map { String($0.prefix(3)) }, ownershipType: purchase.ownershipType,
                revocationTypeRaw: purchase.revocationTypeRaw, revocationPercentage: purchase.revocationPercentage,
                isUpgraded: purchase.isUpgraded, billingPlanType: purchase.billingPlanTypeRaw, commitment: purchase.commitment))
        }
        result.sort { ($0.purchaseDate ?? .distantPast, $0.transactionId) < ($1.purchaseDate ?? .distantPast, $1.transactionId) }
        return (result, skipped)
    }

    var isRefunded: Bool { revocationDate != nil || cancellationDate != nil }
}
