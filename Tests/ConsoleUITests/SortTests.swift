import Foundation
import PurchaseStore
import Testing
@testable import ConsoleUI

/// Issue 29: columns sort. The list turns round on its id column (S), paged by the same keyset
/// walk the other way, so it is as cheap on a million rows; on both backends.
@Suite("Sorting lists")
struct SortTests {
    @Test(arguments: ConsoleBackend.available)
    func sTurnsTheListRoundAndPagesTheOtherWay(_ backend: ConsoleBackend) throws {
        let f = try ConsoleFixture(backend: backend)
        let (c, screen) = f.console(size: ScreenSize(rows: 12, columns: 100))
        c.press(.character("3"), on: screen)
        let ascending = c.state.list.rows.map(\.key)
        c.press(.character("S"), on: screen)
        #expect(screen.text.contains("transaction ↓"), "\(screen.text)")
        let descending = c.state.list.rows.map(\.key)
        #expect(descending.first == .text("3000000000000001"), "\(descending)")
        #expect(descending == descending.sorted(by: >) && ascending == ascending.sorted())
        // Paging on walks down the keys: every transaction once, newest first.
        var seen = descending
        for _ in 0..<10 {
            c.press(.pageDown, on: screen)
            seen += c.state.list.rows.map(\.key).filter { !seen.contains($0) }
        }
        let all = try f.database.query("SELECT transaction_id FROM transactions ORDER BY transaction_id DESC", []).compactMap { $0.string("transaction_id") }
        #expect(seen == all.map { BrowseKey.text($0) }, "\(seen)")
        c.press(.character("S"), on: screen)
        #expect(c.state.list.rows.map(\.key) == ascending && !screen.text.contains("transaction ↓"))
    }
}
