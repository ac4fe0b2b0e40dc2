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
    ///
    /// Walks the container in place (`DERCursor`): the certificates are kept as slices of
    /// `bytes` and never parsed here; the chain check parses them only when its cache does not
    /// already know them.
    public init(berEncoded bytes: [UInt8], what: String = "PKCS#7") throws {
        (content, certificates, signers) = try bytes.withUnsafeBufferPointer { buffer in
            try SignedData.parse(buffer, bytes, what: what)
        }
    }

    private static func parse(_ buffer: UnsafeBufferPointer<UInt8>, _ bytes: [UInt8],
                              what: String) throws -> ([UInt8], [ArraySlice<UInt8>], [SignerInfo]) {
        var top = DERCursor(buffer, from: 0, to: buffer.count, depth: 0)
        let contentInfo = try top.read("\(what) ContentInfo")
        try top.finish("\(what) ContentInfo")
        guard contentInfo.tag == .sequence else {
            throw ReceiptError(.unexpectedTag, "\(what) ContentInfo at byte \(contentInfo.headerStart): expected \(ASN1Tag.sequence), found \(contentInfo.tag)")
        }
        var outer = top.children(contentInfo)
        let type = try outer.read(.objectIdentifier, "\(what) contentType")
        guard outer.isObjectIdentifier(type, .pkcs7SignedData) else {
            let dotted = try OID.dotted(ArraySlice(outer.content(type)), what: "contentType at byte \(type.headerStart)")
            throw ReceiptError(.unexpectedTag, "\(what): content type \(dotted) is not signedData")
        }
        let explicit = try outer.read(.context(0, constructed: true), "\(what) content [0]")
        try outer.finish("\(what) ContentInfo")
        var wrapper = outer.children(explicit)
        let signedData = try wrapper.read(.sequence, "\(what) SignedData")
        try wrapper.finish("\(what) content [0]")

        var fields = wrapper.children(signedData)
        _ = try fields.read(.integer, "\(what) SignedData version")
        _ = try fields.read(.set, "\(what) digestAlgorithms")
        let encap = try fields.read(.sequence, "\(what) encapContentInfo")
        var encapFields = fields.children(encap)
        _ = try encapFields.read(.objectIdentifier, "\(what) eContentType")
        var content: [UInt8] = []
        if let eContent = try encapFields.readOptional(.context(0, constructed: true)) {
            var inner = encapFields.children(eContent)
            let octets = try inner.read("\(what) eContent")
            guard octets.tag.primitive == .octetString else {
                throw ReceiptError(.unexpectedTag, "\(what) eContent at byte \(octets.headerStart): expected OCTET STRING, found \(octets.tag)")
            }
            content = try inner.octets(octets, "\(what) eContent")
            try inner.finish("\(what) eContent")
        }
        try encapFields.finish("\(what) encapContentInfo")

        var certificates: [ArraySlice<UInt8>] = []
        if let certs = try fields.readOptional(.context(0, constructed: true)) {
            certificates.reserveCapacity(4)
            var reader = fields.children(certs)
            while let certificate = try reader.readIfPresent() {
                guard certificates.count < 16 else {
                    throw ReceiptError(.tooLarge, "\(what): more than 16 certificates")
                }
                certificates.append(bytes[certificate.headerStart..<certificate.end])
            }
        }
        _ = try fields.readOptional(.context(1, constructed: true))
        let signerSet = try fields.read(.set, "\(what) signerInfos")
        try fields.finish("\(what) SignedData")

        var signers: [SignerInfo] = []
        var signerReader = fields.children(signerSet)
        while let signer = try signerReader.readIfPresent() {
            guard signers.count < 8 else { throw ReceiptError(.tooLarge, "\(what): more than 8 signers") }
            signers.append(try SignerInfo(signer, signerReader, bytes, what: what))
        }
        return (content, certificates, signers)
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
    let digestOIDContent: ArraySlice<UInt8>
    /// The digest algorithm, when it is one receipts use.
    public let digest: DigestAlgorithm?
    /// The signature algorithm's OID, dotted.
    public var signatureAlgorithmOID: String { (try? OID.dotted(signatureOIDContent, what: "signature algorithm")) ?? "malformed OID" }  // checked at parse
    let signatureOIDContent: ArraySlice<UInt8>
    /// The signature bytes.
    public let signature: [UInt8]
    /// The issuer Name (DER) and serial number content of the signer's certificate, when given that way.
    public let issuer: ArraySlice<UInt8>?
    public let serialNumber: ArraySlice<UInt8>?
    /// The signed attributes re-tagged as `SET OF` (what the signature covers), when present.
    public let signedAttributes: [UInt8]?
    /// The messageDigest signed attribute, when present.
    public let messageDigest: [UInt8]?

    /// Reads the SignerInfo `node`, which `reader` read from `bytes`.
    init(_ node: TLV, _ reader: DERCursor, _ bytes: [UInt8], what: String) throws {
        guard node.tag == .sequence else {
            throw ReceiptError(.unexpectedTag, "\(what) SignerInfo at byte \(node.headerStart): expected \(ASN1Tag.sequence), found \(node.tag)")
        }
        var fields = reader.children(node)
        _ = try fields.read(.integer, "\(what) SignerInfo version")
        let sid = try fields.read("\(what) SignerInfo sid")
        if sid.tag == .sequence {
            var parts = fields.children(sid)
            let name = try parts.read(.sequence, "\(what) signer issuer")
            issuer = bytes[name.headerStart..<name.end]
            let serial = try parts.read(.integer, "\(what) signer serial")
            serialNumber = bytes[serial.contentStart..<serial.contentEnd]
        } else {
            issuer = nil
            serialNumber = nil
        }
        let digestOID = try SignerInfo.algorithm(try fields.read(.sequence, "\(what) digestAlgorithm"), fields, bytes, what: what)
        digestOIDContent = digestOID
        digest = digestOID.withUnsafeBufferPointer { content in
            OID.sha1.isEncoded(by: content) ? .sha1 : OID.sha256.isEncoded(by: content) ? .sha256 : nil
        }
        var signedAttributes: [UInt8]?
        var messageDigest: [UInt8]?
        if let attributes = try fields.readOptional(.context(0, constructed: true)) {
            var encoded = Array(bytes[attributes.headerStart..<attributes.end])
            encoded[0] = 0x31  // [0] IMPLICIT → SET OF, as the signature covers it
            signedAttributes = encoded
            var reader = fields.children(attributes)
            while let attribute = try reader.readIfPresent() {
                guard attribute.tag == .sequence else {
                    throw ReceiptError(.unexpectedTag, "\(what) signed attribute at byte \(attribute.headerStart): expected \(ASN1Tag.sequence), found \(attribute.tag)")
                }
                var parts = reader.children(attribute)
                let type = try parts.read(.objectIdentifier, "\(what) signed attribute type")
                let values = try parts.read(.set, "\(what) signed attribute values")
                if parts.isObjectIdentifier(type, .messageDigestAttribute) {
                    var valueReader = parts.children(values)
                    messageDigest = try valueReader.octets(try valueReader.read(.octetString, "\(what) messageDigest"), "messageDigest")
                }
            }
        }
        self.signedAttributes = signedAttributes
        self.messageDigest = messageDigest
        signatureOIDContent = try SignerInfo.algorithm(try fields.read(.sequence, "\(what) signatureAlgorithm"), fields, bytes, what: what)
        signature = try fields.octets(try fields.read(.octetString, "\(what) signature"), "signature")
        _ = try fields.readOptional(.context(1, constructed: true))
        try fields.finish("\(what) SignerInfo")
    }

    /// The OID content of an AlgorithmIdentifier, validated.
    private static func algorithm(_ node: TLV, _ reader: DERCursor, _ bytes: [UInt8], what: String) throws -> ArraySlice<UInt8> {
        var parts = reader.children(node)
        let oid = try parts.read(.objectIdentifier, "\(what) algorithm")
        guard oid.contentEnd > oid.contentStart, bytes[oid.contentEnd - 1] & 0x80 == 0 else {
            throw ReceiptError(.badValue, "\(what) algorithm at byte \(oid.headerStart): malformed OBJECT IDENTIFIER")
        }
        return bytes[oid.contentStart..<oid.contentEnd]
    }
}
