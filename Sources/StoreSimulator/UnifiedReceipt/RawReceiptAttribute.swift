import Foundation
import ReceiptCore

/// One attribute of a unified receipt payload, written as given:
///
///     ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }
///
/// `value` is the OCTET STRING's content: a further DER value (UTF8String, IA5String, INTEGER, a
/// SET for in-app purchases) or raw bytes (opaque value, SHA-1 hash). The builders use it for every
/// field; tests use it to add attributes Apple might invent later.
public struct RawReceiptAttribute: Sendable, Hashable {
    /// The attribute number (17 in-app purchase, 1703 transaction id, …).
    public var type: Int
    /// The attribute version (1 for almost all; 2 for the opaque value).
    public var version: Int
    /// The OCTET STRING's content.
    public var value: [UInt8]

    /// An attribute from its parts.
    public init(type: Int, version: Int = 1, value: [UInt8]) {
        self.type = type
        self.version = version
        self.value = value
    }

    /// A DER UTF8String inside.
    public static func utf8(_ type: Int, _ text: String, version: Int = 1) -> RawReceiptAttribute {
        RawReceiptAttribute(type: type, version: version, value: DER.utf8String(text))
    }

    /// A DER IA5String inside.
    public static func ia5(_ type: Int, _ text: String, version: Int = 1) -> RawReceiptAttribute {
        RawReceiptAttribute(type: type, version: version, value: DER.ia5String(text))
    }

    /// A DER INTEGER inside.
    public static func integer(_ type: Int, _ value: Int64, version: Int = 1) -> RawReceiptAttribute {
        RawReceiptAttribute(type: type, version: version, value: DER.integer(value))
    }

    /// An RFC 3339 UTC date (`2025-12-26T18:39:47Z`) as an IA5String; an empty IA5String for nil,
    /// as Apple writes dates that do not apply.
    public static func date(_ type: Int, _ date: Date?, version: Int = 1) -> RawReceiptAttribute {
        ia5(type, date.map(RFC3339.format) ?? "", version: version)
    }

    /// The DER `ReceiptAttribute`.
    public var der: [UInt8] {
        DER.sequence([DER.integer(Int64(type)), DER.integer(Int64(version)), DER.octetString(value)])
    }
}

/// What to write for a date the receipt does not have.
public enum AbsentDateStyle: Sendable {
    /// An empty IA5String, as Apple does (transaction date 8, cancellation date 1712, …).
    case emptyString
    /// No attribute at all.
    case omitted
}
