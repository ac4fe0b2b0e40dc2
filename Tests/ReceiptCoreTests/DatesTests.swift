import Foundation
import Testing
@testable import ReceiptCore

@Suite("RFC 3339 dates and civil time")
struct DatesTests {
    @Test(arguments: [
        ("2025-12-26T18:39:47Z", 1766774387.0),
        ("2020-07-22T18:33:15+0100", 1595439195.0),
        ("2020-07-22T18:33:15+01:00", 1595439195.0),
        ("2020-07-22T18:33:15-05:30", 1595462595.0),
        ("2020-07-22T18:33:15.250Z", 1595442795.25),
        ("4001-01-01T00:00:00Z", 64092211200.0),
        ("2024-02-29T00:00:00Z", 1709164800.0),
    ])
    func parses(_ text: String, _ seconds: Double) {
        #expect(RFC3339.parse(text)?.timeIntervalSince1970 == seconds)
    }

    @Test(arguments: ["", "2025-12-26", "2025-12-26T18:39:47", "2025-13-01T00:00:00Z", "2023-02-29T00:00:00Z",
                      "2025-12-26T18:39:47+1", "2025-12-26T18:39:47Zjunk", "2025-12-26T25:00:00Z", "yyyy-mm-ddThh:mm:ssZ"])
    func rejects(_ text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test func formatsInUTC() {
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1766774387)) == "2025-12-26T18:39:47Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1759302518.835)) == "2025-10-01T07:08:38.835Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -86400)) == "1969-12-31T00:00:00Z")
    }

    @Test func civilTimeRoundTrips() {
        for seconds in stride(from: -5_000_000_000.0, through: 70_000_000_000.0, by: 987_654_321.0) {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(CivilTime(date).date == date)
        }
    }

    @Test func appleLegacyDateText() {
        #expect(AppleDateText.parse("2012-04-30 15:05:55 Etc/GMT")?.timeIntervalSince1970 == 1335798355)
        #expect(AppleDateText.parse("2012-04-30 15:05:55 America/Los_Angeles") == nil)
    }
}

@Suite("Millisecond rounding")
struct MillisecondRoundingTests {
    @Test func carriesIntoTheNextSecond() {
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_700_000_000.9996)) == "2023-11-14T22:13:21Z")
        #expect(CivilTime(Date(timeIntervalSince1970: 1_700_000_000.9999999999)).nanosecond < 1_000_000_000)
    }
}

@Suite("Absurd dates")
struct AbsurdDatesTests {
    @Test func hugeDatesFormatWithoutTrapping() {
        #expect(!RFC3339.format(Date(timeIntervalSince1970: 1e300)).isEmpty)
        #expect(!RFC3339.format(Date(timeIntervalSince1970: -1e300)).isEmpty)
        #expect(!RFC3339.format(Date(timeIntervalSince1970: .nan)).isEmpty)
    }
}

@Suite("RFC 3339 round trip")
struct RFC3339RoundTripTests {
    /// Every millisecond-rounded instant from year 1 to 9999 formats as the fixed layout and
    /// parses back to itself.
    @Test func formattedDatesParseBackToTheSameMillisecond() {
        var generator = SystemRandomNumberGenerator()
        let range = -62_135_596_800.0...253_402_300_799.0  // 0001-01-01 … 9999-12-31T23:59:59Z
        for _ in 0..<20_000 {
            let millis = (Double.random(in: range, using: &generator) * 1000).rounded()
            let date = Date(timeIntervalSince1970: millis / 1000)
            let text = RFC3339.format(date)
            #expect(text.utf8.count == (millis.truncatingRemainder(dividingBy: 1000) == 0 ? 20 : 24), "\(text)")
            #expect(RFC3339.parse(text).map { ($0.timeIntervalSince1970 * 1000).rounded() } == millis, "\(text)")
        }
        #expect(RFC3339.format(Date(timeIntervalSince1970: -62_135_596_800)) == "0001-01-01T00:00:00Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 253_402_300_799.5)) == "9999-12-31T23:59:59.500Z")
    }
}
