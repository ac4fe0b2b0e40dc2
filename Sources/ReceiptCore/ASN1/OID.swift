import Foundation

/// An ASN.1 OBJECT IDENTIFIER kept in its encoded form, so matching one is a byte comparison.
public struct OID: Hashable, Sendable, CustomStringConvertible {
    /// The content octets of the encoding (no tag, no length).
    public let encoded: [UInt8]
    /// The dotted form.
    public let dotted: String

    /// Parses a dotted OID such as "1.2.840.113635.100.6.11.1"; nil when it is not one.
    public init?(_ dotted: String) {
        let arcs = dotted.split(separator: ".").map { UInt64($0) }
        guard arcs.count >= 2, arcs.allSatisfy({ $0 != nil }) else { return nil }
        let values = arcs.compactMap { $0 }
        guard values[0] <= 2, values[0] == 2 || values[1] < 40 else { return nil }
        var bytes: [UInt8] = []
        func append(_ value: UInt64) {
            var groups: [UInt8] = [UInt8(value & 0x7F)]
            var rest = value >> 7
            while rest > 0 {
                groups.append(UInt8(rest & 0x7F) | 0x80)
                rest >>= 7
            }
            bytes += groups.reversed()
        }
        append(values[0] * 40 + values[1])
        values.dropFirst(2).forEach(append)
        self.encoded = bytes
        self.dotted = dotted
    }

    public var description: String { dotted }

    /// Whether `content` (the content octets of an OBJECT IDENTIFIER) is this OID.
    @inline(__always)
    func isEncoded(by content: UnsafeBufferPointer<UInt8>) -> Bool {
        encoded.count == content.count && encoded.withUnsafeBufferPointer { mine in
            guard let a = mine.baseAddress, let b = content.baseAddress else { return true }  // both empty
            return memcmp(a, b, content.count) == 0
        }
    }

    /// The dotted form of encoded OID content octets.
    static func dotted(_ content: ArraySlice<UInt8>, what: String) throws -> String {
        guard !content.isEmpty, content.count <= 64 else {
            throw ReceiptError(.badValue, "\(what): OBJECT IDENTIFIER of \(content.count) bytes")
        }
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        var octets = 0
        for byte in content {
            value = (value << 7) | UInt64(byte & 0x7F)
            octets += 1
            guard octets <= 9 else {
                throw ReceiptError(.badValue, "\(what): OBJECT IDENTIFIER arc too large")
            }
            if byte & 0x80 == 0 {
                arcs.append(value)
                value = 0
                octets = 0
            }
        }
        guard octets == 0, let first = arcs.first else {
            throw ReceiptError(.badValue, "\(what): OBJECT IDENTIFIER ends inside an arc")
        }
        let head = first < 80 ? [first / 40, first % 40] : [2, first - 80]
        return (head + arcs.dropFirst()).map(String.init).joined(separator: ".")
    }
}

extension OID {
    static func known(_ dotted: String) -> OID {
        // Only called with the literal OIDs below, which are well-formed.
        guard let oid = OID(dotted) else { preconditionFailure("malformed OID literal \(dotted)") }
        return oid
    }

    public static let pkcs7Data = known("1.2.840.113549.1.7.1")
    public static let pkcs7SignedData = known("1.2.840.113549.1.7.2")
    public static let sha1 = known("1.3.14.3.2.26")
    public static let sha256 = known("2.16.840.1.101.3.4.2.1")
    public static let rsaEncryption = known("1.2.840.113549.1.1.1")
    public static let sha1WithRSA = known("1.2.840.113549.1.1.5")
    public static let sha256WithRSA = known("1.2.840.113549.1.1.11")
    public static let ecdsaWithSHA256 = known("1.2.840.10045.4.3.2")
    public static let ecdsaWithSHA384 = known("1.2.840.10045.4.3.3")
    public static let contentTypeAttribute = known("1.2.840.113549.1.9.3")
    public static let messageDigestAttribute = known("1.2.840.113549.1.9.4")
    /// Apple WWDR intermediate marker.
    public static let appleWWDRIntermediate = known("1.2.840.113635.100.6.2.1")
    /// Apple iTunes Store CA intermediate marker (legacy receipts).
    public static let appleITunesStoreIntermediate = known("1.2.840.113635.100.6.2.2")
    /// Apple receipt-signing leaf marker.
    public static let appleReceiptSigner = known("1.2.840.113635.100.6.11.1")
    /// The leaf marker Apple's iOS 6 sample code checked on legacy receipt certificates.
    public static let appleLegacyReceiptSigner = known("1.2.840.113635.100.6.5.1")
}
