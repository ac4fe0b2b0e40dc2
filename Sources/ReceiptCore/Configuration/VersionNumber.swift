import Foundation

/// Build numbers as `original_application_version` carries them ("41", "1.2.3"), compared the way
/// people read them rather than as text.
public enum VersionNumber {
    /// Compares dotted build numbers numerically part by part ("9" < "10", "1.2" < "1.10",
    /// "2" == "2.0"); nil when either is not numeric dotted (e.g. "1.0b3", "", "1..2", " 1").
    ///
    /// Parts may have any number of digits (they are compared as digit strings, never converted,
    /// so nothing overflows); a missing trailing part counts as zero.
    public static func compare(_ a: String, _ b: String) -> ComparisonResult? {
        guard let left = parts(a), let right = parts(b) else { return nil }
        for index in 0..<max(left.count, right.count) {
            let l = index < left.count ? left[index] : "0"
            let r = index < right.count ? right[index] : "0"
            let order = compareDigits(l, r)
            if order != .orderedSame { return order }
        }
        return .orderedSame
    }

    /// Whether `text` is a numeric dotted build number.
    public static func isValid(_ text: String) -> Bool { parts(text) != nil }

    /// The parts of a numeric dotted build number with leading zeros removed; nil when not one.
    static func parts(_ text: String) -> [Substring]? {
        guard !text.isEmpty, text.count <= 256 else { return nil }
        var result: [Substring] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard !part.isEmpty, part.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
            let trimmed = part.drop { $0 == "0" }
            result.append(trimmed.isEmpty ? "0" : trimmed)
        }
        return result
    }

    /// Orders two digit strings without leading zeros: the longer is larger, else by text.
    private static func compareDigits(_ a: Substring, _ b: Substring) -> ComparisonResult {
        if a.count != b.count { return a.count < b.count ? .orderedAscending : .orderedDescending }
        if a == b { return .orderedSame }
        return a < b ? .orderedAscending : .orderedDescending
    }
}
