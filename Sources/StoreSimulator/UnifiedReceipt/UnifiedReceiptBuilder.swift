import Foundation
import ReceiptCore

/// Builds a unified (iOS 7+) app receipt from readable values and signs it with a test authority,
/// laid out as Apple does (see `SignedDataWriter` for the container). The signed content is
///
///     Payload ::= SET OF ReceiptAttribute   -- DER order
///       0 receipt type UTF8String      1 app item id INTEGER          2 bundle id UTF8String
///       3 app version UTF8String       4 opaque value (bytes, version 2)  5 SHA-1 hash (bytes)
///       8 transaction date IA5String   9 fulfillment tool version     10 age rating IA5String
///       11 developer id INTEGER        12 creation date IA5String      15 download id INTEGER
///       16 installer version id        17 in-app purchase SET (one per purchase)
///       18 original purchase date      19 original app version UTF8String  21 expiration date
///
/// Dates are RFC 3339 UTC (`2025-12-26T18:39:47Z`). Field 5 is
/// SHA-1(device identifier ‖ opaque value ‖ DER UTF8String of the bundle id), as devices check it.
public struct UnifiedReceiptBuilder: Sendable {
    /// Field 0: "Production", "ProductionSandbox", "Sandbox", "Xcode".
    public var receiptType: String = "ProductionSandbox"
    /// Field 1 (0 outside production).
    public var appItemId: Int64 = 0
    /// Field 2 (also the last input of the field-5 hash).
    public var bundleId: String
    /// Field 3.
    public var appVersion: String
    /// Field 19 ("1.0" in sandbox); nil omits it.
    public var originalAppVersion: String? = "1.0"
    /// Field 12.
    public var creationDate: Date
    /// Field 8.
    public var transactionDate: Date?
    /// Field 18.
    public var originalPurchaseDate: Date?
    /// Field 21, written only when set (Apple writes it for VPP and Xcode receipts).
    public var expirationDate: Date?
    /// Field 4: the hash input the device got with the receipt.
    public var opaqueValue: [UInt8] = Array(0x10...0x1F)
    /// The 16 bytes the device hashes (its identifierForVendor UUID on iOS); see `deviceIdentifier(_:)`.
    public var deviceIdentifier: [UInt8] = [UInt8](repeating: 0, count: 16)
    /// Written as field 5 instead of the computed hash (for hash-mismatch tests).
    public var sha1HashOverride: [UInt8]?
    /// Field 9; nil omits it.
    public var fulfillmentToolVersion: Int64?
    /// Field 10 ("4+", an IA5String); nil omits it.
    public var ageRating: String?
    /// Field 11; nil omits it.
    public var developerId: Int64?
    /// Field 15; nil omits it.
    public var downloadId: Int64?
    /// Field 16; nil omits it.
    public var installerVersionId: Int64?
    /// One field 17 each.
    public var purchases: [ReceiptPurchase] = []
    /// App-level attributes written after the ones above.
    public var extraAttributes: [RawReceiptAttribute] = []
    /// Also write the reserved and undocumented attributes real receipts carry (6, 7, 13, 14, 20,
    /// 25; in-app 1709, 1710, 1714–1718, 1722), with the values seen in Apple's receipts.
    public var includeUndocumentedAttributes = false
    /// What absent dates (8, 18, 1704, 1706, 1708, 1712) become; 21 is always omitted when nil.
    public var absentDates: AbsentDateStyle = .emptyString
    /// The signature digest: SHA-256 since 2023, SHA-1 before.
    public var digest: DigestAlgorithm = .sha256
    /// The certificates embedded in the receipt instead of the signer's leaf, intermediate, root.
    public var certificatesOverride: [Certificate]?

    /// A sandbox receipt ("ProductionSandbox", original version "1.0") with the given basics.
    public init(bundleId: String, appVersion: String, creationDate: Date, purchases: [ReceiptPurchase] = []) {
        self.bundleId = bundleId
        self.appVersion = appVersion
        self.creationDate = creationDate
        self.purchases = purchases
    }

