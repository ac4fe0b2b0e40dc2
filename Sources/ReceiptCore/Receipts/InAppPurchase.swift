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
    /// Every attribute in the order the receipt holds them, known and unknown.
    public let attributes: [ReceiptAttribute]

    /// Attributes this decoder has no meaning for, kept raw.
    public var unknownAttributes: [ReceiptAttribute] {
        attributes.filter { ReceiptFieldNames.inApp[$0.type] == nil }
    }

    /// Decodes the SET inside an attribute-17 value.
    init(_ attribute: ReceiptAttribute, index: Int) throws {
        let what = "unified receipt: in_app[\(index)]"
        var reader = attribute.valueReader()
        let set = try reader.read(.set, "\(what) (field 17)")
        try reader.finish("\(what) (field 17)")
        var fields = set.children()
        var attributes: [ReceiptAttribute] = []
        while let node = try fields.readIfPresent() {
            guard attributes.count < 256 else { throw ReceiptError(.tooLarge, "\(what): more than 256 attributes") }
            let field = try ReceiptAttribute(node, what: what)
            attributes.append(field)
            let name = "\(what) field \(field.type) (\(ReceiptFieldNames.inApp[field.type] ?? "unknown"))"
            switch field.type {
            case 1701: quantity = try field.integer(name)
            case 1702: productId = try field.string(name)
            case 1703: transactionId = try field.string(name)
            case 1704: purchaseDate = try field.date(name)
            case 1705: originalTransactionId = try field.string(name)
            case 1706: originalPurchaseDate = try field.date(name)
            case 1707: productTypeCode = try field.integer(name)
            case 1708: expiresDate = try field.date(name)
            case 1711: webOrderLineItemId = try field.integer(name)
            case 1712: cancellationDate = try field.date(name)
            case 1713: isTrialPeriod = try field.flag(name)
            case 1719: isInIntroOfferPeriod = try field.flag(name)
            case 1721: promotionalOfferId = try field.string(name)
            default: break
            }
        }
        self.attributes = attributes
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
