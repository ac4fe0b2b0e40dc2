import Foundation

/// How Apple refunded or revoked a transaction (`revocationType`, App Store Server API 1.19 and
/// notifications 2.20): `REFUND_FULL`, `REFUND_PRORATED` (see `revocationPercentage`) or
/// `FAMILY_REVOKE` (the organiser stopped sharing, or the member left the family).
/// The raw value is kept beside this (`Purchase.revocationTypeRaw`), so a new value decodes.
public enum RevocationType: String, Sendable {
    case refundFull = "REFUND_FULL"
    case refundProrated = "REFUND_PRORATED"
    case familyRevoke = "FAMILY_REVOKE"

    /// In words: "full refund", "prorated refund", "family sharing revoked".
    public var words: String {
        switch self {
        case .refundFull: return "full refund"
        case .refundProrated: return "prorated refund"
        case .familyRevoke: return "family sharing revoked"
        }
    }

    /// "full refund", "prorated refund 40%", "family sharing revoked", "revocation type X"
    /// (an unknown raw value), or nil without a type.
    public static func describe(raw: String?, percentage: Int64?) -> String? {
        guard let raw else { return percentage.map { "refunded \(RevocationPercentage.format($0))" } }
        let type = RevocationType(rawValue: raw)
        var text = type?.words ?? "revocation type \(raw)"
        // A family revoke is the member's whole copy: a share says nothing more.
        if let percentage, type != .familyRevoke { text += " \(RevocationPercentage.format(percentage))" }
        return text
    }
}

/// `revocationPercentage`: the share of the transaction Apple refunded or revoked, in milliunits
/// of a percent (Apple's doc: 67932 is 67.932%, 100000 is 100%), present only for a refund that
/// was not reversed. For an auto-renewable subscription Apple bases it on the time left in the
/// period; for other products on consumption.
public enum RevocationPercentage {
    /// The largest meaningful value: 100%.
    public static let whole: Int64 = 100_000

    /// "40%", "67.932%", "0.015%" (trailing zeros of the three decimals dropped).
    public static func format(_ milliPercent: Int64) -> String {
        let negative = milliPercent < 0
        let magnitude = milliPercent.magnitude
        var text = String(magnitude / 1000)
        var fraction = String(magnitude % 1000)
        if fraction != "0" {
            fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return (negative ? "-" : "") + text + "%"
    }

    /// The share kept (not refunded) as a fraction in 0…1; values outside 0…100000 are clamped.
    public static func keptFraction(_ milliPercent: Int64) -> Double {
        let clamped = min(max(milliPercent, 0), whole)
        return Double(whole - clamped) / Double(whole)
    }
}
