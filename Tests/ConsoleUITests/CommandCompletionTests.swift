import Foundation
import PurchaseStore
import Testing
@testable import ConsoleUI

/// Issue 29: `:` completes action names and ids with Tab.
@Suite("Command line completion")
struct CommandCompletionTests {
    @Test func tabCompletesNamesTabsAndIdsOnScreen() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: ScreenSize(rows: 24, columns: 120))
        func prompt() -> String {
            guard case .command(let field) = c.state.mode else { return "(no prompt)" }
            return field.text
        }
        c.press(.character(":"), on: screen)
        c.typeText("gr", on: screen)
        c.press(.tab, on: screen)
        #expect(prompt() == "grant")
        c.press(.control("u"), on: screen)
        c.typeText("re", on: screen)
        c.press(.tab, on: screen)
        // refresh, restore, resolve, reverify, refunds: several; listed in the hint.
        #expect(prompt() == "re" && c.state.completions.contains("restore") && c.state.completions.contains("reverify"))
        #expect(screen.lines[c.state.layout.promptRow].contains("restore"), "\(screen.lines[c.state.layout.promptRow])")
        c.typeText("ve", on: screen)
        c.press(.tab, on: screen)
        #expect(prompt() == "reverify" && c.state.completions.isEmpty)
        c.press(.control("u"), on: screen)
        c.typeText("tab tr", on: screen)
        c.press(.tab, on: screen)
        #expect(prompt() == "tab transactions")
        c.press(.enter, on: screen)
        #expect(c.state.tab == .transactions)
        // An id of the rows on screen after a command: the transaction ids here.
        c.press(.character(":"), on: screen)
        c.typeText("filter 10000004", on: screen)
        c.press(.tab, on: screen)
        #expect(prompt() == "filter 1000000400000001 ", "\(prompt())")
        c.press(.enter, on: screen)
        #expect(c.state.filter.terms == ["1000000400000001"])
    }
}
