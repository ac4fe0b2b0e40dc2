import Foundation
import ReceiptCore

/// Writes a PKCS#7 SignedData the way Apple lays out App Store receipts (RFC 2315 / 5652):
///
///     ContentInfo ::= SEQUENCE { contentType 1.2.840.113549.1.7.2 (signedData), content [0] EXPLICIT SignedData }
///     SignedData ::= SEQUENCE {
///       version INTEGER 1,
///       digestAlgorithms SET { SEQUENCE { sha256 | sha1, NULL } },
///       encapContentInfo SEQUENCE { 1.2.840.113549.1.7.1 (data), [0] EXPLICIT OCTET STRING content },
///       certificates [0] IMPLICIT SET OF Certificate,        -- leaf, intermediate, root, in that order
///       signerInfos SET { SignerInfo } }
///     SignerInfo ::= SEQUENCE {
///       version INTEGER 1,
///       issuerAndSerialNumber SEQUENCE { issuer Name, serialNumber INTEGER },   -- of the leaf
///       digestAlgorithm SEQUENCE { sha256 | sha1, NULL },
///       signatureAlgorithm SEQUENCE { rsaEncryption, NULL },                      -- no signed attributes
///       signature OCTET STRING }  -- RSA PKCS#1 v1.5 over the raw content with the digest algorithm
enum SignedDataWriter {
    /// The ContentInfo DER and the signature it carries.
    static func write(content: [UInt8], signer: IssuedCertificate, certificates: [Certificate],
                      digest: DigestAlgorithm) throws -> (der: [UInt8], signature: [UInt8]) {
        guard !signer.privateKey.isEC else {
            throw ReceiptError(.configuration, "unified receipt: signer \(signer.certificate.commonName) has an EC key; receipts are signed with RSA")
        }
        let digestAlgorithm = DER.sequence([DER.oid(digest == .sha1 ? .sha1 : .sha256), DER.null()])
        let signature = try signer.privateKey.sign(content, digest: digest)
        let signerInfo = DER.sequence([
            DER.integer(1),
            DER.sequence([signer.issuer.der, DER.unsignedInteger(signer.serialNumber)]),
            digestAlgorithm,
            DER.sequence([DER.oid(.rsaEncryption), DER.null()]),
            DER.octetString(signature),
        ])
        let signedData = DER.sequence([
            DER.integer(1),
            DER.set([digestAlgorithm]),
            DER.sequence([DER.oid(.pkcs7Data), DER.explicit(0, DER.octetString(content))]),
            DER.tlv(.context(0, constructed: true), certificates.flatMap(\.der)),
            DER.set([signerInfo]),
        ])
        return (DER.sequence([DER.oid(.pkcs7SignedData), DER.explicit(0, signedData)]), signature)
    }
}
