import Foundation
import PurchaseStore
import ReceiptCore

/// How values look on screen: dates, counts, environment badges and verdicts, each with the
/// word that carries its meaning and the colour that goes with it.
enum ConsoleFormat {
    /// "2025-06-01", in the zone times are shown in (`DisplayZone`).
    static func date(_ date: Date) -> String { String(local(date).prefix(10)) }

    /// "2025-06-01 14:00", in the zone times are shown in (named in the header).
    static func dateTime(_ date: Date) -> String {
        let text = local(date)
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5))
    }

    /// "2025-06-01 14:00 CEST": a time with its zone, where it stands alone.
    static func dateTimeZoned(_ date: Date) -> String { dateTime(date) + " " + DisplayZone.abbreviation(for: date) }

    /// The RFC 3339 text of `date` shifted into the display zone (its digits read as local time).
    private static func local(_ date: Date) -> String {
        let zone = DisplayZone.current
        let offset = zone.secondsFromGMT(for: date)
        return RFC3339.format(offset == 0 ? date : date.addingTimeInterval(TimeInterval(offset)))
    }

    /// "1,204".
    static func count(_ n: Int64) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (index, digit) in digits.reversed().enumerated() {
            if index > 0 && index % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (n < 0 ? "-" : "") + String(out.reversed())
    }

    /// The environment named in the database ("Sandbox") as its typed value.
    static func environment(_ stored: String?) -> Environment {
        guard let stored else { return .unknown }
        return Environment(rawValue: stored) ?? Environment.allCases.first { $0.rawValue.lowercased() == stored.lowercased() } ?? .unknown
    }

    /// The colour of an environment's badge.
    static func role(_ environment: Environment) -> ColorRole {
        switch environment {
        case .production: return .production
        case .sandbox: return .sandbox
        case .xcode, .localTesting: return .local
        case .unknown: return .muted
        }
    }

    /// PRODUCTION / SANDBOX / XCODE / LOCAL, coloured.
    static func badge(_ environment: Environment) -> Span {
        Span(environment.badge, CellStyle(role(environment), bold: environment != .production && environment != .unknown))
    }

    /// MISMATCH in red, always with the word.
    static let mismatch = Span("MISMATCH", CellStyle(.danger, bold: true))

    /// "✓ valid", "✗ invalid", "? unsigned", "? unverifiable".
    static func verdict(_ status: String) -> Span {
        switch status {
        case "valid": return Span("✓ valid", CellStyle(.ok))
        case "invalid": return Span("✗ invalid", CellStyle(.danger, bold: true))
        default: return Span("? \(status)", CellStyle(.warning))
        }
    }

    /// A product id that fits `width`: whole when it does, else its last dot-separated parts
    /// ("com.example.pro.monthly" → "pro.monthly").
    static func product(_ id: String, width: Int) -> String {
        guard DisplayWidth.of(id) > width else { return id }
        let parts = id.split(separator: ".")
        for count in stride(from: min(3, parts.count - 1), through: 1, by: -1) {
            let tail = parts.suffix(count).joined(separator: ".")
            if DisplayWidth.of(tail) <= width { return tail }
        }
        return parts.last.map(String.init) ?? id
    }

    /// A transaction id shortened for narrow columns: the head and the tail ("10000…9424").
    static func shortId(_ id: String, _ width: Int) -> String {
        guard DisplayWidth.of(id) > width, width >= 7 else { return DisplayWidth.truncate(id, to: width) }
        let tail = (width - 1) / 2
        return String(id.prefix(width - 1 - tail)) + "…" + String(id.suffix(tail))
    }

    /// Words of `text` laid out in lines of at most `width` columns (long words are cut).
    static func wrap(_ text: String, width: Int) -> [String] { wrap(text, first: width, rest: width) }

    /// Words of `text` in lines of at most `first` columns for the first line, `rest` after.
    static func wrap(_ text: String, first: Int, rest: Int) -> [String] {
        guard first > 4, rest > 4 else { return [DisplayWidth.truncate(text, to: max(1, first))] }
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            let candidate = current.isEmpty ? word : current + " " + word
            let width = lines.isEmpty ? first : rest
            if DisplayWidth.of(candidate) <= width {
                current = candidate
            } else {
                if !current.isEmpty { lines.append(current) }
                current = DisplayWidth.truncate(word, to: lines.isEmpty ? first : rest)
            }
        }
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }

    /// A line of key hints ("j/k scroll · w wrap · Esc close") in `width` columns: whole hints
    /// only, never one cut ("Esc cance"); the ones that do not fit leave from the end, except a
    /// last "Esc …", which always stays.
    static func fitHints(_ line: String, width: Int) -> String {
        guard DisplayWidth.of(line) > width else { return line }
        let lead = String(line.prefix { $0 == " " })
        var items = line.dropFirst(lead.count).components(separatedBy: " · ")
        let escape = items.last.flatMap { $0.hasPrefix("Esc") ? $0 : nil }
        if escape != nil { items.removeLast() }
        var kept: [String] = []
        for item in items {
            let candidate = lead + (kept + [item] + (escape.map { [$0] } ?? [])).joined(separator: " · ")
            if DisplayWidth.of(candidate) > width { break }
            kept.append(item)
        }
        let result = lead + (kept + (escape.map { [$0] } ?? [])).joined(separator: " · ")
        return DisplayWidth.of(result) <= width ? result : (escape.map { lead + $0 } ?? "")
    }

    /// A search's count: "12", "1,000+", or "12+" when a scan stopped before counting them all.
    static func matchCount(_ m: MatchCount) -> String {
        count(m.count) + (m.isLowerBound ? "+" : "")
    }

    /// Splits `text` into spans, marking every occurrence of the filter's texts as a match.
    static func highlighted(_ text: String, _ style: CellStyle, _ needles: [String]) -> StyledLine {
        let needles = needles.filter { !$0.isEmpty }
        guard !needles.isEmpty else { return [Span(text, style)] }
        var spans: StyledLine = []
        var rest = Substring(text)
        var matchStyle = style
        matchStyle.role = .match
        while !rest.isEmpty {
            let hits = needles.compactMap { needle in rest.range(of: needle, options: .caseInsensitive).map { ($0, needle) } }
            guard let (range, _) = hits.min(by: { $0.0.lowerBound < $1.0.lowerBound }) else {
                spans.append(Span(String(rest), style))
                break
            }
            if range.lowerBound > rest.startIndex { spans.append(Span(String(rest[..<range.lowerBound]), style)) }
            spans.append(Span(String(rest[range]), matchStyle))
            rest = rest[range.upperBound...]
        }
        return spans
    }

    /// How Apple ended a transaction, after its id: "✗ refunded", "✗ prorated refund 40%",
    /// "✗ family sharing revoked", or "↑ upgraded" (not a refund).
    static func revocation(_ t: TransactionRecord) -> Span {
        if t.isUpgraded == true { return Span("  ↑ upgraded", CellStyle(.accent)) }
        if let words = t.revocationWords, t.revocationType != RevocationType.refundFull.rawValue {
            return Span("  ✗ " + words, CellStyle(.danger))
        }
        return Span("  ✗ refunded", CellStyle(.danger))
    }
}
