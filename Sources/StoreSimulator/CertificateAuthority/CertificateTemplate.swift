import Foundation
import ReceiptCore

/// The key usages a receipt certificate asserts (RFC 5280 §4.2.1.3); the raw value's bit `n` is
/// the named bit `n`.
public struct KeyUsage: OptionSet, Sendable, Hashable {
    /// The named bits, bit n for KeyUsage bit n.
    public let rawValue: UInt16
    /// Usages from their bits.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Bit 0: signs data (receipt and JWS signers).
    public static let digitalSignature = KeyUsage(rawValue: 1 << 0)
    /// Bit 5: signs certificates (CAs).
    public static let keyCertSign = KeyUsage(rawValue: 1 << 5)
    /// Bit 6: signs CRLs (CAs).
    public static let cRLSign = KeyUsage(rawValue: 1 << 6)

    /// The DER `KeyUsage ::= BIT STRING`: named bits, trailing zero bits dropped.
    var der: [UInt8] {
        let bits = (0..<16).filter { rawValue & (1 << $0) != 0 }
        guard let highest = bits.last else { return DER.tlv(.bitString, [0]) }
        var octets = [UInt8](repeating: 0, count: highest / 8 + 1)
        for bit in bits { octets[bit / 8] |= 0x80 >> UInt8(bit % 8) }
        return DER.tlv(.bitString, [UInt8(7 - highest % 8)] + octets)
    }
}

/// Everything a certificate says, before it is signed. Encodes (RFC 5280):
///
///     Certificate ::= SEQUENCE { tbsCertificate TBSCertificate, signatureAlgorithm AlgorithmIdentifier,
///                                signatureValue BIT STRING }
///     TBSCertificate ::= SEQUENCE {
///       version [0] EXPLICIT INTEGER (2 = v3), serialNumber INTEGER, signature AlgorithmIdentifier,
///       issuer Name, validity SEQUENCE { notBefore Time, notAfter Time }, subject Name,
///       subjectPublicKeyInfo SubjectPublicKeyInfo, extensions [3] EXPLICIT SEQUENCE OF Extension }
///     Extension ::= SEQUENCE { extnID OBJECT IDENTIFIER, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING }
///
/// Extensions written, in this order: basicConstraints (critical; `cA` TRUE for CAs), keyUsage
/// (critical), subjectKeyIdentifier, authorityKeyIdentifier (when the issuer's is known), then one
/// non-critical extension per Apple marker OID whose value is DER NULL, as Apple writes them.
public struct CertificateTemplate: Sendable {
    /// The serial number's unsigned big-endian magnitude.
    public var serialNumber: [UInt8]
    /// Whom the certificate names.
    public var subject: DistinguishedName
    /// Who signs it (the subject, for a root).
    public var issuer: DistinguishedName
    /// Start of validity (UTCTime until 2049, GeneralizedTime after).
    public var notBefore: Date
    /// End of validity.
    public var notAfter: Date
    /// Whether the certificate is a CA (roots and intermediates).
    public var isCA: Bool
    /// basicConstraints `pathLenConstraint`, for CAs.
    public var pathLength: Int?
    /// The keyUsage extension (critical).
    public var keyUsage: KeyUsage
    /// Apple marker extensions (1.2.840.113635.100.6.…) to carry, each non-critical with a NULL value.
    public var markers: [OID]
    /// The subject's DER SubjectPublicKeyInfo.
    public var subjectPublicKeyInfo: [UInt8]
    /// The issuer's key identifier, written as authorityKeyIdentifier when given.
    public var authorityKeyIdentifier: [UInt8]?

    /// A template from every value; nothing is read from the clock or chosen at random.
    public init(serialNumber: [UInt8], subject: DistinguishedName, issuer: DistinguishedName,
                notBefore: Date, notAfter: Date, isCA: Bool, pathLength: Int? = nil, keyUsage: KeyUsage,
                markers: [OID] = [], subjectPublicKeyInfo: [UInt8], authorityKeyIdentifier: [UInt8]? = nil) {
        self.serialNumber = serialNumber
        self.subject = subject
        self.issuer = issuer
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.isCA = isCA
        self.pathLength = pathLength
        self.keyUsage = keyUsage
        self.markers = markers
        self.subjectPublicKeyInfo = subjectPublicKeyInfo
        self.authorityKeyIdentifier = authorityKeyIdentifier
    }

