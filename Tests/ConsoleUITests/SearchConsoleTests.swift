import Foundation
import PurchaseStore
import ReceiptCore
import Testing
@testable import ConsoleUI

/// The search box in the console: checked while typed, counted per tab, moving to where the
/// matches are, and errors that leave once the next command works.
@Suite("Search in the console")
struct SearchConsoleTests {
    @Test func anInvalidQuerySaysWhatIsWrongWhileThePromptIsOpen() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console()
        c.press(.character("/"), on: screen)
        c.typeText("status:bogus", on: screen)
        #expect(screen.text.contains("✗ status:bogus is not one of"), "before Enter:\n\(screen.text)")
        c.press(.enter, on: screen)
        guard case .filter = c.state.mode else { Issue.record("Enter on an invalid query closed the prompt"); return }
        for _ in 0..<5 { c.press(.backspace, on: screen) }
        c.typeText("open", on: screen)
        #expect(!screen.lines[c.state.layout.promptRow].contains("✗"), "\(screen.lines[c.state.layout.promptRow])")
        c.press(.enter, on: screen)
        #expect(c.state.filter.status == "open")
        if case .filter = c.state.mode { Issue.record("a valid query left the prompt open") }
    }

    /// Issue 29: `/evn:sandbox` said "no matches"; a misspelt qualifier is refused naming it, and
    /// a word like a qualifier that is none is searched as text and named when nothing matches.
    @Test func anUnknownQualifierIsNamed() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console()
        c.press(.character("/"), on: screen)
        c.typeText("evn:sandbox", on: screen)
        #expect(screen.lines[c.state.layout.promptRow].contains("✗ 'evn:' is not a qualifier: did you mean env:?"),
                "\(screen.lines[c.state.layout.promptRow])")
        c.press(.enter, on: screen)
        guard case .filter = c.state.mode else { Issue.record("Enter on a misspelt qualifier closed the prompt"); return }
        #expect(c.state.filter.isEmpty)
        c.press(.escape, .character("/"), .control("u"), on: screen)
        c.typeText("urn:nothing", on: screen)
        c.press(.enter, on: screen)
        #expect(c.state.filter.terms == ["urn:nothing"])
        #expect(screen.text.contains("urn: is not a qualifier, searched as"), "\(screen.text)")
        // Quoted, a qualifier's misspelling is searched as text, and the query reads back the same.
        let quoted = try BrowseFilter(parsing: "\"evn:sandbox\" stauts")
        #expect(quoted.terms == ["evn:sandbox", "stauts"] && quoted.notQualifiers.isEmpty)
        #expect(try BrowseFilter(parsing: quoted.text) == quoted)
        #expect(throws: StoreError.self) { try BrowseFilter(parsing: "stauts:open") }
        #expect(throws: StoreError.self) { try BrowseFilter(parsing: "custmer:alice") }
        #expect(try BrowseFilter(parsing: "urn:x").text == "urn:x")
    }

    @Test func anOldErrorLeavesWithTheNextCommand() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console()
        c.press(.character(":"), on: screen)
        c.typeText("filter since:yesterday", on: screen)
        c.press(.enter, on: screen)
        #expect(c.state.message?.kind == .error)
        #expect(screen.text.contains("since:yesterday is not a date"))
        c.press(.character("2"), on: screen)
        #expect(c.state.message == nil, "the error stayed: \(String(describing: c.state.message))")
        #expect(!screen.text.contains("is not a date"))
    }

    @Test func matchesAreCountedPerTabAndTheConsoleMovesToThem() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console()
        // A transaction id prefix: no customer's own id starts with it; transactions do.
        c.press(.character("/"), on: screen)
        c.typeText("10000003593694", on: screen)
        c.press(.enter, on: screen)
        #expect(c.state.tab == .transactions, "moved to the tab with matches")
        let transactions = try #require(c.state.matchCounts[.transactions])
        #expect(transactions.count >= 3 && !transactions.isLowerBound)
        #expect(c.state.matchCounts[.customers] == MatchCount(count: 0, isLowerBound: false))
        #expect(screen.text.contains("none in customers: showing transactions"))
        #expect(screen.text.contains("Transactions · \(transactions.count) matches"))
        // Case-insensitive: a customer id in capitals finds the customer and their rows.
        c.press(.character("/"), on: screen)
        for _ in 0..<20 { c.press(.backspace, on: screen) }
        c.typeText("ALICE", on: screen)
        c.press(.enter, on: screen)
        #expect(c.state.matchCounts[.customers]?.count == 1)
        #expect((c.state.matchCounts[.transactions]?.count ?? 0) > 0, "alice's transactions")
        #expect(c.state.list.rows.count == Int(c.state.matchCounts[.transactions]?.count ?? -1))
    }
}
