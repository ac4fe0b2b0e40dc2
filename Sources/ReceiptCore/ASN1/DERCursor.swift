/// `ASN1Reader`'s rules and one-line errors over borrowed bytes, for parsers that run inside one
/// `withUnsafeBufferPointer` (the PKCS#7 container of every receipt): a value is a `TLV`, and
/// nothing is retained, copied or allocated until a caller asks for bytes.
///
/// Depths follow `ASN1Reader` exactly (a cursor over a value's content is one level deeper than
/// the cursor that read the value), so the nesting limit trips at the same place with the same
/// message.
struct DERCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    /// The offset of the next value.
    private(set) var position: Int
    let end: Int
    let depth: Int
    let maxDepth: Int

    /// A cursor over `start..<end` of `bytes` whose values lie at nesting level `depth`.
    init(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, depth: Int, maxDepth: Int = ASN1Limits.default.maxDepth) {
        self.bytes = bytes
        self.position = start
        self.end = end
        self.depth = depth
        self.maxDepth = maxDepth
    }

    /// A cursor over the content of `value`, which this cursor read.
    func children(_ value: TLV) -> DERCursor {
        DERCursor(bytes, from: value.contentStart, to: value.contentEnd, depth: depth + 1, maxDepth: maxDepth)
    }

    /// Whether every value in the region has been read.
    var isAtEnd: Bool { position >= end }

    /// Reads the next value, or returns nil at the end of the region.
    @inline(__always)
    mutating func readIfPresent() throws -> TLV? {
        guard position < end else { return nil }
        let tlv = try TLVScanner.scan(bytes, at: position, end: end, depth: depth, maxDepth: maxDepth)
        position = tlv.end
        return tlv
    }

    /// Reads the next value; fails with `truncated` when none is left.
    @inline(__always)
    mutating func read(_ what: @autoclosure () -> String) throws -> TLV {
        guard let value = try readIfPresent() else {
            throw ReceiptError(.truncated, "\(what()): input ends at byte \(position) where a value was expected")
        }
        return value
    }

    /// Reads the next value and checks its tag (`ASN1Node.expect`'s message).
    @inline(__always)
    mutating func read(_ tag: ASN1Tag, _ what: @autoclosure () -> String) throws -> TLV {
        let value = try read(what())
        guard value.tag == tag else {
            throw ReceiptError(.unexpectedTag, "\(what()) at byte \(value.headerStart): expected \(tag), found \(value.tag)")
        }
        return value
    }

    /// Reads the next value only if it carries `tag`.
    mutating func readOptional(_ tag: ASN1Tag) throws -> TLV? {
        guard position < end else { return nil }
        var cursor = position
        guard try TLVScanner.readTag(bytes, &cursor, end: end) == tag else { return nil }
        return try readIfPresent()
    }

    /// Fails with `trailingBytes` unless the region has been read completely.
    func finish(_ what: @autoclosure () -> String) throws {
        guard isAtEnd else {
            throw ReceiptError(.trailingBytes, "\(what()): \(Plural.of(end - position, "unexpected byte")) at byte \(position)")
        }
    }

    /// The content octets of `value`.
    func content(_ value: TLV) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[value.contentStart..<value.contentEnd])
    }

    /// Whether `value` is an OBJECT IDENTIFIER equal to `oid`.
    func isObjectIdentifier(_ value: TLV, _ oid: OID) -> Bool {
        value.tag == .objectIdentifier && oid.isEncoded(by: content(value))
    }

    /// The octets of an OCTET STRING this cursor read, joining the segments of BER's constructed
    /// form (`ASN1Node.octets`, with its messages).
    func octets(_ value: TLV, _ what: @autoclosure () -> String) throws -> [UInt8] {
        if !value.tag.isConstructed { return Array(content(value)) }
        var joined: [UInt8] = []
        var reader = children(value)
        while let segment = try reader.readIfPresent() {
            guard segment.tag.primitive == value.tag.primitive else {
                throw ReceiptError(.unexpectedTag,
                                   "\(what()) at byte \(segment.headerStart): constructed string segment is \(segment.tag), not \(value.tag.primitive)")
            }
            joined += try reader.octets(segment, what())
        }
        return joined
    }
}
