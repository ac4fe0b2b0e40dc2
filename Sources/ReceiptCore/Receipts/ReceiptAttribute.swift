import Foundation

/// One attribute of a unified receipt's payload, as encoded:
///
///     ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }
///
/// The OCTET STRING holds a further DER value (UTF8String, IA5String, INTEGER, or a SET for
/// in-app purchases) or, for the opaque value and the hash, raw bytes.
public struct ReceiptAttribute: Sendable {
    /// Apple's attribute number (2 bundle id, 17 in-app purchase, 1703 transaction id, …).
    public let type: Int
    public let version: Int
    /// The payload the attribute lies in, and where its value is.
    let buffer: [UInt8]
    let valueRange: Range<Int>
    /// The OCTET STRING's content.
    public var value: ArraySlice<UInt8> { buffer[valueRange] }
    /// Byte offset of the attribute in the payload, for error messages.
    public let offset: Int

    init(_ node: ASN1Node, what: String) throws {
        var fields = try node.expect(.sequence, "\(what) attribute").children()
        let type = try fields.read(.integer, "\(what) attribute type").integer("\(what) attribute type")
        let version = try fields.read(.integer, "\(what) attribute version").integer("\(what) attribute version")
        let value = try fields.read(.octetString, "\(what) attribute \(type) value")
        try fields.finish("\(what) attribute \(type)")
        guard (0...100_000).contains(type) else {
            throw ReceiptError(.badValue, "\(what): attribute type \(type) at byte \(node.headerStart) is out of range")
        }
        self.type = Int(type)
        self.version = Int(clamping: version)
        self.buffer = value.buffer
        self.valueRange = value.contentStart..<value.contentEnd
        self.offset = node.headerStart
    }

    /// The DER value inside the OCTET STRING, or nil when the string is empty.
    private func inner(_ what: String) throws -> ASN1Node? {
        guard !value.isEmpty else { return nil }
        var reader = valueReader()
        let node = try reader.read(what)
        try reader.finish(what)
        return node
    }

    /// A reader over the value's content.
    func valueReader() -> ASN1Reader {
        ASN1Reader(buffer: buffer, from: valueRange.lowerBound, to: valueRange.upperBound, depth: 4, limits: .default)
    }

    /// A text field: UTF8String, IA5String or PrintableString inside. Empty text is nil.
    func string(_ what: String) throws -> String? {
        do {
            guard let node = try inner(what) else { return nil }
            switch node.tag {
            case .utf8String, .ia5String, .printableString: break
            default:
                throw ReceiptError(.unexpectedTag, "\(what) holds \(node.tag), expected a string")
            }
            let text = try node.string(what)
            return text.isEmpty ? nil : text
        } catch let error as ReceiptError where !error.reason.hasPrefix(what) {
            throw error.prefixed(what)
        }
    }

    /// An INTEGER field.
    func integer(_ what: String) throws -> Int64? {
        guard let node = try inner(what) else { return nil }
        guard node.tag == .integer else {
            throw ReceiptError(.unexpectedTag, "\(what) holds \(node.tag), expected INTEGER")
        }
        return try node.integer(what)
    }

    /// A date field: an RFC 3339 string inside; empty means absent.
    func date(_ what: String) throws -> Date? {
        guard let text = try string(what) else { return nil }
        guard let date = RFC3339.parse(text) else {
            throw ReceiptError(.badValue, "\(what) is not RFC 3339: '\(text.prefix(64))'")
        }
        return date
    }

    /// A 0/1 INTEGER flag.
    func flag(_ what: String) throws -> Bool? {
        try integer(what).map { $0 != 0 }
    }

    /// The value for display: the decoded string or integer when it is one, else hex.
    public var displayValue: String {
        // A value that is not a DER string or integer is shown as hex: that is what it is.
        if let node = try? inner("attribute") {
            switch node.tag {
            case .utf8String, .ia5String, .printableString:
                if let text = try? node.string("attribute") { return "\"\(text)\"" }
            case .integer:
                if let number = try? node.integer("attribute") { return String(number) }
            default: break
            }
        }
        return value.isEmpty ? "(empty)" : Array(value).hexString
    }
}
