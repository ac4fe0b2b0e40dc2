import Foundation
import ReceiptCore

/// A subscription's current period: its newest transaction in the ledger (latest purchase date,
/// then highest transaction id) with that transaction's own offer, as its signed JWS states it.
/// What "in a free offer period" is decided from: not `subscription_states`' offer, which mixes
/// the renewal info's offer for the next renewal with an earlier transaction's. An older
/// transaction recorded later (a re-import, a late notification about the trial) never becomes
/// the newest, so it cannot make a paid period look free again.
struct CurrentPeriod: Sendable, Equatable {
    let transactionId: String
    let purchaseDate: Date
    let expiresDate: Date?
    let revocationDate: Date?
    /// The offer its signed transaction states (nil: only seen in a receipt, offer unknown).
    let offer: TransactionOffer?

    /// Until when the period is free at `now` (its offer is FREE_TRIAL, it is not revoked and has
    /// not expired), else nil.
    func freeUntil(_ now: Date) -> Date? {
        guard let offer, offer.isFree, revocationDate == nil, let expiresDate, expiresDate > now else { return nil }
        return expiresDate
    }
}

extension PurchaseLedger {
    /// The current period of the subscription `original` (its newest transaction), or nil when the
    /// ledger has none with a purchase date.
    func currentPeriod(original: String) throws -> CurrentPeriod? {
        guard let row = try database.queryFirst("""
            SELECT transaction_id, purchase_date, expires_date, revocation_date, offer_type, offer_identifier, offer_period,
                   offer_discount_type, signed_date
            FROM transactions WHERE (original_transaction_id = ? OR transaction_id = ?) AND purchase_date IS NOT NULL
            ORDER BY purchase_date DESC, transaction_id DESC LIMIT 1
            """, [.text(original), .text(original)]),
            let id = row.string("transaction_id"), let purchased = row.date("purchase_date") else { return nil }
        let offer = row.date("signed_date").map {
            TransactionOffer(offerType: row.int("offer_type"), identifier: row.string("offer_identifier"), period: row.string("offer_period"),
                             discountType: row.string("offer_discount_type"), signedDate: $0)
        }
        return CurrentPeriod(transactionId: id, purchaseDate: purchased, expiresDate: row.date("expires_date"),
                             revocationDate: row.date("revocation_date"), offer: offer)
    }
}
