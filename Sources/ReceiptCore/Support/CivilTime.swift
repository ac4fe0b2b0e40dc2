import Foundation

/// A UTC calendar time broken into fields, converted to and from `Date` by arithmetic alone
/// (no calendars, no formatters), because dates are parsed on the hot path of every receipt.
public struct CivilTime: Equatable, Sendable {
    public var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
    /// Nanoseconds within the second.
    public var nanosecond: Int

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, nanosecond: Int = 0) {
        (self.year, self.month, self.day, self.hour, self.minute, self.second, self.nanosecond) =
            (year, month, day, hour, minute, second, nanosecond)
    }

    /// The UTC fields of `date`.
    public init(_ date: Date) {
        // Dates beyond ±30 million years cannot come from a receipt; clamp instead of trapping.
        let raw = date.timeIntervalSince1970
        let interval = raw.isFinite ? min(max(raw, -1e15), 1e15) : 0
        var whole = Int(interval.rounded(.down))
        var nanos = Int(((interval - Double(whole)) * 1e9).rounded())
        if nanos >= 1_000_000_000 {
            whole += 1
            nanos -= 1_000_000_000
        }
        var days = whole / 86_400
        var secs = whole % 86_400
        if secs < 0 { secs += 86_400; days -= 1 }
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.init(year: yoe + era * 400 + (m <= 2 ? 1 : 0), month: m, day: d,
                  hour: secs / 3600, minute: secs % 3600 / 60, second: secs % 60,
                  nanosecond: nanos)
    }

    /// Whether every field is in range for its month (leap years included).
    @inline(__always)
    public var isValid: Bool {
        guard (1...12).contains(month), (0...23).contains(hour), (0...59).contains(minute),
              (0...60).contains(second), day >= 1 else { return false }
        // A switch, not a table: this runs for every date a receipt carries.
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return day <= (leap ? 29 : 28)
        case 4, 6, 9, 11: return day <= 30
        default: return day <= 31
        }
    }

    /// Days since 1970-01-01 of the date part (Howard Hinnant's days_from_civil).
    @inline(__always)
    var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The instant these UTC fields name.
    /// Whole seconds since 1970-01-01T00:00:00Z.
    @inline(__always)
    public var secondsSinceEpoch: Int64 {
        Int64(daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    public var date: Date {
        let seconds = daysSinceEpoch * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanosecond) / 1e9)
    }
}
