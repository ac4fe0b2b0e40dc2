import Foundation

/// Builds DER encodings from values. Used to forge test receipts and certificates (the
/// StoreSimulator) and to re-encode parsed values for round-trip checks.
///
/// Every function returns the complete TLV bytes of one value.
public enum DER {
    /// The identifier and length octets for a value of `length` content bytes.
    public static func header(_ tag: ASN1Tag, length: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        let first = (tag.tagClass.rawValue << 6) | (tag.isConstructed ? 0x20 : 0)
        if tag.number < 31 {
            bytes.append(first | UInt8(tag.number))
        } else {
            bytes.append(first | 0x1F)
            var groups: [UInt8] = [UInt8(tag.number & 0x7F)]
            var rest = tag.number >> 7
            while rest > 0 {
                groups.append(UInt8(rest & 0x7F) | 0x80)
                rest >>= 7
            }
            bytes += groups.reversed()
        }
        if length < 0x80 {
            bytes.append(UInt8(length))
        } else {
            var octets: [UInt8] = []
            var rest = length
            while rest > 0 {
                octets.insert(UInt8(rest & 0xFF), at: 0)
                rest >>= 8
            }
            bytes.append(0x80 | UInt8(octets.count))
            bytes += octets
        }
        return bytes
    }

    /// A value with `tag` and the given content octets.
    public static func tlv(_ tag: ASN1Tag, _ content: [UInt8]) -> [UInt8] {
        header(tag, length: content.count) + content
    }

    public static func sequence(_ elements: [[UInt8]]) -> [UInt8] { tlv(.sequence, elements.flatMap { $0 }) }

    /// A SET; with `sorted`, elements are put in DER's canonical order (by their encodings).
    public static func set(_ elements: [[UInt8]], sorted: Bool = false) -> [UInt8] {
        let ordered = sorted ? elements.sorted { $0.lexicographicallyPrecedes($1) } : elements
        return tlv(.set, ordered.flatMap { $0 })
    }

    public static func integer(_ value: Int64) -> [UInt8] {
        var bytes = withUnsafeBytes(of: value.bigEndian, Array.init)
        while bytes.count > 1,
              (bytes[0] == 0 && bytes[1] & 0x80 == 0) || (bytes[0] == 0xFF && bytes[1] & 0x80 != 0) {
            bytes.removeFirst()
        }
        return tlv(.integer, bytes)
    }

    /// An INTEGER from unsigned big-endian magnitude bytes (serial numbers, RSA moduli).
    public static func unsignedInteger(_ magnitude: [UInt8]) -> [UInt8] {
        var bytes = Array(magnitude.drop { $0 == 0 })
        if bytes.isEmpty { bytes = [0] }
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return tlv(.integer, bytes)
    }

    public static func boolean(_ value: Bool) -> [UInt8] { tlv(.boolean, [value ? 0xFF : 0]) }
    public static func null() -> [UInt8] { [0x05, 0x00] }
    public static func octetString(_ bytes: [UInt8]) -> [UInt8] { tlv(.octetString, bytes) }
    public static func bitString(_ bytes: [UInt8]) -> [UInt8] { tlv(.bitString, [0] + bytes) }
    public static func utf8String(_ text: String) -> [UInt8] { tlv(.utf8String, Array(text.utf8)) }
    public static func ia5String(_ text: String) -> [UInt8] { tlv(.ia5String, Array(text.utf8)) }
    public static func printableString(_ text: String) -> [UInt8] { tlv(.printableString, Array(text.utf8)) }
    public static func oid(_ oid: OID) -> [UInt8] { tlv(.objectIdentifier, oid.encoded) }

    /// `[n] EXPLICIT` around one value.
    public static func explicit(_ number: UInt32, _ inner: [UInt8]) -> [UInt8] {
        tlv(.context(number, constructed: true), inner)
    }

    /// A GeneralizedTime (`YYYYMMDDHHMMSSZ`), as X.509 requires from 2050 on.
    public static func generalizedTime(_ date: Date) -> [UInt8] {
        tlv(.generalizedTime, Array(timeText(date, fourDigitYear: true).utf8))
    }

    /// The time form X.509 asks for: UTCTime up to 2049, GeneralizedTime after.
    public static func x509Time(_ date: Date) -> [UInt8] {
        let year = CivilTime(date).year
        if year >= 1950 && year < 2050 {
            return tlv(.utcTime, Array(timeText(date, fourDigitYear: false).utf8))
        }
        return generalizedTime(date)
    }

    private static func timeText(_ date: Date, fourDigitYear: Bool) -> String {
        let t = CivilTime(date)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let year = fourDigitYear ? String(t.year) : two(t.year % 100)
        return year + two(t.month) + two(t.day) + two(t.hour) + two(t.minute) + two(t.second) + "Z"
    }
}
