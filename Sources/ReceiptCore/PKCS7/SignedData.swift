/// A PKCS#7 / CMS SignedData container, parsed with our own BER reader (no OpenSSL parsing on the
/// hot path). Grammar (RFC 5652):
///
///     ContentInfo ::= SEQUENCE { contentType OBJECT IDENTIFIER, content [0] EXPLICIT ANY }
///     SignedData ::= SEQUENCE {
///       version INTEGER, digestAlgorithms SET OF AlgorithmIdentifier,
///       encapContentInfo SEQUENCE { eContentType OBJECT IDENTIFIER, eContent [0] EXPLICIT OCTET STRING OPTIONAL },
///       certificates [0] IMPLICIT SET OF Certificate OPTIONAL,
///       crls [1] IMPLICIT ANY OPTIONAL,
///       signerInfos SET OF SignerInfo }
public struct SignedData: Sendable {
    /// The signed content (eContent), BER segments joined.
    public let content: [UInt8]
    /// The embedded certificates, DER, in the order they appear.
    public let certificates: [ArraySlice<UInt8>]
    /// The signers; Apple's receipts have exactly one.
    public let signers: [SignerInfo]

    /// Parses a ContentInfo holding SignedData. `what` names the format in error messages.
    public init(berEncoded bytes: [UInt8], what: String = "PKCS#7") throws {
        let contentInfo = try ASN1Reader.parseSingle(bytes, "\(what) ContentInfo").expect(.sequence, "\(what) ContentInfo")
        var outer = contentInfo.children()
        let type = try outer.read(.objectIdentifier, "\(what) contentType")
        guard type.isObjectIdentifier(.pkcs7SignedData) else {
            throw ReceiptError(.unexpectedTag, "\(what): content type \(try type.objectIdentifier("contentType")) is not signedData")
        }
        let explicit = try outer.read(.context(0, constructed: true), "\(what) content [0]")
        try outer.finish("\(what) ContentInfo")
        var wrapper = explicit.children()
        let signedData = try wrapper.read(.sequence, "\(what) SignedData")
        try wrapper.finish("\(what) content [0]")

        var fields = signedData.children()
        _ = try fields.read(.integer, "\(what) SignedData version")
        _ = try fields.read(.set, "\(what) digestAlgorithms")
        let encap = try fields.read(.sequence, "\(what) encapContentInfo")
        var encapFields = encap.children()
        _ = try encapFields.read(.objectIdentifier, "\(what) eContentType")
        var content: [UInt8] = []
        if let eContent = try encapFields.readOptional(.context(0, constructed: true)) {
            var inner = eContent.children()
            let octets = try inner.read("\(what) eContent")
            guard octets.tag.primitive == .octetString else {
                throw ReceiptError(.unexpectedTag, "\(what) eContent at byte \(octets.headerStart): expected OCTET STRING, found \(octets.tag)")
            }
            content = try octets.octets("\(what) eContent")
            try inner.finish("\(what) eContent")
        }
        try encapFields.finish("\(what) encapContentInfo")

        var certificates: [ArraySlice<UInt8>] = []
        if let certs = try fields.readOptional(.context(0, constructed: true)) {
            var reader = certs.children()
            while let certificate = try reader.readIfPresent() {
                guard certificates.count < 16 else {
                    throw ReceiptError(.tooLarge, "\(what): more than 16 certificates")
                }
                certificates.append(certificate.encoded)
            }
        }
        _ = try fields.readOptional(.context(1, constructed: true))
        let signerSet = try fields.read(.set, "\(what) signerInfos")
        try fields.finish("\(what) SignedData")

        var signers: [SignerInfo] = []
        var signerReader = signerSet.children()
        while let signer = try signerReader.readIfPresent() {
            guard signers.count < 8 else { throw ReceiptError(.tooLarge, "\(what): more than 8 signers") }
            signers.append(try SignerInfo(signer, what: what))
        }
        self.content = content
        self.certificates = certificates
        self.signers = signers
    }
}

