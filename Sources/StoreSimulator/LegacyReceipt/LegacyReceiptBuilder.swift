import Foundation
import ReceiptCore

/// Builds an iOS 6 `transactionReceipt`: an OpenStep plist envelope
///
///     {
///     	"signature" = "<base64 of the signature blob>";
///     	"purchase-info" = "<base64 of the LegacyPurchaseInfo plist>";
///     	"environment" = "Sandbox";          -- absent in production
///     	"pod" = "100";
///     	"signing-status" = "0";
///     }
///
/// whose signature blob is (big-endian, packed):
///
///     struct signature_blob { uint8 version;            -- 2 or 3
///                             uint8 signature[128|256]; -- PKCS#1 v1.5 SHA-1 over version ‖ purchase-info bytes
///                             uint32 cert_len;
///                             uint8 certificate[cert_len]; }  -- the signer's DER certificate
///
/// Version 2 is signed by the RSA-1024 purchase-receipt leaf under the iTunes-Store-like CA;
/// version 3 by the RSA-2048 receipt-signing leaf under the WWDR-like CA, as Apple's are. The
/// intermediate is not in the blob: verifiers ship it (`TrustStore.legacyIntermediates`).
public struct LegacyReceiptBuilder: Sendable {
    /// What to do about the signature.
    public enum Signature: Sendable {
        /// A valid blob.
        case signed
        /// No `signature` key at all (as in synthetic receipts).
        case omitted
        /// A blob whose signature has one bit flipped.
        case corrupted
    }

    /// The inner plist.
    public var purchaseInfo: LegacyPurchaseInfo
    /// The envelope `environment`: "Sandbox", or nil for production (the key is then absent).
    public var environment: String? = "Sandbox"
    /// `pod`; nil omits it.
    public var pod: String? = "100"
    /// `signing-status`; nil omits it.
    public var signingStatus: String? = "0"
    /// Whether and how the receipt is signed.
    public var signature: Signature = .signed
    /// The blob's first byte: 2 (128-byte signature) or 3 (256-byte signature).
    public var blobVersion: UInt8 = 2

    /// A signed sandbox receipt for `purchaseInfo`.
    public init(purchaseInfo: LegacyPurchaseInfo) { self.purchaseInfo = purchaseInfo }

    /// The receipt signed as Apple signed its `blobVersion`: version 2 by `authority`'s legacy
    /// (RSA-1024) signer, version 3 by its receipt (RSA-2048) signer.
    public func build(signedBy authority: TestCertificateAuthority) throws -> BuiltLegacyReceipt {
        try build(signedBy: blobVersion == 3 ? authority.receiptChain.leaf : authority.legacyChain.leaf)
    }

    /// The receipt signed by `signer` (an RSA key; its certificate goes into the blob).
    public func build(signedBy signer: IssuedCertificate) throws -> BuiltLegacyReceipt {
        let info = Array(purchaseInfo.plist.utf8)
        var blob: [UInt8]?
        if signature != .omitted {
            guard !signer.privateKey.isEC else {
                throw ReceiptError(.configuration, "legacy receipt: signer \(signer.certificate.commonName) has an EC key; legacy receipts are signed with RSA")
            }
            var signed = try signer.privateKey.sign([blobVersion] + info, digest: .sha1)
            if signature == .corrupted { signed[signed.count / 2] ^= 0x01 }
            let certificate = signer.der
            let length = UInt32(certificate.count)
            blob = [blobVersion] + signed
                + [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
                + certificate
        }
        var entries: [(key: String, value: String)] = []
        if let blob { entries.append(("signature", Data(blob).base64EncodedString())) }
        entries.append(("purchase-info", Data(info).base64EncodedString()))
        if let environment { entries.append(("environment", environment)) }
        if let pod { entries.append(("pod", pod)) }
        if let signingStatus { entries.append(("signing-status", signingStatus)) }
        return BuiltLegacyReceipt(plist: OpenStepPlist.write(entries), purchaseInfo: info, signatureBlob: blob)
    }
}

/// A built iOS 6 transaction receipt.
public struct BuiltLegacyReceipt: Sendable {
    /// The envelope plist text.
    public let plist: String
    /// The inner plist bytes that `purchase-info` carries in base64 (what the signature covers,
    /// after the version byte).
    public let purchaseInfo: [UInt8]
    /// The signature blob, when signed.
    public let signatureBlob: [UInt8]?

    /// The envelope's UTF-8 bytes: what `SKPaymentTransaction.transactionReceipt` held.
    public var bytes: [UInt8] { Array(plist.utf8) }
    /// The receipt as apps sent it (`receipt-data`).
    public var base64: String { Data(bytes).base64EncodedString() }
}
