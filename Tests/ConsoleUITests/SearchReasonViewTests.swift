import Foundation
import PurchaseStore
import Testing
@testable import ConsoleUI

/// Issue 29 §3b: a customer row found through a related id says which and what it is.
@Suite("Search reasons in the list")
struct SearchReasonViewTests {
    @Test(arguments: ConsoleBackend.available)
    func aCustomerFoundByATransactionIdSaysSo(_ backend: ConsoleBackend) throws {
        let f = try ConsoleFixture(backend: backend)
        let (c, screen) = f.console(size: ScreenSize(rows: 24, columns: 80))
        c.press(.character("/"), on: screen)
        c.typeText("1000000359369425", on: screen)
        c.press(.enter, on: screen)
        #expect(c.state.tab == .customers && c.state.list.rows.count == 1, "\(screen.text)")
        #expect(screen.text.contains("via txn 1000000359369425"), "\(screen.text)")
        // By the name: highlighted as before, no reason.
        c.press(.character("/"), .control("u"), on: screen)
        c.typeText("liddell", on: screen)
        c.press(.enter, on: screen)
        #expect(screen.text.contains("Alice Liddell") && !screen.text.contains("via txn") && c.state.list.rows.count == 1, "\(screen.text)")
        if case .customer(_, let row)? = c.state.list.rows.first { #expect(row.matchedVia == nil) } else { Issue.record("no customer row") }
    }

    @Test(arguments: [ScreenSize(rows: 24, columns: 80), ScreenSize(rows: 60, columns: 200)])
    func snapshots(_ size: ScreenSize) throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: size)
        c.press(.character("/"), on: screen)
        c.typeText("ORD-8812", on: screen)
        c.press(.enter, on: screen)
        Snapshot.check("search-via-order", c, size: size)
    }
}
