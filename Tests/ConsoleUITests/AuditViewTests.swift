import Foundation
import PurchaseStore
import ReceiptCore
import Testing
@testable import ConsoleUI

/// The Audit tab for a team (issue 13, item 4): filtered by operator, action and target, and an
/// altered log named in the status bar on open and on refresh.
@Suite("The audit tab")
struct AuditViewTests {
    @Test func entriesFilterByOperatorActionAndTarget() throws {
        let f = try ConsoleFixture()
        let browser = Browser(f.database)
        func entries(_ text: String) throws -> [AuditEntry] {
            try browser.page(.audit, filter: try BrowseFilter(parsing: text), cursor: .first, limit: 100).rows.compactMap {
                if case .audit(_, let entry) = $0 { return entry } else { return nil }
            }
        }
        let all = try entries("")
        #expect(try entries("operator:li").map(\.seq) == all.filter { $0.operatorName == "li" }.map(\.seq))
        #expect(try !entries("operator:li").isEmpty)
        #expect(try entries("action:grant").map(\.seq) == all.filter { $0.action == "grant" }.map(\.seq))
        #expect(try entries("target:customer:a").map(\.seq) == all.filter { $0.target.hasPrefix("customer:a") }.map(\.seq))
        #expect(try entries("operator:mei action:import").allSatisfy { $0.operatorName == "mei" && $0.action == "import" })
        let elsewhere = try browser.page(.orders, filter: try BrowseFilter(parsing: "operator:li"), cursor: .first, limit: 5)
        #expect(elsewhere.ignored == ["operator:li (only audit entries have an operator)"])
        #expect(try BrowseFilter(parsing: "operator:li action:grant").text == "operator:li action:grant")
    }

    @Test func anAlteredLogIsNamedOnOpenAndOnRefresh() throws {
        let f = try ConsoleFixture()
        let original = try #require(try f.database.queryFirst("SELECT details FROM audit_log WHERE seq = 3", [])?.string("details"))
        try f.database.execute("UPDATE audit_log SET details = ? WHERE seq = 3", [.text(original.replacingOccurrences(of: "\"", with: "'"))])
        let (c, screen) = f.console(size: ScreenSize(rows: 30, columns: 140))
        // The first screen does not wait for the chain's check: it runs at the first tick.
        #expect(!screen.text.contains("AUDIT LOG ALTERED"))
        c.tick()
        c.render(on: screen)
        #expect(screen.text.contains("audit log does not verify: entry 3 was altered"), "\(screen.text)")
        #expect(screen.text.contains("AUDIT LOG ALTERED"))
        c.press(.character("2"), on: screen)
        #expect(screen.text.contains("AUDIT LOG ALTERED"), "the header keeps saying so")
        try f.database.execute("UPDATE audit_log SET details = ? WHERE seq = 3", [.text(original)])
        c.press(.control("l"), on: screen)
        #expect(screen.text.contains("audit log verifies again"), "\(screen.text)")
        #expect(!screen.text.contains("AUDIT LOG ALTERED"))
    }
}
