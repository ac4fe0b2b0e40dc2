import Foundation
import ReceiptCore

/// One transaction's own offer, as its signed transaction (JWS) states it: the offer that priced
/// that transaction's period (a free trial's transaction says FREE_TRIAL; the paid renewal after
/// it says none). Not the renewal info's offer, which is for the next renewal. Stored with the
/// transaction (migration 0017) from the first JWS of it the ledger records, with that JWS's
/// signing date, so a decision taken from it can name the signed value.
struct TransactionOffer: Sendable, Equatable {
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back; nil: no offer priced this period.
    var offerType: Int64?
    var identifier: String?
    /// ISO 8601 duration ("P1M").
    var period: String?
    /// "FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT", "ONE_TIME", as written.
    var discountType: String?
    /// When Apple signed the JWS this was read from.
    var signedDate: Date

    /// The offer `signed` states about its own transaction (none is a fact too); nil when the JWS
    /// carries no signing date, so nothing could name what it was read from.
    init?(_ signed: SignedTransaction) {
        guard let signedDate = signed.signedDate else { return nil }
        offerType = signed.offerType
        identifier = signed.offerIdentifier
        period = signed.offerPeriod
        discountType = signed.offerDiscountTypeRaw
        self.signedDate = signedDate
    }

    /// An offer read back from a stored row.
    init(offerType: Int64?, identifier: String?, period: String?, discountType: String?, signedDate: Date) {
        self.offerType = offerType
        self.identifier = identifier
        self.period = period
        self.discountType = discountType
        self.signedDate = signedDate
    }

    /// Whether the period is free (`offerDiscountType` FREE_TRIAL: a free trial, or a free
    /// promotional, offer code or win-back period).
    var isFree: Bool { discountType == OfferDiscountType.freeTrial.rawValue }

    /// The offer in words ("introductory offer (free trial, P1W)"); nil without one.
    var name: String? { Self.name(type: offerType, identifier: identifier, discountType: discountType, period: period) }

    /// An offer in words, as the console and the reasons write it ("promotional offer SPRING (free
    /// trial, P1M)"); nil without an offer type.
    static func name(type offerType: Int64?, identifier: String?, discountType: String?, period: String?) -> String? {
        guard let offerType else { return nil }
        let kind: String
        switch offerType {
        case 1: kind = "introductory offer"
        case 2: kind = "promotional offer"
        case 3: kind = "offer code"
        case 4: kind = "win-back offer"
        default: kind = "offer type \(offerType)"
        }
        let discount = discountType.map { OfferDiscountType(rawValue: $0)?.words ?? $0 }
        let details = [discount, period].compactMap { $0 }
        return (identifier.map { "\(kind) \($0)" } ?? kind) + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))")
    }

    /// The values of its columns, in the order `TransactionOffer.columns` names them.
    var values: [SQLValue] {
        [.integer(offerType), .text(identifier), .text(period), .text(discountType), .date(signedDate)]
    }

    /// Its columns of `transactions`.
    static let columns = ["offer_type", "offer_identifier", "offer_period", "offer_discount_type", "signed_date"]
}

extension PurchaseLedger {
    /// Records a transaction's own offer from its signed JWS, once: a row first seen in a receipt
    /// (no `signed_date`) learns it from the first JWS of it; a row that has one keeps it (a
    /// transaction's offer never changes, and the signed value a decision names stays the same).
    /// Inside the caller's write transaction, under the transaction's write key.
    func fillOffer(_ fact: IncomingTransaction) throws {
        guard let offer = fact.offer else { return }
        try database.execute("""
            UPDATE transactions SET offer_type = ?, offer_identifier = ?, offer_period = ?, offer_discount_type = ?, signed_date = ?
            WHERE transaction_id = ? AND signed_date IS NULL
            """, offer.values + [.text(fact.transactionId)])
    }
}