/// One SignerInfo:
///
///     SignerInfo ::= SEQUENCE { version INTEGER, sid SignerIdentifier, digestAlgorithm AlgorithmIdentifier,
///       signedAttrs [0] IMPLICIT SET OF Attribute OPTIONAL, signatureAlgorithm AlgorithmIdentifier,
///       signature OCTET STRING, unsignedAttrs [1] IMPLICIT SET OF Attribute OPTIONAL }
///     SignerIdentifier ::= CHOICE { issuerAndSerialNumber SEQUENCE { issuer Name, serialNumber INTEGER },
///                                   subjectKeyIdentifier [0] OCTET STRING }
public struct SignerInfo: Sendable {
    /// The digest algorithm's OID, dotted.
    public var digestAlgorithmOID: String { (try? OID.dotted(digestOIDContent, what: "digest algorithm")) ?? "malformed OID" }  // checked at parse
    private let digestOIDContent: ArraySlice<UInt8>
    /// The digest algorithm, when it is one receipts use.
    public let digest: DigestAlgorithm?
    /// The signature algorithm's OID, dotted.
    public var signatureAlgorithmOID: String { (try? OID.dotted(signatureOIDContent, what: "signature algorithm")) ?? "malformed OID" }  // checked at parse
    private let signatureOIDContent: ArraySlice<UInt8>
    /// The signature bytes.
    public let signature: [UInt8]
    /// The issuer Name (DER) and serial number content of the signer's certificate, when given that way.
    public let issuer: ArraySlice<UInt8>?
    public let serialNumber: ArraySlice<UInt8>?
    /// The signed attributes re-tagged as `SET OF` (what the signature covers), when present.
    public let signedAttributes: [UInt8]?
    /// The messageDigest signed attribute, when present.
    public let messageDigest: [UInt8]?

    init(_ node: ASN1Node, what: String) throws {
        var fields = try node.expect(.sequence, "\(what) SignerInfo").children()
        _ = try fields.read(.integer, "\(what) SignerInfo version")
        let sid = try fields.read("\(what) SignerInfo sid")
        if sid.tag == .sequence {
            var parts = sid.children()
            issuer = try parts.read(.sequence, "\(what) signer issuer").encoded
            serialNumber = try parts.read(.integer, "\(what) signer serial").content
        } else {
            issuer = nil
            serialNumber = nil
        }
        let digestOID = try SignerInfo.algorithm(try fields.read(.sequence, "\(what) digestAlgorithm"), what: what)
        digestOIDContent = digestOID
        digest = digestOID.elementsEqual(OID.sha1.encoded) ? .sha1 : digestOID.elementsEqual(OID.sha256.encoded) ? .sha256 : nil
        var signedAttributes: [UInt8]?
        var messageDigest: [UInt8]?
        if let attributes = try fields.readOptional(.context(0, constructed: true)) {
            var encoded = Array(attributes.encoded)
            encoded[0] = 0x31  // [0] IMPLICIT → SET OF, as the signature covers it
            signedAttributes = encoded
            var reader = attributes.children()
            while let attribute = try reader.readIfPresent() {
                var parts = try attribute.expect(.sequence, "\(what) signed attribute").children()
                let type = try parts.read(.objectIdentifier, "\(what) signed attribute type")
                let values = try parts.read(.set, "\(what) signed attribute values")
                if type.isObjectIdentifier(.messageDigestAttribute) {
                    var valueReader = values.children()
                    messageDigest = try valueReader.read(.octetString, "\(what) messageDigest").octets("messageDigest")
                }
            }
        }
        self.signedAttributes = signedAttributes
        self.messageDigest = messageDigest
        signatureOIDContent = try SignerInfo.algorithm(try fields.read(.sequence, "\(what) signatureAlgorithm"), what: what)
        signature = try fields.read(.octetString, "\(what) signature").octets("signature")
        _ = try fields.readOptional(.context(1, constructed: true))
        try fields.finish("\(what) SignerInfo")
    }

    /// The OID content of an AlgorithmIdentifier, validated.
    private static func algorithm(_ node: ASN1Node, what: String) throws -> ArraySlice<UInt8> {
        var parts = node.children()
        let oid = try parts.read(.objectIdentifier, "\(what) algorithm")
        guard let last = oid.content.last, last & 0x80 == 0 else {
            throw ReceiptError(.badValue, "\(what) algorithm at byte \(oid.headerStart): malformed OBJECT IDENTIFIER")
        }
        return oid.content
    }
}

