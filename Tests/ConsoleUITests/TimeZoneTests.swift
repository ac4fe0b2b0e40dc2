import Foundation
import PurchaseStore
import ReceiptCore
import Testing
@testable import ConsoleUI

/// Times in the operator's zone, named; UTC on `u`; stored values unchanged (issue 13, item 6).
@Suite("Times in the operator's zone")
struct TimeZoneTests {
    @Test func timesShowInTheOperatorsZoneNamedAndInUTCOnDemand() throws {
        let f = try ConsoleFixture()
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let (c, screen) = f.console(size: ScreenSize(rows: 30, columns: 140), timeZone: berlin)
        #expect(screen.lines[0].contains("UTC+02:00"), "the header names the zone: \(screen.lines[0])")
        c.press(.character("6"), .end, .enter, on: screen)  // the oldest audit entry, 2025-06-01 12:00 UTC
        #expect(screen.text.contains("2025-06-01 14:00 UTC+02:00"), "\(screen.text)")
        c.press(.character("u"), on: screen)
        #expect(screen.text.contains("2025-06-01 12:00 UTC"), "\(screen.text)")
        #expect(screen.text.contains("times in UTC"))
        c.press(.character("u"), on: screen)
        #expect(screen.text.contains("times in Europe/Berlin (UTC+02:00)"), "\(screen.text)")
        #expect(try f.database.queryFirst("SELECT at FROM audit_log WHERE seq = 1", [])?.string("at") == "2025-06-01T12:00:00.000Z",
                "stored values stay UTC")
    }

    @Test func theZoneComesFromTheConfigElseTZElseUTC() throws {
        #expect(DisplayZone.operatorZone(configured: "Asia/Tokyo", environment: ["TZ": "Europe/Berlin"]).identifier == "Asia/Tokyo")
        #expect(DisplayZone.operatorZone(configured: nil, environment: ["TZ": ":America/New_York"]).identifier == "America/New_York")
        #expect(DisplayZone.operatorZone(configured: nil, environment: ["TZ": "Nowhere/Atlantis"]).secondsFromGMT() == 0)
        let config = try StoreConfiguration(json: Array(#"{"display": {"timeZone": "Europe/Berlin"}}"#.utf8), source: "test")
        #expect(config.displayTimeZone == "Europe/Berlin")
        #expect(throws: ReceiptError.self) { try StoreConfiguration(json: Array(#"{"display": {"timeZone": "Mars/Olympus"}}"#.utf8), source: "test") }
        #expect(throws: ReceiptError.self) { try StoreConfiguration(json: Array(#"{"display": {"zone": "UTC"}}"#.utf8), source: "test") }
    }
}
