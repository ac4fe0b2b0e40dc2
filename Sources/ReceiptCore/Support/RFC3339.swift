import Foundation

/// RFC 3339 timestamps as receipts carry them: `2025-12-26T18:39:47Z`, with an offset written
/// `+hh:mm` or, as older Xcode receipts do, `+hhmm`; fractional seconds are accepted and truncated
/// to the millisecond.
public enum RFC3339 {
    /// Parses a timestamp; nil when the text is not RFC 3339.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// Parses a timestamp from its UTF-8 bytes (a database column read in place); nil when it is not RFC 3339.
    public static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Date? { parse(bytes: bytes) }

    static func parse(bytes b: UnsafeBufferPointer<UInt8>) -> Date? {
        guard b.count >= 20 else { return nil }
        // The fixed part, `yyyy-mm-ddThh:mm:ss`, read without optionals (-1: not all digits).
        let year = number(b, 0, 4), month = number(b, 5, 2), day = number(b, 8, 2)
        let hour = number(b, 11, 2), minute = number(b, 14, 2), second = number(b, 17, 2)
        guard year >= 0, b[4] == 45, month >= 0, b[7] == 45, day >= 0, b[10] == 84 || b[10] == 116 || b[10] == 32,
              hour >= 0, b[13] == 58, minute >= 0, b[16] == 58, second >= 0 else { return nil }
        var i = 19
        var nanos = 0
        if b[i] == 46 {  // '.'
            i += 1
            var scale = 100_000_000
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                nanos += Int(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start, i - start <= 9 else { return nil }
            nanos -= nanos % 1_000_000  // truncated to the millisecond, as Apple's libraries do
        }
        guard i < b.count else { return nil }
        var offset = 0
        switch b[i] {
        case 90, 122:  // Z z
            i += 1
        case 43, 45:  // + -
            let sign = b[i] == 45 ? -1 : 1
            i += 1
            guard b.count - i >= 4 else { return nil }
            let hh = number(b, i, 2)
            guard hh >= 0 else { return nil }
            i += 2
            if b[i] == 58 { i += 1 }
            guard b.count - i >= 2 else { return nil }
            let mm = number(b, i, 2)
            guard mm >= 0, hh < 24, mm < 60 else { return nil }
            i += 2
            offset = sign * (hh * 3600 + mm * 60)
        default:
            return nil
        }
        guard i == b.count else { return nil }
        let civil = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute,
                              second: second, nanosecond: nanos)
        guard civil.isValid else { return nil }
        let seconds: Int64 = civil.secondsSinceEpoch - Int64(offset)
        let millis: Int64 = Int64(nanos / 1_000_000)
        return instant(milliseconds: seconds * 1000 + millis)
    }

    /// The decimal number in the `count` octets from `from` (in bounds), or -1 when one of them
    /// is not an ASCII digit.
    @inline(__always)
    private static func number(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ count: Int) -> Int {
        var value = 0
        for i in from..<(from + count) {
            let digit = b[i] &- 48
            guard digit < 10 else { return -1 }
            value = value * 10 + Int(digit)
        }
        return value
    }

    /// UNIX milliseconds from 0000-01-01 to 9999-12-31T23:59:59.999Z: the dates an artefact may
    /// carry (four-digit years, as every store and format here writes them; Xcode writes year 1
    /// for an app transaction's unknown original purchase).
    public static func isStorableMilliseconds(_ ms: Double) -> Bool {
        ms.isFinite && ms >= -62_167_219_200_000 && ms <= 253_402_300_799_999
    }

    /// The one Double every whole millisecond is represented by: whatever a date was made from
    /// (text, UNIX milliseconds, a clock reading truncated), the same millisecond is the same
    /// `Date`, so a stored instant read back compares equal to the one that was stored.
    public static func instant(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// `date` truncated to its millisecond (never rounded up into the future), as `instant`
    /// represents it. A reading already on a millisecond (its Double a hair below it) stays there.
    public static func truncatedToMilliseconds(_ date: Date) -> Date {
        let exact = date.timeIntervalSince1970 * 1000
        guard exact.isFinite, abs(exact) < 9e15 else { return date }
        let nearest = exact.rounded()
        return instant(milliseconds: Int64(abs(exact - nearest) < 1e-3 ? nearest : exact.rounded(.down)))
    }

    /// `date` in UTC as `2025-12-26T18:39:47Z`, with milliseconds only when there are some.
    public static func format(_ date: Date) -> String {
        // Rounded to the millisecond first, so .9996 s carries into the next second.
        let t = CivilTime(Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000))
        let millis = (t.nanosecond + 500_000) / 1_000_000
        guard (0...9999).contains(t.year) else {
            func pad(_ n: Int, _ width: Int) -> String {
                let s = String(n)
                return String(repeating: "0", count: max(0, width - s.count)) + s
            }
            var text = "\(pad(t.year, 4))-\(pad(t.month, 2))-\(pad(t.day, 2))T\(pad(t.hour, 2)):\(pad(t.minute, 2)):\(pad(t.second, 2))"
            if millis > 0 { text += "." + pad(millis, 3) }
            return text + "Z"
        }
        // Written digit by digit straight into the string: entitlement reasons and every valid
        // verdict format a date.
        let count = millis > 0 ? 24 : 20
        return String(unsafeUninitializedCapacity: count) { bytes in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var rest = value
                for index in stride(from: offset + width - 1, through: offset, by: -1) {
                    bytes[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(t.year, 4, at: 0)
            bytes[4] = UInt8(ascii: "-")
            put(t.month, 2, at: 5)
            bytes[7] = UInt8(ascii: "-")
            put(t.day, 2, at: 8)
            bytes[10] = UInt8(ascii: "T")
            put(t.hour, 2, at: 11)
            bytes[13] = UInt8(ascii: ":")
            put(t.minute, 2, at: 14)
            bytes[16] = UInt8(ascii: ":")
            put(t.second, 2, at: 17)
            if millis > 0 {
                bytes[19] = UInt8(ascii: ".")
                put(millis, 3, at: 20)
            }
            bytes[count - 1] = UInt8(ascii: "Z")
            return count
        }
    }

    /// A date from UNIX milliseconds, as JWS payloads and verifyReceipt `_ms` fields carry them.
    /// The instant `ms` milliseconds after 1970, truncated to a whole millisecond as Apple's
    /// libraries do (Xcode writes fractions: 1697679936049.7297 is …:36.049, not .050).
    public static func fromMilliseconds(_ ms: Double) -> Date {
        guard ms.isFinite, abs(ms) < 9e15 else { return Date(timeIntervalSince1970: ms / 1000) }
        return instant(milliseconds: Int64(ms.rounded(.down)))
    }
}
