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
    public static func parseSingle(_ bytes: [UInt8], _ what: String, limits: ASN1Limits = .default) throws -> ASN1Node {
        var reader = ASN1Reader(bytes, limits: limits)
        let node = try reader.read(what)
        try reader.finish(what)
        return node
    }

    /// Reads the next value; fails with `truncated` when none is left.
    public mutating func read(_ what: String) throws -> ASN1Node {
        guard let node = try readIfPresent() else {
            throw ReceiptError(.truncated, "\(what): input ends at byte \(position) where a value was expected")
        }
        return node
    }

    /// Reads the next value and checks its tag.
    public mutating func read(_ tag: ASN1Tag, _ what: String) throws -> ASN1Node {
        try read(what).expect(tag, what)
    }

    /// Reads the next value only if it carries `tag`.
    public mutating func readOptional(_ tag: ASN1Tag) throws -> ASN1Node? {
        guard position < end, let peeked = try peekTag(), peeked == tag else { return nil }
        return try readIfPresent()
    }

    /// Fails with `trailingBytes` unless the region has been read completely.
    public func finish(_ what: String) throws {
        guard isAtEnd else {
            throw ReceiptError(.trailingBytes, "\(what): \(end - position) unexpected byte(s) at byte \(position)")
        }
    }

    /// Reads the next value, or returns nil at the end of the region.
    public mutating func readIfPresent() throws -> ASN1Node? {
        guard position < end else { return nil }
        guard depth <= limits.maxDepth else {
            throw ReceiptError(.tooDeep, "ASN.1 nesting deeper than \(limits.maxDepth) levels at byte \(position)")
        }
        let start = position
        var cursor = position
        let tag = try readTag(&cursor)
        guard cursor < end else {
            throw ReceiptError(.truncated, "ASN.1 value at byte \(start): input ends inside the length")
        }
        let first = buffer[cursor]
        cursor += 1
        let node: ASN1Node
        if first == 0x80 {
            guard tag.isConstructed else {
                throw ReceiptError(.badLength, "ASN.1 value at byte \(start): indefinite length on a primitive \(tag)")
            }
            var inner = ASN1Reader(buffer: buffer, from: cursor, to: end, depth: depth + 1, limits: limits)
            while true {
                guard inner.position + 1 < end else {
                    throw ReceiptError(.truncated, "ASN.1 \(tag) at byte \(start): indefinite length without end-of-contents")
                }
                if buffer[inner.position] == 0, buffer[inner.position + 1] == 0 { break }
                _ = try inner.read("ASN.1 \(tag) at byte \(start)")
            }
            node = ASN1Node(tag: tag, buffer: buffer, headerStart: start, contentStart: cursor,
                            contentEnd: inner.position, end: inner.position + 2, isIndefinite: true,
                            depth: depth, limits: limits)
        } else {
            var length = Int(first)
            if first & 0x80 != 0 {
                let count = Int(first & 0x7F)
                guard count <= 4 else {
                    throw ReceiptError(.badLength, "ASN.1 \(tag) at byte \(start): length of \(count) octets is absurd")
                }
                guard end - cursor >= count else {
                    throw ReceiptError(.truncated, "ASN.1 \(tag) at byte \(start): input ends inside the length")
                }
                length = 0
                for _ in 0..<count {
                    length = (length << 8) | Int(buffer[cursor])
                    cursor += 1
                }
            }
            guard length <= end - cursor else {
                throw ReceiptError(.badLength,
                                   "ASN.1 \(tag) at byte \(start): length \(length) runs past the end of its container (\(end - cursor) bytes left)")
            }
            node = ASN1Node(tag: tag, buffer: buffer, headerStart: start, contentStart: cursor,
                            contentEnd: cursor + length, end: cursor + length, isIndefinite: false,
                            depth: depth, limits: limits)
        }
        position = node.end
        return node
    }

    private func peekTag() throws -> ASN1Tag? {
        var cursor = position
        return try readTag(&cursor)
    }

    private func readTag(_ cursor: inout Int) throws -> ASN1Tag {
        let start = cursor
        let first = buffer[cursor]
        cursor += 1
        let tagClass = ASN1Tag.TagClass(rawValue: first >> 6) ?? .universal
        let constructed = first & 0x20 != 0
        var number = UInt32(first & 0x1F)
        if number == 0x1F {
            number = 0
            var octets = 0
            while true {
                guard cursor < end else {
                    throw ReceiptError(.truncated, "ASN.1 value at byte \(start): input ends inside the tag")
                }
                let byte = buffer[cursor]
                cursor += 1
                octets += 1
                guard octets <= 4 else {
                    throw ReceiptError(.badValue, "ASN.1 value at byte \(start): tag number too large")
                }
                number = (number << 7) | UInt32(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
        } else if first == 0 {
            throw ReceiptError(.unexpectedTag, "ASN.1 value at byte \(start): unexpected end-of-contents octets")
        }
        return ASN1Tag(tagClass, number, constructed: constructed)
    }
}
