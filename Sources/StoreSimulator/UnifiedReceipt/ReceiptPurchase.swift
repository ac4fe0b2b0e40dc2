import Foundation
import ReceiptCore

/// One in-app purchase of a unified receipt, from readable values. Written as the value of an
/// attribute 17:
///
///     InAppReceipt ::= SET OF ReceiptAttribute      -- DER order
///       1701 quantity INTEGER            1702 product_id UTF8String     1703 transaction_id UTF8String
///       1704 purchase_date IA5String     1705 original_transaction_id   1706 original_purchase_date IA5String
///       1707 product_type INTEGER        1708 expires_date IA5String    1711 web_order_line_item_id INTEGER
///       1712 cancellation_date IA5String 1713 is_trial_period INTEGER   1719 is_in_intro_offer_period INTEGER
///       1721 promotional_offer_id UTF8String
public struct ReceiptPurchase: Sendable {
    /// Field 1701.
    public var quantity: Int64
    /// Field 1702.
    public var productId: String
    /// Field 1703.
    public var transactionId: String
    /// Field 1705.
    public var originalTransactionId: String
    /// Field 1704.
    public var purchaseDate: Date?
    /// Field 1706.
    public var originalPurchaseDate: Date?
    /// Field 1708 (subscriptions).
    public var expiresDate: Date?
    /// Field 1712 (refunds).
    public var cancellationDate: Date?
    /// Field 1707: 0 non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable; nil omits it.
    public var productTypeCode: Int64?
    /// Field 1711; nil omits it.
    public var webOrderLineItemId: Int64?
    /// Field 1713; nil omits it.
    public var isTrialPeriod: Bool?
    /// Field 1719; nil omits it.
    public var isInIntroOfferPeriod: Bool?
    /// Field 1721; nil omits it.
    public var promotionalOfferId: String?
    /// Attributes written after the ones above (unknown types, or a second copy of a known one).
    public var extraAttributes: [RawReceiptAttribute]

    /// A purchase; the original transaction id defaults to the transaction id and the original
    /// purchase date to the purchase date, as for a first purchase.
    public init(productId: String, transactionId: String, originalTransactionId: String? = nil,
                purchaseDate: Date?, originalPurchaseDate: Date? = nil, expiresDate: Date? = nil,
                cancellationDate: Date? = nil, quantity: Int64 = 1, productTypeCode: Int64? = nil,
                webOrderLineItemId: Int64? = nil, isTrialPeriod: Bool? = false, isInIntroOfferPeriod: Bool? = false,
                promotionalOfferId: String? = nil, extraAttributes: [RawReceiptAttribute] = []) {
        self.quantity = quantity
        self.productId = productId
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId ?? transactionId
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate ?? purchaseDate
        self.expiresDate = expiresDate
        self.cancellationDate = cancellationDate
        self.productTypeCode = productTypeCode
        self.webOrderLineItemId = webOrderLineItemId
        self.isTrialPeriod = isTrialPeriod
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
        self.promotionalOfferId = promotionalOfferId
        self.extraAttributes = extraAttributes
    }

    /// The attributes of this purchase, in the order given (the SET is sorted when encoded).
    func attributes(absentDates: AbsentDateStyle, undocumented: Bool) -> [RawReceiptAttribute] {
        var list: [RawReceiptAttribute] = [
            .integer(1701, quantity), .utf8(1702, productId), .utf8(1703, transactionId),
            .utf8(1705, originalTransactionId),
        ]
        func date(_ type: Int, _ value: Date?) {
            if value != nil || absentDates == .emptyString { list.append(.date(type, value)) }
        }
        date(1704, purchaseDate)
        date(1706, originalPurchaseDate)
        date(1708, expiresDate)
        date(1712, cancellationDate)
        if let productTypeCode { list.append(.integer(1707, productTypeCode)) }
        if let webOrderLineItemId { list.append(.integer(1711, webOrderLineItemId)) }
        if let isTrialPeriod { list.append(.integer(1713, isTrialPeriod ? 1 : 0)) }
        if let isInIntroOfferPeriod { list.append(.integer(1719, isInIntroOfferPeriod ? 1 : 0)) }
        if let promotionalOfferId { list.append(.utf8(1721, promotionalOfferId)) }
        if undocumented {
            // What real receipts carry in the types Apple does not document (values as observed).
            list += [.utf8(1709, ""), .integer(1710, 0), .utf8(1714, ""), .utf8(1715, ""), .utf8(1716, ""),
                     .utf8(1717, ""), .utf8(1718, ""), .integer(1722, 0)]
        }
        return list + extraAttributes
    }

    /// The DER SET that is the value of this purchase's attribute 17.
    func der(absentDates: AbsentDateStyle, undocumented: Bool) -> [UInt8] {
        DER.set(attributes(absentDates: absentDates, undocumented: undocumented).map(\.der), sorted: true)
    }
}
