import ReceiptCore

/// An X.501 distinguished name as X.509 writes it, one attribute per RDN, in the order given:
///
///     Name ::= SEQUENCE OF RelativeDistinguishedName
///     RelativeDistinguishedName ::= SET SIZE (1) OF AttributeTypeAndValue
///     AttributeTypeAndValue ::= SEQUENCE { type OBJECT IDENTIFIER, value DirectoryString }
///
/// The string type of every value is kept, so a name can copy another byte for byte (Apple Root
/// CA writes PrintableStrings; the WWDR and receipt-signing certificates write UTF8Strings).
public struct DistinguishedName: Sendable, Hashable {
    /// The attribute types receipt certificates use.
    public enum AttributeType: Sendable, Hashable {
        case commonName, organizationalUnit, organization, country

        /// The content octets of the attribute type's OID (2.5.4.3, 2.5.4.11, 2.5.4.10, 2.5.4.6).
        var oidContent: [UInt8] {
            switch self {
            case .commonName: return [0x55, 0x04, 0x03]
            case .organizationalUnit: return [0x55, 0x04, 0x0B]
            case .organization: return [0x55, 0x04, 0x0A]
            case .country: return [0x55, 0x04, 0x06]
            }
        }
    }

    /// How a value is encoded.
    public enum StringType: Sendable, Hashable {
        case utf8, printable
    }

    /// One `type = value` pair.
    public struct Component: Sendable, Hashable {
        /// The attribute (CN, OU, O, C).
        public var type: AttributeType
        /// The text.
        public var value: String
        /// How the text is encoded.
        public var stringType: StringType

        /// A component, UTF8String unless told otherwise.
        public init(_ type: AttributeType, _ value: String, _ stringType: StringType = .utf8) {
            self.type = type
            self.value = value
            self.stringType = stringType
        }
    }

    /// The attributes in encoding order.
    public var components: [Component]

    /// A name from components in encoding order.
    public init(_ components: [Component]) { self.components = components }

    /// `CN, O, C` with UTF8Strings (the country a PrintableString, as X.520 requires).
    public init(commonName: String, organization: String = "receiptdesk", country: String = "US") {
        self.init([Component(.commonName, commonName), Component(.organization, organization),
                   Component(.country, country, .printable)])
    }

    /// The first common name.
    public var commonName: String? { components.first { $0.type == .commonName }?.value }

    /// The DER `Name`.
    public var der: [UInt8] {
        DER.sequence(components.map { component in
            let value = component.stringType == .printable
                ? DER.printableString(component.value) : DER.utf8String(component.value)
            return DER.set([DER.sequence([DER.tlv(.objectIdentifier, component.type.oidContent), value])])
        })
    }
}

extension DistinguishedName {
    /// Apple's names, copied with their string types, for the impostor authority.
    enum Apple {
        /// `C=US, O=Apple Inc., OU=Apple Certification Authority, CN=Apple Root CA`, all PrintableString.
        static let rootCA = DistinguishedName([
            Component(.country, "US", .printable), Component(.organization, "Apple Inc.", .printable),
            Component(.organizationalUnit, "Apple Certification Authority", .printable),
            Component(.commonName, "Apple Root CA", .printable),
        ])
        /// WWDR G5 (issues receipt-signing certificates).
        static let wwdr = wwdr(generation: "G5")
        /// The unified receipt signer.
        static let receiptSigner = DistinguishedName([
            Component(.commonName, "Mac App Store and iTunes Store Receipt Signing"),
            Component(.organizationalUnit, "Apple Worldwide Developer Relations"),
            Component(.organization, "Apple Inc."), Component(.country, "US", .printable),
        ])
        /// The legacy receipt intermediate.
        static let iTunesStoreCA = DistinguishedName([
            Component(.country, "US", .printable), Component(.organization, "Apple Inc."),
            Component(.organizationalUnit, "Apple Certification Authority"),
            Component(.commonName, "Apple iTunes Store Certification Authority"),
        ])
        /// The legacy (iOS 6) receipt signer.
        static let purchaseReceiptCertificate = DistinguishedName([
            Component(.commonName, "PurchaseReceiptCertificate"), Component(.organizationalUnit, "Apple iTunes Store"),
            Component(.organization, "Apple Inc."), Component(.country, "US", .printable),
        ])
        /// The StoreKit 2 (JWS) root.
        static let rootCAG3 = DistinguishedName([
            Component(.commonName, "Apple Root CA - G3"), Component(.organizationalUnit, "Apple Certification Authority"),
            Component(.organization, "Apple Inc."), Component(.country, "US", .printable),
        ])
        /// WWDR G6 (issues the JWS signer).
        static let wwdrG6 = wwdr(generation: "G6")
        /// The JWS signer.
        static let eccReceiptSigner = DistinguishedName([
            Component(.commonName, "Prod ECC Mac App Store and iTunes Store Receipt Signing"),
            Component(.organizationalUnit, "Apple Worldwide Developer Relations"),
            Component(.organization, "Apple Inc."), Component(.country, "US", .printable),
        ])

        private static func wwdr(generation: String) -> DistinguishedName {
            DistinguishedName([
                Component(.commonName, "Apple Worldwide Developer Relations Certification Authority"),
                Component(.organizationalUnit, generation), Component(.organization, "Apple Inc."),
                Component(.country, "US", .printable),
            ])
        }
    }
}
