import Foundation

/// What Apple's refund types, Family Sharing and upgrades do to a purchase source. The rules
/// (also in the README, "What changes an entitlement"):
///
/// - **Full refund** (`REFUND_FULL`, or no type: every refund before API 1.19): the source ends at
///   the revocation date.
/// - **Prorated refund** (`REFUND_PRORATED` with `revocationPercentage` p): Apple refunded the
///   share p of the transaction and the merchant kept the rest, so the customer keeps what the
///   kept money paid for. For a subscription period (auto-renewable, non-renewing with a
///   duration) that is the first (1 − p) of the period: access ends at
///   purchase + (1 − p) × (end − purchase), whenever Apple processed the refund. Apple bases p on
///   the time left in the period, so that instant is about the refund's date; when Apple
///   refunded less than the time left, the customer keeps what they still paid for. For
///   consumables the kept units are ⌊(1 − p) × units⌋. A non-consumable cannot be part-owned: it
///   is revoked at the revocation date, as a full refund. A prorated refund without a percentage
///   is treated as full, and flagged.
/// - **Family revoke** (`FAMILY_REVOKE`): only this transaction, the family member's own copy,
///   ends; the organiser's purchase is another transaction and is untouched.
/// - **Family shared** (`inAppOwnershipType` `FAMILY_SHARED`): grants like a purchase, flagged
///   "family shared". A family-shared copy of a purchase the same customer made themselves (same
///   original transaction) grants nothing of its own: the customer's purchase counts once.
/// - **Upgrade** (`isUpgraded`): the period stops granting at the upgrade (its revocation or
///   cancellation date, else the purchase of the product upgraded to) and says "upgraded to …".
enum EntitlementChanges {
    /// How a source ends, after Apple's word.
    enum Ending {
        case expired
        case revoked(RevocationType?)
        case cancelled
        /// Prorated refund: the end of the part not refunded.
        case prorated(percentage: Int64, refundedAt: Date?)
        /// Upgraded to this product (nil: not known).
        case upgraded(to: String?)
    }

    /// The product the customer upgraded to from `transaction`, and when: the first later
    /// transaction of the same original transaction with another product.
    static func upgrade(of transaction: OwnedTransaction, among all: [OwnedTransaction]) -> (product: String, at: Date?)? {
        guard let original = transaction.originalTransactionId, let start = transaction.purchaseDate else { return nil }
        let next = all.filter {
            $0.originalTransactionId == original && $0.productId != transaction.productId
                && ($0.purchaseDate.map { $0 >= start } ?? false) && $0.transactionId != transaction.transactionId
        }.min { ($0.purchaseDate ?? .distantFuture) < ($1.purchaseDate ?? .distantFuture) }
        return next.map { ($0.productId, $0.purchaseDate) }
    }

    /// The transaction ids of family-shared copies whose original transaction the same customer
    /// also bought themselves: counted once, as the customer's own purchase.
    static func familyCopiesOfOwnPurchases(_ transactions: [OwnedTransaction]) -> Set<String> {
        let own = Set(transactions.filter { !$0.isFamilyShared }.compactMap(\.originalTransactionId))
        return Set(transactions.filter { $0.isFamilyShared && $0.originalTransactionId.map(own.contains) == true }.map(\.transactionId))
    }

    /// The end of the part of [start, end) a prorated refund of `percentage` keeps.
    static func keptEnd(start: Date, end: Date, percentage: Int64) -> Date {
        start.addingTimeInterval(end.timeIntervalSince(start) * RevocationPercentage.keptFraction(percentage))
    }

    /// The words for a revocation that ended a source at `date`.
    static func revokedReason(_ entitlement: String, _ type: RevocationType?, raw: String?, percentage: Int64?, date: String, id: String) -> String {
        switch type {
        case .familyRevoke?:
            return "\(entitlement) family sharing revoked \(date): this family member's access ended, the organiser's purchase is untouched (transaction \(id))"
        case .refundFull?:
            return "\(entitlement) revoked by Apple \(date): full refund (transaction \(id))"
        case .refundProrated?:
            return "\(entitlement) revoked by Apple \(date): prorated refund \(percentage.map(RevocationPercentage.format) ?? "of an unknown share") (transaction \(id))"
        case nil:
            let kind = RevocationType.describe(raw: raw, percentage: percentage).map { ": \($0)" } ?? ""
            return "\(entitlement) revoked by Apple \(date)\(kind) (transaction \(id))"
        }
    }
}
