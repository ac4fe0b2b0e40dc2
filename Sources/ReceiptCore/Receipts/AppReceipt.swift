import Foundation

/// A unified (iOS 7+) app receipt: PKCS#7 SignedData whose content is
///
///     Payload ::= SET OF ReceiptAttribute   -- types 0…25, type 17 once per in-app purchase
///
/// Every attribute is typed where Apple documents it; unknown ones are kept raw in `attributes`.
public struct AppReceipt: Sendable {
    /// The signed container.
    public let container: SignedData
    /// Field 0 as written: Production, ProductionSandbox, Sandbox, Xcode.
    public var receiptType: String?
    public var appItemId: Int64?
    public var bundleId: String?
    /// The bundle-id attribute's value bytes (the DER UTF8String, tag and length included): the
    /// device-hash input.
    public var bundleIdData: [UInt8] = []
    public var appVersion: String?
    public var opaqueValue: [UInt8]?
    public var sha1Hash: [UInt8]?
    public var transactionDate: Date?
    public var fulfillmentToolVersion: Int64?
    public var ageRating: String?
    public var developerId: Int64?
    public var creationDate: Date?
    public var downloadId: Int64?
    public var installerVersionId: Int64?
    public var originalPurchaseDate: Date?
    public var originalAppVersion: String?
    public var expirationDate: Date?
    public var inApp: [InAppPurchase] = []
    /// Every app-level attribute in receipt order (in-app ones included), known and unknown.
    public let attributes: [ReceiptAttribute]

    /// The most purchases one receipt may hold (real ones reach a few hundred).
    public static let maxPurchases = 10_000

    /// Decodes a receipt from its DER (or BER, as Xcode writes) bytes.
    public init(derEncoded bytes: [UInt8]) throws {
        do {
            try self.init(decoding: bytes)
        } catch let error as ReceiptError where !error.reason.hasPrefix("unified receipt") {
            throw error.prefixed("unified receipt")
        }
    }

    private init(decoding bytes: [UInt8]) throws {
        container = try SignedData(berEncoded: bytes, what: "unified receipt")
        let what = "unified receipt"
        let payload = try ASN1Reader.parseSingle(container.content, "\(what) payload")
        guard payload.tag == .set else {
            throw ReceiptError(.unexpectedTag, "\(what) payload: expected SET, found \(payload.tag)")
        }
        var reader = payload.children()
        var attributes: [ReceiptAttribute] = []
        while let node = try reader.readIfPresent() {
            let field = try ReceiptAttribute(node, what: what)
            attributes.append(field)
            let name = "\(what): field \(field.type) (\(ReceiptFieldNames.app[field.type] ?? "unknown"))"
            switch field.type {
            case 0: receiptType = try field.string(name)
            case 1: appItemId = try field.integer(name)
            case 2:
                bundleId = try field.string(name)
                bundleIdData = Array(field.value)
            case 3: appVersion = try field.string(name)
            case 4: opaqueValue = Array(field.value)
            case 5: sha1Hash = Array(field.value)
            case 8: transactionDate = try field.date(name)
            case 9: fulfillmentToolVersion = try field.integer(name)
            case 10: ageRating = try field.string(name)
            case 11: developerId = try field.integer(name)
            case 12: creationDate = try field.date(name)
            case 15: downloadId = try field.integer(name)
            case 16: installerVersionId = try field.integer(name)
            case 17:
                guard inApp.count < AppReceipt.maxPurchases else {
                    throw ReceiptError(.tooLarge, "\(what): more than \(AppReceipt.maxPurchases) in-app purchases")
                }
                inApp.append(try InAppPurchase(field, index: inApp.count))
            case 18: originalPurchaseDate = try field.date(name)
            case 19: originalAppVersion = try field.string(name)
            case 21: expirationDate = try field.date(name)
            default: break
            }
        }
        self.attributes = attributes
    }

    /// Where the receipt says it comes from (field 0).
    public var environment: EnvironmentReading { .receiptType(receiptType) }

    /// App-level attributes this decoder has no meaning for, kept raw.
    public var unknownAttributes: [ReceiptAttribute] {
        attributes.filter { ReceiptFieldNames.app[$0.type] == nil }
    }

    /// Whether `deviceIdentifier` (16 bytes: the identifierForVendor UUID on iOS) produced this
    /// receipt: SHA-1(device id ‖ opaque value ‖ bundle-id attribute bytes) must equal field 5.
    public func matchesDevice(_ deviceIdentifier: [UInt8]) -> Bool {
        guard let opaqueValue, let sha1Hash else { return false }
        return DigestAlgorithm.sha1.hash(deviceIdentifier + opaqueValue + bundleIdData) == sha1Hash
    }
}
