/// The one place BER/DER headers are read: identifier, length, and for BER's indefinite form the
/// matching end-of-contents. Works on raw bytes without retaining anything, so hot loops (receipt
/// payloads) and the safe `ASN1Reader` share exactly the same rules and error messages.
struct TLV {
    let tag: ASN1Tag
    let headerStart: Int
    let contentStart: Int
    let contentEnd: Int
    let end: Int
    let isIndefinite: Bool
}

enum TLVScanner {
    /// Reads the value at `position`; at or past `end` fails with `truncated`. `depth` is the
    /// nesting level of that value; deeper than `maxDepth` fails with `tooDeep`.
    @inline(__always)
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int, end: Int, depth: Int, maxDepth: Int) throws -> TLV {
        // The shape of nearly every DER value: one identifier octet and a definite length in at
        // most two octets, inside the region. Anything else (and every error) takes the full path
        // below, which accepts the same inputs and says the same things.
        if depth <= maxDepth, position >= 0, position + 1 < end, end <= bytes.count {
            let first = bytes[position]
            if first & 0x1F != 0x1F, first != 0 {
                let lengthOctet = bytes[position + 1]
                var cursor = position + 2
                var length = -1
                if lengthOctet < 0x80 {
                    length = Int(lengthOctet)
                } else if lengthOctet == 0x81, cursor < end {
                    length = Int(bytes[cursor])
                    cursor += 1
                } else if lengthOctet == 0x82, cursor + 1 < end {
                    length = Int(bytes[cursor]) << 8 | Int(bytes[cursor + 1])
                    cursor += 2
                }
                if length >= 0, length <= end - cursor {
                    let tag = ASN1Tag(.of(identifier: first), UInt32(first & 0x1F), constructed: first & 0x20 != 0)
                    return TLV(tag: tag, headerStart: position, contentStart: cursor, contentEnd: cursor + length,
                               end: cursor + length, isIndefinite: false)
                }
            }
        }
        return try scanInFull(bytes, at: position, end: end, depth: depth, maxDepth: maxDepth)
    }

    /// `scan` for every shape BER allows, and every error.
    @inline(never)
    static func scanInFull(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int, end: Int, depth: Int, maxDepth: Int) throws -> TLV {
        guard depth <= maxDepth else {
            throw ReceiptError(.tooDeep, "ASN.1 nesting deeper than \(maxDepth) levels at byte \(position)")
        }
        let start = position
        var cursor = position
        let tag = try readTag(bytes, &cursor, end: end)
        guard cursor < end else {
            throw ReceiptError(.truncated, "ASN.1 value at byte \(start): input ends inside the length")
        }
        let first = bytes[cursor]
        cursor += 1
        if first == 0x80 {
            guard tag.isConstructed else {
                throw ReceiptError(.badLength, "ASN.1 value at byte \(start): indefinite length on a primitive \(tag)")
            }
            var inner = cursor
            while true {
                guard inner + 1 < end else {
                    throw ReceiptError(.truncated, "ASN.1 \(tag) at byte \(start): indefinite length without end-of-contents")
                }
                if bytes[inner] == 0, bytes[inner + 1] == 0 { break }
                inner = try scan(bytes, at: inner, end: end, depth: depth + 1, maxDepth: maxDepth).end
            }
            return TLV(tag: tag, headerStart: start, contentStart: cursor, contentEnd: inner, end: inner + 2, isIndefinite: true)
        }
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
                length = (length << 8) | Int(bytes[cursor])
                cursor += 1
            }
        }
        guard length <= end - cursor else {
            throw ReceiptError(.badLength,
                               "ASN.1 \(tag) at byte \(start): length \(length) runs past the end of its container (\(Plural.of(end - cursor, "byte")) left)")
        }
        return TLV(tag: tag, headerStart: start, contentStart: cursor, contentEnd: cursor + length, end: cursor + length, isIndefinite: false)
    }

    static func readTag(_ bytes: UnsafeBufferPointer<UInt8>, _ cursor: inout Int, end: Int) throws -> ASN1Tag {
        let start = cursor
        // Callers walking fields in place (a certificate's TBS, an attribute) may ask at the very
        // end of an empty or exhausted container: that is missing input, never a read past it.
        guard cursor >= 0, cursor < min(end, bytes.count) else {
            throw ReceiptError(.truncated, "ASN.1 value at byte \(start): input ends where a value was expected")
        }
        let first = bytes[cursor]
        cursor += 1
        let tagClass = ASN1Tag.TagClass.of(identifier: first)
        let constructed = first & 0x20 != 0
        var number = UInt32(first & 0x1F)
        if number == 0x1F {
            number = 0
            var octets = 0
            while true {
                guard cursor < end else {
                    throw ReceiptError(.truncated, "ASN.1 value at byte \(start): input ends inside the tag")
                }
                let byte = bytes[cursor]
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

    /// The value of a two's-complement INTEGER content of at most 8 bytes.
    static func integer(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, at offset: Int, _ what: () -> String) throws -> Int64 {
        guard !range.isEmpty else {
            throw ReceiptError(.badValue, "\(what()) at byte \(offset): empty INTEGER")
        }
        guard range.count <= 8 else {
            throw ReceiptError(.tooLarge, "\(what()) at byte \(offset): INTEGER of \(range.count) bytes does not fit 64 bits")
        }
        var value: Int64 = (bytes[range.lowerBound] & 0x80) != 0 ? -1 : 0
        for index in range { value = (value << 8) | Int64(bytes[index]) }
        return value
    }
}
