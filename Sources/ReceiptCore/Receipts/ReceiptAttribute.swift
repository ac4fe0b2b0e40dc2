import Foundation

/// One attribute of a unified receipt's payload, as encoded:
///
///     ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }
///
/// The OCTET STRING holds a further DER value (UTF8String, IA5String, INTEGER, or a SET for
/// in-app purchases) or, for the opaque value and the hash, raw bytes. An attribute only records
/// where its value lies in the receipt's payload (`AppReceipt.payload`), so decoding a receipt
/// copies nothing it does not have to.
public struct ReceiptAttribute: Sendable {
    /// Apple's attribute number (2 bundle id, 17 in-app purchase, 1703 transaction id, …).
    public let type: Int
    public let version: Int
    /// Where the OCTET STRING's content lies in the payload.
    public let valueRange: Range<Int>
    /// Byte offset of the attribute in the payload, for error messages.
    public let offset: Int

    /// Reads the attribute SEQUENCE at `tlv`.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, _ tlv: TLV, depth: Int, _ what: () -> String) throws -> ReceiptAttribute {
        if tlv.tag == .sequence, let attribute = readCommonShape(bytes, tlv, depth: depth) { return attribute }
        return try readInFull(bytes, tlv, depth: depth, what)
    }

    /// `read` for every shape the grammar allows, and every error.
    static func readInFull(_ bytes: UnsafeBufferPointer<UInt8>, _ tlv: TLV, depth: Int, _ what: () -> String) throws -> ReceiptAttribute {
        guard tlv.tag == .sequence else {
            throw ReceiptError(.unexpectedTag, "\(what()) attribute at byte \(tlv.headerStart): expected SEQUENCE, found \(tlv.tag)")
        }
        let maxDepth = ASN1Limits.default.maxDepth
        var cursor = tlv.contentStart
        func next(_ expected: ASN1Tag, _ field: String) throws -> TLV {
            guard cursor < tlv.contentEnd else {
                throw ReceiptError(.truncated, "\(what()) attribute at byte \(tlv.headerStart): \(field) missing")
            }
            let part = try TLVScanner.scan(bytes, at: cursor, end: tlv.contentEnd, depth: depth + 1, maxDepth: maxDepth)
            guard part.tag == expected else {
                throw ReceiptError(.unexpectedTag, "\(what()) attribute \(field) at byte \(part.headerStart): expected \(expected), found \(part.tag)")
            }
            cursor = part.end
            return part
        }
        let typeTLV = try next(.integer, "type")
        let type = try TLVScanner.integer(bytes, typeTLV.contentStart..<typeTLV.contentEnd, at: typeTLV.headerStart) { "\(what()) attribute type" }
        let versionTLV = try next(.integer, "version")
        let version = try TLVScanner.integer(bytes, versionTLV.contentStart..<versionTLV.contentEnd, at: versionTLV.headerStart) { "\(what()) attribute version" }
        let value = try next(.octetString, "value")
        guard cursor == tlv.contentEnd else {
            throw ReceiptError(.trailingBytes, "\(what()) attribute \(type): \(Plural.of(tlv.contentEnd - cursor, "unexpected byte")) at byte \(cursor)")
        }
        guard (0...100_000).contains(type) else {
            throw ReceiptError(.badValue, "\(what()): attribute type \(type) at byte \(tlv.headerStart) is out of range")
        }
        return ReceiptAttribute(type: Int(type), version: Int(clamping: version),
                                valueRange: value.contentStart..<value.contentEnd, offset: tlv.headerStart)
    }

    /// The shape Apple writes every attribute in, read without the general scanner:
    /// `02 n type 02 n version 04 len value` (n from 1 to 8, len in at most two octets) filling
    /// the SEQUENCE exactly, type within range. nil for anything else, and `read` then decides
    /// (with its messages); for this shape it reaches the same attribute.
    @inline(__always)
    static func readCommonShape(_ bytes: UnsafeBufferPointer<UInt8>, _ tlv: TLV, depth: Int) -> ReceiptAttribute? {
        let end = tlv.contentEnd
        guard depth + 1 <= ASN1Limits.default.maxDepth, end <= bytes.count else { return nil }
        // type and version: `02 n` then n (1…8) two's-complement octets each.
        var cursor = tlv.contentStart
        var numbers: (Int64, Int64) = (0, 0)
        for which in 0..<2 {
            guard end - cursor >= 3, bytes[cursor] == 0x02 else { return nil }
            let count = Int(bytes[cursor + 1])
            guard count >= 1, count <= 8, end - cursor - 2 >= count else { return nil }
            var value: Int64 = bytes[cursor + 2] & 0x80 != 0 ? -1 : 0
            for index in (cursor + 2)..<(cursor + 2 + count) { value = value << 8 | Int64(bytes[index]) }
            cursor += 2 + count
            if which == 0 { numbers.0 = value } else { numbers.1 = value }
        }
        let (type, version) = numbers
        guard (0...100_000).contains(type), end - cursor >= 2, bytes[cursor] == 0x04 else { return nil }
        let lengthOctet = bytes[cursor + 1]
        var start = cursor + 2
        var length = Int(lengthOctet)
        if lengthOctet == 0x81, end - start >= 1 {
            length = Int(bytes[start])
            start += 1
        } else if lengthOctet == 0x82, end - start >= 2 {
            length = Int(bytes[start]) << 8 | Int(bytes[start + 1])
            start += 2
        } else if lengthOctet >= 0x80 {
            return nil
        }
        guard length == end - start else { return nil }
        return ReceiptAttribute(type: Int(type), version: Int(clamping: version), valueRange: start..<end, offset: tlv.headerStart)
    }

    /// The DER value inside the OCTET STRING, or nil when the string is empty.
    @inline(__always)
    func inner(_ bytes: UnsafeBufferPointer<UInt8>, _ what: () -> String) throws -> TLV? {
        guard !valueRange.isEmpty else { return nil }
        do {
            let tlv = try TLVScanner.scan(bytes, at: valueRange.lowerBound, end: valueRange.upperBound, depth: 4,
                                          maxDepth: ASN1Limits.default.maxDepth)
            guard tlv.end == valueRange.upperBound else {
                throw ReceiptError(.trailingBytes, "\(Plural.of(valueRange.upperBound - tlv.end, "unexpected byte")) at byte \(tlv.end)")
            }
            return tlv
        } catch let error as ReceiptError {
            throw error.prefixed(what())
        }
    }

    /// A text field: UTF8String, IA5String or PrintableString inside. Empty text is nil.
    func string(_ bytes: UnsafeBufferPointer<UInt8>, _ what: () -> String) throws -> String? {
        try string(bytes, reusing: nil, nil, what)
    }

    /// `string`, answering with `first` or `second` when the text is exactly theirs: a value a
    /// receipt repeats (the product id of every renewal, an original transaction id) is then
    /// the String already made, not a new allocation. Same values, same errors.
    func string(_ bytes: UnsafeBufferPointer<UInt8>, reusing first: String?, _ second: String?,
                _ what: () -> String) throws -> String? {
        guard let tlv = try textTLV(bytes, what) else { return nil }
        let content = UnsafeBufferPointer(rebasing: bytes[tlv.contentStart..<tlv.contentEnd])
        if let first, UTF8Text.isText(first, content) { return first }
        if let second, UTF8Text.isText(second, content) { return second }
        guard let text = UTF8Text.validated(content) else {
            throw ReceiptError(.badUTF8, "\(what()) at byte \(tlv.contentStart): string is not valid UTF-8")
        }
        return text
    }

    @inline(__always)
    private func textTLV(_ bytes: UnsafeBufferPointer<UInt8>, _ what: () -> String) throws -> TLV? {
        guard let tlv = try inner(bytes, what) else { return nil }
        switch tlv.tag {
        case .utf8String, .ia5String, .printableString: break
        default: throw ReceiptError(.unexpectedTag, "\(what()) holds \(tlv.tag), expected a string")
        }
        return tlv.contentStart == tlv.contentEnd ? nil : tlv
    }

    /// An INTEGER field.
    func integer(_ bytes: UnsafeBufferPointer<UInt8>, _ what: () -> String) throws -> Int64? {
        guard let tlv = try inner(bytes, what) else { return nil }
        guard tlv.tag == .integer else {
            throw ReceiptError(.unexpectedTag, "\(what()) holds \(tlv.tag), expected INTEGER")
        }
        return try TLVScanner.integer(bytes, tlv.contentStart..<tlv.contentEnd, at: tlv.headerStart, what)
    }

    /// A date field: an RFC 3339 string inside; empty means absent.
    func date(_ bytes: UnsafeBufferPointer<UInt8>, _ what: () -> String) throws -> Date? {
        guard let tlv = try textTLV(bytes, what) else { return nil }
        let text = UnsafeBufferPointer(rebasing: bytes[tlv.contentStart..<tlv.contentEnd])
        guard let date = RFC3339.parse(bytes: text) else {
            throw ReceiptError(.badValue, "\(what()) is not RFC 3339: '\(String(decoding: text.prefix(64), as: UTF8.self))'")
        }
        return date
    }

    /// A 0/1 INTEGER flag.
    func flag(_ bytes: UnsafeBufferPointer<UInt8>, _ what: () -> String) throws -> Bool? {
        try integer(bytes, what).map { $0 != 0 }
    }

    /// The value bytes.
    public func value(in payload: [UInt8]) -> ArraySlice<UInt8> { payload[valueRange] }

    /// The value for display: the decoded string or integer when it is one, else hex.
    public func displayValue(in payload: [UInt8]) -> String {
        payload.withUnsafeBufferPointer { bytes in
            // A value that is not a DER string or integer is shown as hex: that is what it is.
            if let tlv = try? inner(bytes, { "" }) {
                switch tlv.tag {
                case .utf8String, .ia5String, .printableString:
                    if let text = try? string(bytes, { "" }) { return "\"\(text)\"" }
                    if tlv.contentStart == tlv.contentEnd { return "\"\"" }
                case .integer:
                    if let number = try? integer(bytes, { "" }) { return String(number) }
                default: break
                }
            }
            return valueRange.isEmpty ? "(empty)" : Array(payload[valueRange]).hexString
        }
    }

    /// The date in a date field, for display; nil when empty or not a date.
    public func dateValue(in payload: [UInt8]) -> Date? {
        payload.withUnsafeBufferPointer { bytes in try? date(bytes, { "" }) }  // nil: empty or not a date
    }
}
