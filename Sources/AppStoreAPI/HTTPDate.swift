import Foundation
import ReceiptCore

/// HTTP-date (RFC 9110 §5.6.7), as `Retry-After` may carry it, in its three historical forms:
///
///     Sun, 06 Nov 1994 08:49:37 GMT      IMF-fixdate (what servers send today)
///     Sunday, 06-Nov-94 08:49:37 GMT     RFC 850 (two-digit year: 70–99 → 19xx, else 20xx)
///     Sun Nov  6 08:49:37 1994           ANSI C asctime()
///
/// Parsed by hand (no formatter, no locale); the weekday is not checked.
public enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The instant `text` names, or nil when it is none of the three forms.
    public static func parse(_ text: String) -> Date? {
        guard text.utf8.count <= 64 else { return nil }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        switch words.count {
        case 6 where words[0].hasSuffix(",") && words[5] == "GMT":
            return civil(day: words[1], month: words[2], year: words[3], time: words[4])
        case 4 where words[0].hasSuffix(",") && words[3] == "GMT":
            let parts = words[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, parts[2].count == 2, let yy = Int(parts[2]) else { return nil }
            return civil(day: parts[0], month: parts[1], year: String(yy >= 70 ? 1900 + yy : 2000 + yy), time: words[2])
        case 5 where !words[0].hasSuffix(","):
            return civil(day: words[2], month: words[1], year: words[4], time: words[3])
        default:
            return nil
        }
    }

    private static func civil(day: String, month: String, year: String, time: String) -> Date? {
        guard (1...2).contains(day.count), day.allSatisfy(\.isASCIIDigit), let d = Int(day),
              year.count == 4, year.allSatisfy(\.isASCIIDigit), let y = Int(year),
              let m = months.firstIndex(of: month.lowercased()) else { return nil }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCIIDigit) }),
              let hh = Int(clock[0]), let mm = Int(clock[1]), let ss = Int(clock[2]) else { return nil }
        let fields = CivilTime(year: y, month: m + 1, day: d, hour: hh, minute: mm, second: ss)
        return fields.isValid ? fields.date : nil
    }
}

extension Character {
    var isASCIIDigit: Bool { asciiValue.map { (0x30...0x39).contains($0) } ?? false }
}
