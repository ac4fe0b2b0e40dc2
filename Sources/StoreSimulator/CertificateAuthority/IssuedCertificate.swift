import Foundation
import ReceiptCore

/// A certificate the test authority made, with its private key and the facts a signer needs
/// (a PKCS#7 SignerInfo names its certificate by issuer and serial number).
public struct IssuedCertificate: Sendable {
    /// The signed certificate (its `der` is what receipts and `x5c` embed).
    public let certificate: Certificate
    /// The subject's private key. Test material only: it never leaves the process.
    public let privateKey: PrivateKey
    /// The certificate's subject name.
    public let subject: DistinguishedName
    /// The issuer's name, as written in the certificate (and in a SignerInfo).
    public let issuer: DistinguishedName
    /// The serial number's unsigned big-endian magnitude.
    public let serialNumber: [UInt8]
    /// The subjectKeyIdentifier written into the certificate.
    public let subjectKeyIdentifier: [UInt8]

    /// The DER certificate.
    public var der: [UInt8] { certificate.der }

    /// What a certificate is for, which decides basicConstraints and keyUsage.
    public enum Role: Sendable {
        /// A self-signed CA.
        case root
        /// A CA under a root; `pathLength` 0 as Apple's WWDR G6 has.
        case intermediate
        /// An end entity that signs receipts or JWS.
        case leaf
    }

    /// Issues a certificate for `key` under `issuer` (nil: self-signed, so `role` should be `.root`).
    /// The serial number is 8 random bytes; every other value comes from the arguments.
    public static func issue(subject: DistinguishedName, key: PrivateKey, role: Role, markers: [OID] = [],
                             issuer: IssuedCertificate?, validFrom: Date, validUntil: Date) throws -> IssuedCertificate {
        var generator = SystemRandomNumberGenerator()
        var serial = (0..<8).map { _ in UInt8.random(in: 0...255, using: &generator) }
        serial[0] = serial[0] & 0x7F | 0x10  // positive, eight bytes long
        let spki = try key.publicKey().subjectPublicKeyInfo
        let usage: KeyUsage = role == .leaf ? [.digitalSignature] : [.keyCertSign, .cRLSign]
        let template = CertificateTemplate(
            serialNumber: serial, subject: subject, issuer: issuer?.subject ?? subject,
            notBefore: validFrom, notAfter: validUntil, isCA: role != .leaf,
            pathLength: role == .intermediate ? 0 : nil, keyUsage: usage, markers: markers,
            subjectPublicKeyInfo: spki,
            authorityKeyIdentifier: try issuer?.subjectKeyIdentifier ?? CertificateTemplate.keyIdentifier(spki))
        let certificate = try template.signed(by: issuer?.privateKey ?? key)
        return IssuedCertificate(certificate: certificate, privateKey: key, subject: subject,
                                 issuer: template.issuer, serialNumber: serial,
                                 subjectKeyIdentifier: try template.subjectKeyIdentifier)
    }
}

/// Three certificates that sign one kind of artefact: leaf ← intermediate ← root.
public struct SigningChain: Sendable {
    /// The self-signed root (a trust anchor in tests).
    public let root: IssuedCertificate
    /// The CA that issued the leaf, carrying the intermediate marker.
    public let intermediate: IssuedCertificate
    /// The signer, carrying the leaf marker.
    public let leaf: IssuedCertificate

    /// The leaf's private key, which signs receipts or JWS.
    public var leafKey: PrivateKey { leaf.privateKey }

    /// Leaf, intermediate, root: the order Apple embeds them in receipts and `x5c`.
    public var certificates: [Certificate] { [leaf.certificate, intermediate.certificate, root.certificate] }
}