    /// The 16 bytes of a UUID, as iOS hashes its identifierForVendor.
    public static func deviceIdentifier(_ uuid: UUID) -> [UInt8] {
        withUnsafeBytes(of: uuid.uuid, Array.init)
    }

    /// Field 5 as a device computes it.
    public var computedSHA1Hash: [UInt8] {
        DigestAlgorithm.sha1.hash(deviceIdentifier + opaqueValue + DER.utf8String(bundleId))
    }

    /// Every app-level attribute, in the order given (the SET is sorted when encoded).
    public func attributes() -> [RawReceiptAttribute] {
        var list: [RawReceiptAttribute] = [
            .utf8(0, receiptType), .integer(1, appItemId), .utf8(2, bundleId), .utf8(3, appVersion),
            RawReceiptAttribute(type: 4, version: 2, value: opaqueValue),
            RawReceiptAttribute(type: 5, value: sha1HashOverride ?? computedSHA1Hash),
            .date(12, creationDate),
        ]
        func optionalDate(_ type: Int, _ value: Date?) {
            if value != nil || absentDates == .emptyString { list.append(.date(type, value)) }
        }
        optionalDate(8, transactionDate)
        optionalDate(18, originalPurchaseDate)
        if let expirationDate { list.append(.date(21, expirationDate)) }
        if let originalAppVersion { list.append(.utf8(19, originalAppVersion)) }
        if let fulfillmentToolVersion { list.append(.integer(9, fulfillmentToolVersion)) }
        if let ageRating { list.append(.ia5(10, ageRating)) }
        if let developerId { list.append(.integer(11, developerId)) }
        if let downloadId { list.append(.integer(15, downloadId)) }
        if let installerVersionId { list.append(.integer(16, installerVersionId)) }
        if includeUndocumentedAttributes {
            // Reserved fields as real receipts hold them: two opaque blobs, two integers, an empty
            // string and the constant 3.
            list += [RawReceiptAttribute(type: 6, value: DigestAlgorithm.sha256.hash(opaqueValue + [6])),
                     RawReceiptAttribute(type: 7, value: DigestAlgorithm.sha256.hash(opaqueValue + [7])),
                     .integer(13, 180_602), .integer(14, 229), .ia5(20, ""), .integer(25, 3)]
        }
        for purchase in purchases {
            list.append(RawReceiptAttribute(type: 17, value: purchase.der(absentDates: absentDates,
                                                                          undocumented: includeUndocumentedAttributes)))
        }
        return list + extraAttributes
    }

    /// The signed content: the DER SET OF ReceiptAttribute.
    public func payload() -> [UInt8] {
        DER.set(attributes().map(\.der), sorted: true)
    }

    /// The receipt signed by `authority`'s receipt chain.
    public func build(signedBy authority: TestCertificateAuthority) throws -> BuiltUnifiedReceipt {
        try build(signedBy: authority.receiptChain)
    }

    /// The receipt signed by `chain`'s leaf, embedding leaf, intermediate and root (or
    /// `certificatesOverride`).
    public func build(signedBy chain: SigningChain) throws -> BuiltUnifiedReceipt {
        let content = payload()
        let written = try SignedDataWriter.write(content: content, signer: chain.leaf,
                                                 certificates: certificatesOverride ?? chain.certificates, digest: digest)
        return BuiltUnifiedReceipt(der: written.der, payload: content, signature: written.signature)
    }
}

/// A signed unified receipt.
public struct BuiltUnifiedReceipt: Sendable {
    /// The DER PKCS#7 ContentInfo: what `Bundle.main.appStoreReceiptURL` would hold.
    public let der: [UInt8]
    /// The signed content (the attribute SET).
    public let payload: [UInt8]
    /// The signer's RSA PKCS#1 v1.5 signature over `payload`.
    public let signature: [UInt8]

    /// The receipt as base64, as apps send it (`receipt-data`).
    public var base64: String { Data(der).base64EncodedString() }
}
