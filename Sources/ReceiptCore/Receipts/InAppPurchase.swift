import Foundation

/// One in-app purchase inside a unified receipt (attribute 17), typed:
///
///     InAppReceipt ::= SET OF ReceiptAttribute   -- types 1701…1722
public struct InAppPurchase: Sendable {
    public var quantity: Int64?
    public var productId: String?
    public var transactionId: String?
    public var originalTransactionId: String?
    public var purchaseDate: Date?
    public var originalPurchaseDate: Date?
    /// Field 1707 as written.
    public var productTypeCode: Int64?
    public var expiresDate: Date?
    public var webOrderLineItemId: Int64?
    public var cancellationDate: Date?
    public var isTrialPeriod: Bool?
    public var isInIntroOfferPeriod: Bool?
    public var promotionalOfferId: String?
    /// Every attribute in the order the receipt holds them, known and unknown (ranges into the
    /// receipt's payload).
    public private(set) var attributes: [ReceiptAttribute] = []

    /// The most attributes one purchase may have.
    static let maxAttributes = 256

    /// Attributes this decoder has no meaning for, kept raw.
    public var unknownAttributes: [ReceiptAttribute] {
        attributes.filter { ReceiptFieldNames.inApp[$0.type] == nil }
    }

    /// Decodes the SET inside an attribute-17 value. `previous` is the purchase before it, whose
    /// product id and original transaction id a renewal repeats (reused, not made again).
    init(_ bytes: UnsafeBufferPointer<UInt8>, _ attribute: ReceiptAttribute, index: Int,
         previous: (productId: String?, originalTransactionId: String?) = (nil, nil)) throws {
        func what() -> String { "unified receipt: in_app[\(index)]" }
        guard let set = try attribute.inner(bytes, { "\(what()) (field 17)" }) else {
            throw ReceiptError(.missingField, "\(what()) (field 17) at byte \(attribute.offset) is empty")
        }
        guard set.tag == .set else {
            throw ReceiptError(.unexpectedTag, "\(what()) (field 17) at byte \(set.headerStart): expected SET, found \(set.tag)")
        }
        var cursor = set.contentStart
        // One allocation for the usual purchase: an attribute takes at least 10 bytes.
        attributes.reserveCapacity(min((set.contentEnd - set.contentStart) / 10 + 1, InAppPurchase.maxAttributes))
        while cursor < set.contentEnd {
            guard attributes.count < InAppPurchase.maxAttributes else {
                throw ReceiptError(.tooLarge, "\(what()): more than \(InAppPurchase.maxAttributes) attributes")
            }
            let tlv = try TLVScanner.scan(bytes, at: cursor, end: set.contentEnd, depth: 6, maxDepth: ASN1Limits.default.maxDepth)
            cursor = tlv.end
            let field = try ReceiptAttribute.read(bytes, tlv, depth: 6, what)
            attributes.append(field)
            // Built only when an error needs it.
            func name() -> String { "\(what()) field \(field.type) (\(ReceiptFieldNames.inApp[field.type] ?? "unknown"))" }
            switch field.type {
            case 1701: quantity = try field.integer(bytes, name)
            case 1702: productId = try field.string(bytes, reusing: previous.productId, nil, name)
            case 1703: transactionId = try field.string(bytes, reusing: originalTransactionId, nil, name)
            case 1704: purchaseDate = try field.date(bytes, name)
            case 1705: originalTransactionId = try field.string(bytes, reusing: transactionId, previous.originalTransactionId, name)
            case 1706: originalPurchaseDate = try field.date(bytes, name)
            case 1707: productTypeCode = try field.integer(bytes, name)
            case 1708: expiresDate = try field.date(bytes, name)
            case 1711: webOrderLineItemId = try field.integer(bytes, name)
            case 1712: cancellationDate = try field.date(bytes, name)
            case 1713: isTrialPeriod = try field.flag(bytes, name)
            case 1719: isInIntroOfferPeriod = try field.flag(bytes, name)
            case 1721: promotionalOfferId = try field.string(bytes, name)
            default: break
            }
        }
    }

    /// This purchase in the shape shared by every format.
    public var purchase: Purchase {
        var p = Purchase()
        p.transactionId = transactionId
        p.originalTransactionId = originalTransactionId
        p.productId = productId
        p.quantity = quantity
        p.purchaseDate = purchaseDate
        p.originalPurchaseDate = originalPurchaseDate
        p.expiresDate = expiresDate
        p.cancellationDate = cancellationDate
        p.webOrderLineItemId = webOrderLineItemId.map(String.init)
        p.isTrialPeriod = isTrialPeriod
        p.isInIntroOfferPeriod = isInIntroOfferPeriod
        p.promotionalOfferId = promotionalOfferId
        p.productTypeRaw = productTypeCode.map(String.init)
        p.productType = productTypeCode.flatMap(ProductType.init(receiptCode:))
        return p
    }
}