    /// RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey BIT STRING's bits.
    public var subjectKeyIdentifier: [UInt8] {
        get throws { try CertificateTemplate.keyIdentifier(subjectPublicKeyInfo) }
    }

    /// The DER TBSCertificate, declaring `signatureAlgorithm`.
    func tbsCertificate(signatureAlgorithm: [UInt8]) throws -> [UInt8] {
        let validity = DER.sequence([DER.x509Time(notBefore), DER.x509Time(notAfter)])
        return DER.sequence([
            DER.explicit(0, DER.integer(2)),
            DER.unsignedInteger(serialNumber),
            signatureAlgorithm,
            issuer.der,
            validity,
            subject.der,
            subjectPublicKeyInfo,
            DER.explicit(3, DER.sequence(try extensions())),
        ])
    }

    private func extensions() throws -> [[UInt8]] {
        var basic: [[UInt8]] = []
        if isCA {
            basic.append(DER.boolean(true))
            if let pathLength { basic.append(DER.integer(Int64(pathLength))) }
        }
        var list = [
            Self.extensionDER([0x55, 0x1D, 0x13], critical: true, value: DER.sequence(basic)),
            Self.extensionDER([0x55, 0x1D, 0x0F], critical: true, value: keyUsage.der),
            Self.extensionDER([0x55, 0x1D, 0x0E], critical: false, value: DER.octetString(try subjectKeyIdentifier)),
        ]
        if let authorityKeyIdentifier {
            // AuthorityKeyIdentifier ::= SEQUENCE { keyIdentifier [0] IMPLICIT OCTET STRING }
            let aki = DER.sequence([DER.tlv(.context(0, constructed: false), authorityKeyIdentifier)])
            list.append(Self.extensionDER([0x55, 0x1D, 0x23], critical: false, value: aki))
        }
        for marker in markers {
            list.append(Self.extensionDER(marker.encoded, critical: false, value: DER.null()))
        }
        return list
    }

    private static func extensionDER(_ oidContent: [UInt8], critical: Bool, value: [UInt8]) -> [UInt8] {
        var fields = [DER.tlv(.objectIdentifier, oidContent)]
        if critical { fields.append(DER.boolean(true)) }  // DEFAULT FALSE is omitted in DER
        fields.append(DER.octetString(value))
        return DER.sequence(fields)
    }

    /// Signs the template with the issuer's key: sha256WithRSAEncryption for an RSA issuer,
    /// ecdsa-with-SHA256 for an EC one.
    public func signed(by issuerKey: PrivateKey) throws -> Certificate {
        let algorithm = issuerKey.isEC
            ? DER.sequence([DER.oid(.ecdsaWithSHA256)])  // ECDSA algorithm identifiers have no parameters
            : DER.sequence([DER.oid(.sha256WithRSA), DER.null()])
        let tbs = try tbsCertificate(signatureAlgorithm: algorithm)
        let signature = try issuerKey.sign(tbs, digest: .sha256)
        return try Certificate(der: DER.sequence([tbs, algorithm, DER.bitString(signature)]))
    }

    /// SHA-1 of the subjectPublicKey bits of a DER SubjectPublicKeyInfo:
    ///
    ///     SubjectPublicKeyInfo ::= SEQUENCE { algorithm AlgorithmIdentifier, subjectPublicKey BIT STRING }
    static func keyIdentifier(_ spki: [UInt8]) throws -> [UInt8] {
        var fields = try ASN1Reader.parseSingle(spki, "SubjectPublicKeyInfo").expect(.sequence, "SubjectPublicKeyInfo").children()
        _ = try fields.read(.sequence, "SubjectPublicKeyInfo algorithm")
        let key = try fields.read(.bitString, "SubjectPublicKeyInfo subjectPublicKey")
        try fields.finish("SubjectPublicKeyInfo")
        return DigestAlgorithm.sha1.hash(Array(key.content.dropFirst()))
    }
}
