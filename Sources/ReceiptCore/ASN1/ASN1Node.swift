/// One decoded TLV (tag, length, value) inside a BER/DER buffer.
///
/// A node does not copy its bytes: it remembers where its header and content lie in the
/// buffer it came from. Children are read on demand through `children()`.
public struct ASN1Node: Sendable {
    /// The identifier of this value.
    public let tag: ASN1Tag
    /// The whole input this node lies in.
    public let buffer: [UInt8]
    /// Offset of the identifier octet in `buffer`.
    public let headerStart: Int
    /// Offset of the first content octet.
    public let contentStart: Int
    /// Offset just past the content (before the end-of-contents octets of an indefinite length).
    public let contentEnd: Int
    /// Offset just past the whole encoding, end-of-contents octets included.
    public let end: Int
    /// Whether the length was BER's indefinite form.
    public let isIndefinite: Bool
    let depth: Int
    let limits: ASN1Limits

    /// The content octets.
    public var content: ArraySlice<UInt8> { buffer[contentStart..<contentEnd] }
    /// The whole encoding: header, content and any end-of-contents octets.
    public var encoded: ArraySlice<UInt8> { buffer[headerStart..<end] }

    /// A reader over the content of this (constructed) node.
    public func children() -> ASN1Reader {
        ASN1Reader(buffer: buffer, from: contentStart, to: contentEnd, depth: depth + 1, limits: limits)
    }

    /// Fails with `unexpectedTag` unless this node carries `expected`.
    public func expect(_ expected: ASN1Tag, _ what: @autoclosure () -> String) throws -> ASN1Node {
        guard tag == expected else {
            throw ReceiptError(.unexpectedTag,
                               "\(what()) at byte \(headerStart): expected \(expected), found \(tag)")
        }
        return self
    }

    /// The value of an INTEGER (or ENUMERATED) that fits 64 bits.
    public func integer(_ what: @autoclosure () -> String) throws -> Int64 {
        try buffer.withUnsafeBufferPointer { bytes in
            try TLVScanner.integer(bytes, contentStart..<contentEnd, at: headerStart, what)
        }
    }

    /// The dotted form of an OBJECT IDENTIFIER ("1.2.840.113549.1.7.2").
    public func objectIdentifier(_ what: @autoclosure () -> String) throws -> String {
        try OID.dotted(content, what: "\(what()) at byte \(headerStart)")
    }

    /// Whether this node is an OBJECT IDENTIFIER equal to `oid`.
    public func isObjectIdentifier(_ oid: OID) -> Bool {
        tag == .objectIdentifier && content.elementsEqual(oid.encoded)
    }

    /// The octets of an OCTET STRING, joining the segments of BER's constructed form.
    public func octets(_ what: @autoclosure () -> String) throws -> [UInt8] {
        if !tag.isConstructed { return Array(content) }
        var joined: [UInt8] = []
        var reader = children()
        while let segment = try reader.readIfPresent() {
            guard segment.tag.primitive == tag.primitive else {
                throw ReceiptError(.unexpectedTag,
                                   "\(what()) at byte \(segment.headerStart): constructed string segment is \(segment.tag), not \(tag.primitive)")
            }
            joined += try segment.octets(what())
        }
        return joined
    }

    /// The text of a character string (UTF8String, IA5String, PrintableString), validated as UTF-8.
    public func string(_ what: @autoclosure () -> String) throws -> String {
        let bytes = tag.isConstructed ? try octets(what())[...] : content
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ReceiptError(.badUTF8, "\(what()) at byte \(contentStart): string is not valid UTF-8")
        }
        return text
    }
}

/// Limits that hold wherever BER/DER input enters: a hostile encoding can neither nest deeper
/// than `maxDepth` (so recursion stays shallow) nor claim more bytes than the buffer holds.
public struct ASN1Limits: Sendable {
    /// The deepest nesting accepted; receipts and certificates need fewer than 20 levels.
    public var maxDepth: Int

    public init(maxDepth: Int = 48) { self.maxDepth = maxDepth }

    public static let `default` = ASN1Limits()
}
