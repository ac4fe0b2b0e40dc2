import Foundation

/// A length of time as ISO 8601 writes it, in the subset the catalogue needs:
/// `PnYnMnWnD` followed by an optional `TnHnMnS`, whole numbers only, designators in that order
/// and upper case ("P1Y", "P1M", "P7D", "PT12H", "P1MT12H", "P1Y2M3W4DT5H6M7S").
///
/// Years and months are calendar lengths, added to the UTC fields of a date (so P1M from the
/// 31st of January ends on the last day of February); weeks, days and the time part are fixed
/// lengths (a UTC day is always 86,400 seconds).
public struct ISODuration: Sendable, Equatable, CustomStringConvertible {
    public let years: Int
    public let months: Int
    public let weeks: Int
    public let days: Int
    public let hours: Int
    public let minutes: Int
    public let seconds: Int

    /// The most digits one component may have; keeps every sum far from overflow.
    static let maxDigits = 9

    /// Creates a duration from its components (negative values are treated as zero).
    public init(years: Int = 0, months: Int = 0, weeks: Int = 0, days: Int = 0,
                hours: Int = 0, minutes: Int = 0, seconds: Int = 0) {
        let limit = 999_999_999
        self.years = min(max(years, 0), limit)
        self.months = min(max(months, 0), limit)
        self.weeks = min(max(weeks, 0), limit)
        self.days = min(max(days, 0), limit)
        self.hours = min(max(hours, 0), limit)
        self.minutes = min(max(minutes, 0), limit)
        self.seconds = min(max(seconds, 0), limit)
    }

    /// Parses ISO 8601 duration text; nil when it is not in the supported subset
    /// (no designator after "P", a designator out of order or repeated, a fraction, a sign).
    public init?(_ text: String) {
        var scalars = Array(text.unicodeScalars)[...]
        guard scalars.first == "P" else { return nil }
        scalars = scalars.dropFirst()
        // Designators in the order they must appear; the time part starts after "T".
        let dateDesignators: [Unicode.Scalar] = ["Y", "M", "W", "D"]
        let timeDesignators: [Unicode.Scalar] = ["H", "M", "S"]
        var values = [Int](repeating: 0, count: 7)
        var inTime = false
        var next = 0  // index into the designators of the current part that may come next
        var sawComponent = false
        var sawTimeComponent = false
        while let first = scalars.first {
            if first == "T" {
                guard !inTime else { return nil }
                inTime = true
                next = 0
                scalars = scalars.dropFirst()
                continue
            }
            var number = 0
            var digits = 0
            while let digit = scalars.first, ("0"..."9").contains(digit) {
                number = number * 10 + Int(digit.value - 48)
                digits += 1
                scalars = scalars.dropFirst()
                guard digits <= ISODuration.maxDigits else { return nil }
            }
            guard digits > 0, let designator = scalars.first else { return nil }
            scalars = scalars.dropFirst()
            let designators = inTime ? timeDesignators : dateDesignators
            guard let position = designators[next...].firstIndex(of: designator) else { return nil }
            values[(inTime ? 4 : 0) + position] = number
            next = position + 1
            sawComponent = true
            if inTime { sawTimeComponent = true }
        }
        guard sawComponent, !inTime || sawTimeComponent else { return nil }
        self.init(years: values[0], months: values[1], weeks: values[2], days: values[3],
                  hours: values[4], minutes: values[5], seconds: values[6])
    }

    /// Whether every component is zero ("P0D").
    public var isZero: Bool {
        years == 0 && months == 0 && weeks == 0 && days == 0 && hours == 0 && minutes == 0 && seconds == 0
    }

    /// `date` moved forward by this duration: years and months on the UTC calendar fields (the day
    /// clamped to the last day of the month reached), then weeks, days, hours, minutes and seconds
    /// as fixed lengths. Uses `CivilTime` arithmetic only.
    public func adding(to date: Date) -> Date {
        let fixedSeconds = Double((weeks * 7 + days) * 86_400 + hours * 3_600 + minutes * 60 + seconds)
        guard abs(date.timeIntervalSince1970) < 1e15 else {
            // Beyond ±30 million years CivilTime's integer fields would overflow; months and years
            // are taken at their mean Gregorian length there.
            let calendarSeconds = Double(years * 12 + months) * 2_629_746
            return date.addingTimeInterval(calendarSeconds + fixedSeconds)
        }
        var civil = CivilTime(date)
        if years != 0 || months != 0 {
            let monthIndex = civil.year * 12 + (civil.month - 1) + years * 12 + months
            let year = monthIndex >= 0 ? monthIndex / 12 : (monthIndex - 11) / 12  // floored
            civil.year = year
            civil.month = monthIndex - year * 12 + 1
            civil.day = min(civil.day, ISODuration.daysInMonth(year: civil.year, month: civil.month))
        }
        return civil.date.addingTimeInterval(fixedSeconds)
    }

    /// The canonical ISO 8601 text: zero components left out, "P0D" when all are zero.
    public var description: String {
        if isZero { return "P0D" }
        var text = "P"
        for (value, designator) in [(years, "Y"), (months, "M"), (weeks, "W"), (days, "D")] where value != 0 {
            text += "\(value)\(designator)"
        }
        if hours != 0 || minutes != 0 || seconds != 0 {
            text += "T"
            for (value, designator) in [(hours, "H"), (minutes, "M"), (seconds, "S")] where value != 0 {
                text += "\(value)\(designator)"
            }
        }
        return text
    }

    /// The number of days in `month` (1...12) of the proleptic Gregorian `year`.
    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
