/// Reads consecutive BER/DER values from a region of a buffer, one at a time.
///
/// Accepts definite lengths (short and long form, up to 4 length octets) and BER's indefinite
/// length (`0x80` … `00 00`) on constructed values. Every length is checked against the bytes
/// that remain, so nothing is ever allocated from a claimed length, and nesting is bounded by
/// `ASN1Limits.maxDepth`, so a 10,000-deep input fails cleanly instead of exhausting the stack.
public struct ASN1Reader: Sendable {
    public let buffer: [UInt8]
    /// The offset of the next value.
    public private(set) var position: Int
    let end: Int
    let depth: Int
    let limits: ASN1Limits

    /// A reader over the whole of `bytes`.
    public init(_ bytes: [UInt8], limits: ASN1Limits = .default) {
        self.init(buffer: bytes, from: 0, to: bytes.count, depth: 0, limits: limits)
    }

    init(buffer: [UInt8], from start: Int, to end: Int, depth: Int, limits: ASN1Limits) {
        self.buffer = buffer
        self.position = start
        self.end = end
        self.depth = depth
        self.limits = limits
    }

    /// Whether every value in the region has been read.
    public var isAtEnd: Bool { position >= end }

    /// Reads one complete value and parses the input as exactly that value.
    public static func parseSingle(_ bytes: [UInt8], _ what: @autoclosure () -> String, limits: ASN1Limits = .default) throws -> ASN1Node {
        var reader = ASN1Reader(bytes, limits: limits)
        let node = try reader.read(what())
        try reader.finish(what())
        return node
    }

    /// Reads the next value; fails with `truncated` when none is left.
    public mutating func read(_ what: @autoclosure () -> String) throws -> ASN1Node {
        guard let node = try readIfPresent() else {
            throw ReceiptError(.truncated, "\(what()): input ends at byte \(position) where a value was expected")
        }
        return node
    }

    /// Reads the next value and checks its tag.
    public mutating func read(_ tag: ASN1Tag, _ what: @autoclosure () -> String) throws -> ASN1Node {
        try read(what()).expect(tag, what())
    }

    /// Reads the next value only if it carries `tag`.
    public mutating func readOptional(_ tag: ASN1Tag) throws -> ASN1Node? {
        guard position < end, let peeked = try peekTag(), peeked == tag else { return nil }
        return try readIfPresent()
    }

    /// Fails with `trailingBytes` unless the region has been read completely.
    public func finish(_ what: @autoclosure () -> String) throws {
        guard isAtEnd else {
            throw ReceiptError(.trailingBytes, "\(what()): \(Plural.of(end - position, "unexpected byte")) at byte \(position)")
        }
    }

    /// Reads the next value, or returns nil at the end of the region.
    public mutating func readIfPresent() throws -> ASN1Node? {
        guard position < end else { return nil }
        let (position, end, depth, maxDepth) = (self.position, self.end, self.depth, limits.maxDepth)
        let tlv = try buffer.withUnsafeBufferPointer { bytes in
            try TLVScanner.scan(bytes, at: position, end: end, depth: depth, maxDepth: maxDepth)
        }
        self.position = tlv.end
        return ASN1Node(tag: tlv.tag, buffer: buffer, headerStart: tlv.headerStart, contentStart: tlv.contentStart,
                        contentEnd: tlv.contentEnd, end: tlv.end, isIndefinite: tlv.isIndefinite, depth: depth, limits: limits)
    }

    private func peekTag() throws -> ASN1Tag? {
        var cursor = position
        let end = self.end
        return try buffer.withUnsafeBufferPointer { try TLVScanner.readTag($0, &cursor, end: end) }
    }
}
