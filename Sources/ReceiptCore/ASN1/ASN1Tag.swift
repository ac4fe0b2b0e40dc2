/// An ASN.1 identifier octet (or octets): class, constructed bit and tag number.
public struct ASN1Tag: Hashable, Sendable, CustomStringConvertible {
    /// The four ASN.1 tag classes.
    public enum TagClass: UInt8, Sendable {
        case universal = 0, application = 1, contextSpecific = 2, `private` = 3

        /// The class an identifier octet names in its top two bits.
        @inline(__always)
        static func of(identifier: UInt8) -> TagClass {
            switch identifier >> 6 {
            case 0: return .universal
            case 1: return .application
            case 2: return .contextSpecific
            default: return .private
            }
        }
    }

    public let tagClass: TagClass
    public let number: UInt32
    public let isConstructed: Bool

    public init(_ tagClass: TagClass, _ number: UInt32, constructed: Bool) {
        self.tagClass = tagClass
        self.number = number
        self.isConstructed = constructed
    }

    public static let boolean = ASN1Tag(.universal, 1, constructed: false)
    public static let integer = ASN1Tag(.universal, 2, constructed: false)
    public static let bitString = ASN1Tag(.universal, 3, constructed: false)
    public static let octetString = ASN1Tag(.universal, 4, constructed: false)
    public static let null = ASN1Tag(.universal, 5, constructed: false)
    public static let objectIdentifier = ASN1Tag(.universal, 6, constructed: false)
    public static let utf8String = ASN1Tag(.universal, 12, constructed: false)
    public static let sequence = ASN1Tag(.universal, 16, constructed: true)
    public static let set = ASN1Tag(.universal, 17, constructed: true)
    public static let printableString = ASN1Tag(.universal, 19, constructed: false)
    public static let ia5String = ASN1Tag(.universal, 22, constructed: false)
    public static let utcTime = ASN1Tag(.universal, 23, constructed: false)
    public static let generalizedTime = ASN1Tag(.universal, 24, constructed: false)

    /// A context-specific tag `[n]`.
    public static func context(_ number: UInt32, constructed: Bool) -> ASN1Tag {
        ASN1Tag(.contextSpecific, number, constructed: constructed)
    }

    /// The same tag with the constructed bit cleared: BER allows a constructed OCTET STRING.
    var primitive: ASN1Tag { ASN1Tag(tagClass, number, constructed: false) }

    public var description: String {
        switch (tagClass, number) {
        case (.universal, 1): return "BOOLEAN"
        case (.universal, 2): return "INTEGER"
        case (.universal, 3): return "BIT STRING"
        case (.universal, 4): return "OCTET STRING"
        case (.universal, 5): return "NULL"
        case (.universal, 6): return "OBJECT IDENTIFIER"
        case (.universal, 12): return "UTF8String"
        case (.universal, 16): return "SEQUENCE"
        case (.universal, 17): return "SET"
        case (.universal, 19): return "PrintableString"
        case (.universal, 22): return "IA5String"
        case (.universal, 23): return "UTCTime"
        case (.universal, 24): return "GeneralizedTime"
        case (.contextSpecific, let n): return "[\(n)]"
        case (.application, let n): return "[APPLICATION \(n)]"
        case (.private, let n): return "[PRIVATE \(n)]"
        case (.universal, let n): return "universal \(n)"
        }
    }
}
