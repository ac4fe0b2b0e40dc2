import Foundation

/// The zone the console draws times in: bound for the duration of one frame
/// (`ConsoleView.draw`), so every view formats in it without passing it down, and two consoles
/// drawing at once each keep their own.
public enum DisplayZone {
    public static let utc = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current

    @TaskLocal static var current: TimeZone = utc

    /// "UTC", or the offset in force at `date` ("UTC+02:00"): the same words on every platform
    /// (zone abbreviations are not).
    static func abbreviation(for date: Date) -> String { name(current, at: date) }

    static func name(_ zone: TimeZone, at date: Date) -> String {
        isUTC(zone) ? "UTC" : "UTC" + offset(zone.secondsFromGMT(for: date))
    }

    static func isUTC(_ zone: TimeZone) -> Bool { ["UTC", "GMT", "Etc/UTC", "Etc/GMT", "Z"].contains(zone.identifier) }

    /// "Europe/Berlin (UTC+02:00)" or "UTC": how a message names a zone.
    public static func describe(_ zone: TimeZone, at date: Date) -> String {
        isUTC(zone) ? "UTC" : "\(zone.identifier) (\(name(zone, at: date)))"
    }

    /// The operator's zone: `configured` (display.timeZone), else `TZ`, else UTC.
    public static func operatorZone(configured: String?, environment: [String: String]) -> TimeZone {
        if let configured, let zone = TimeZone(identifier: configured) { return zone }
        if let tz = environment["TZ"], !tz.isEmpty {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if let zone = TimeZone(identifier: name) { return zone }
        }
        return utc
    }

    static func offset(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let minutes = abs(seconds) / 60
        return sign + String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }
}
