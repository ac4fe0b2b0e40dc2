import Foundation

/// A unified (iOS 7+) app receipt: PKCS#7 SignedData whose content is
///
///     Payload ::= SET OF ReceiptAttribute   -- types 0…25, type 17 once per in-app purchase
///
/// Every attribute is typed where Apple documents it; unknown ones are kept raw in `attributes`.
public struct AppReceipt: Sendable {
    /// The signed container.
    public let container: SignedData
    /// The signed content: the DER `SET OF ReceiptAttribute` every attribute points into.
    public let payload: [UInt8]
    /// Field 0 as written: Production, ProductionSandbox, Sandbox, Xcode.
    public var receiptType: String?
    public var appItemId: Int64?
    public var bundleId: String?
    /// The bundle-id attribute's value bytes (the DER UTF8String, tag and length included): the
    /// device-hash input. Copied out of `payload` when asked for.
    public var bundleIdData: [UInt8] {
        get { bundleIdBytes.value(in: payload) ?? [] }
        set { bundleIdBytes.set(newValue) }
    }
    public var appVersion: String?
    /// Field 4, copied out of `payload` when asked for.
    public var opaqueValue: [UInt8]? {
        get { opaqueBytes.value(in: payload) }
        set { opaqueBytes.set(newValue) }
    }
    /// Field 5, copied out of `payload` when asked for.
    public var sha1Hash: [UInt8]? {
        get { hashBytes.value(in: payload) }
        set { hashBytes.set(newValue) }
    }
    private var bundleIdBytes: PayloadBytes, opaqueBytes: PayloadBytes, hashBytes: PayloadBytes
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
    public var inApp: [InAppPurchase]
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
        let payload = container.content
        self.payload = payload
        var attributes: [ReceiptAttribute] = []
        var decoded = Fields()
        try payload.withUnsafeBufferPointer { bytes in
            let what = "unified receipt"
            guard !bytes.isEmpty else { throw ReceiptError(.missingField, "\(what): the signed content is empty") }
            let set = try TLVScanner.scan(bytes, at: 0, end: bytes.count, depth: 0, maxDepth: ASN1Limits.default.maxDepth)
            guard set.tag == .set else {
                throw ReceiptError(.unexpectedTag, "\(what) payload: expected SET, found \(set.tag)")
            }
            guard set.end == bytes.count else {
                throw ReceiptError(.trailingBytes, "\(what) payload: \(Plural.of(bytes.count - set.end, "unexpected byte")) at byte \(set.end)")
            }
            var cursor = set.contentStart
            attributes.reserveCapacity(min((set.contentEnd - set.contentStart) / 10 + 1, 64))
            while cursor < set.contentEnd {
                let tlv = try TLVScanner.scan(bytes, at: cursor, end: set.contentEnd, depth: 1, maxDepth: ASN1Limits.default.maxDepth)
                cursor = tlv.end
                let field = try ReceiptAttribute.read(bytes, tlv, depth: 1, { what })
                attributes.append(field)
                try decoded.take(field, bytes, end: set.contentEnd)
            }
        }
        self.attributes = attributes
        (receiptType, appItemId, bundleId, appVersion, transactionDate, fulfillmentToolVersion, ageRating, developerId,
         creationDate, downloadId, installerVersionId, originalPurchaseDate, originalAppVersion, expirationDate, inApp) =
            (decoded.receiptType, decoded.appItemId, decoded.bundleId, decoded.appVersion, decoded.transactionDate,
             decoded.fulfillmentToolVersion, decoded.ageRating, decoded.developerId, decoded.creationDate, decoded.downloadId,
             decoded.installerVersionId, decoded.originalPurchaseDate, decoded.originalAppVersion, decoded.expirationDate, decoded.inApp)
        bundleIdBytes = PayloadBytes(decoded.bundleIdRange)
        opaqueBytes = PayloadBytes(decoded.opaqueRange)
        hashBytes = PayloadBytes(decoded.hashRange)
    }

    /// The typed app-level fields, filled attribute by attribute.
    private struct Fields {
        var receiptType: String?, appItemId: Int64?, bundleId: String?, appVersion: String?
        var bundleIdRange: Range<Int>?, opaqueRange: Range<Int>?, hashRange: Range<Int>?
        var transactionDate: Date?, fulfillmentToolVersion: Int64?, ageRating: String?, developerId: Int64?
        var creationDate: Date?, downloadId: Int64?, installerVersionId: Int64?, originalPurchaseDate: Date?
        var originalAppVersion: String?, expirationDate: Date?
        var inApp: [InAppPurchase] = []

        /// Takes `field`, one of the attributes of the SET ending at `end`.
        mutating func take(_ field: ReceiptAttribute, _ bytes: UnsafeBufferPointer<UInt8>, end: Int) throws {
            // Built only when an error needs it.
            func name() -> String { "unified receipt: field \(field.type) (\(ReceiptFieldNames.app[field.type] ?? "unknown"))" }
            switch field.type {
            // The long values as literals: no String to allocate (the short ones fit in place).
            case 0: receiptType = try field.string(bytes, reusing: "ProductionSandbox", "ProductionVPPSandbox", name)
            case 1: appItemId = try field.integer(bytes, name)
            case 2:
                bundleId = try field.string(bytes, name)
                bundleIdRange = field.valueRange
            case 3: appVersion = try field.string(bytes, name)
            case 4: opaqueRange = field.valueRange
            case 5: hashRange = field.valueRange
            case 8: transactionDate = try field.date(bytes, name)
            case 9: fulfillmentToolVersion = try field.integer(bytes, name)
            case 10: ageRating = try field.string(bytes, name)
            case 11: developerId = try field.integer(bytes, name)
            case 12: creationDate = try field.date(bytes, name)
            case 15: downloadId = try field.integer(bytes, name)
            case 16: installerVersionId = try field.integer(bytes, name)
            case 17:
                guard inApp.count < AppReceipt.maxPurchases else {
                    throw ReceiptError(.tooLarge, "unified receipt: more than \(AppReceipt.maxPurchases) in-app purchases")
                }
                if inApp.isEmpty {
                    // Room for as many purchases of this one's size as the rest of the SET could hold.
                    let size = max(field.valueRange.upperBound - field.offset, 1)
                    inApp.reserveCapacity(min((end - field.offset) / size + 1, AppReceipt.maxPurchases))
                }
                let last = inApp.count - 1
                let previous = last < 0 ? (nil, nil) : (inApp[last].productId, inApp[last].originalTransactionId)
                inApp.append(try InAppPurchase(bytes, field, index: inApp.count, previous: previous))
            case 18: originalPurchaseDate = try field.date(bytes, name)
            case 19: originalAppVersion = try field.string(bytes, name)
            case 21: expirationDate = try field.date(bytes, name)
            default: break
            }
        }
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
