import Foundation
import PurchaseStore
import Testing
@testable import ConsoleUI

/// Issue 29: columns sort. `S` goes to the list's next sortable column, `s` turns the sort
/// round, `:sort COLUMN [asc|desc]` picks one (Tab completes it); the heading marks the column
/// ▲ or ▼; each is a keyset walk, so paging is as cheap. On both backends.
@Suite("Sorting lists")
struct SortTests {
    @Test(arguments: ConsoleBackend.available)
    func sTurnsTheListRoundAndPagesTheOtherWay(_ backend: ConsoleBackend) throws {
        let f = try ConsoleFixture(backend: backend)
        let (c, screen) = f.console(size: ScreenSize(rows: 12, columns: 100))
        c.press(.character("3"), on: screen)
        let ascending = c.state.list.rows.map(\.key)
        c.press(.character("s"), on: screen)
        #expect(screen.text.contains("transaction ▼"), "\(screen.text)")
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
        c.press(.character("s"), on: screen)
        #expect(c.state.list.rows.map(\.key) == ascending && !screen.text.contains("transaction ▼") && !screen.text.contains("transaction ▲"))
    }

    @Test(arguments: ConsoleBackend.available)
    func sortingByAColumnPagesThroughEveryRowInItsOrder(_ backend: ConsoleBackend) throws {
        let f = try ConsoleFixture(backend: backend)
        let (c, screen) = f.console(size: ScreenSize(rows: 12, columns: 100))
        c.press(.character("3"), on: screen)
        c.press(.character("S"), on: screen)
        #expect(c.state.sorts[.transactions] == BrowseSort(.purchased, descending: true))
        #expect(screen.text.contains("purchased ▼"), "\(screen.text)")
        var seen = c.state.list.rows.map(\.key)
        for _ in 0..<10 {
            c.press(.pageDown, on: screen)
            seen += c.state.list.rows.map(\.key).filter { !seen.contains($0) }
        }
        // Newest purchase first, ties by id the same way, undated last.
        let rows = try f.database.query("SELECT transaction_id, purchase_date FROM transactions", []).map {
            (key: BrowseKey.text($0.string("transaction_id") ?? ""), date: $0.string("purchase_date"))
        }
        let dated = rows.filter { $0.date != nil }.sorted { a, b in a.date == b.date ? b.key < a.key : (a.date ?? "") > (b.date ?? "") }
        let undated = rows.filter { $0.date == nil }.map(\.key).sorted(by: >)
        #expect(seen == dated.map(\.key) + undated, "\(seen)")
        // Up from the end walks back over the same rows.
        c.press(.end, on: screen)
        var back = c.state.list.rows.map(\.key)
        for _ in 0..<10 {
            c.press(.pageUp, on: screen)
            back = c.state.list.rows.map(\.key).filter { !back.contains($0) } + back
        }
        #expect(back == seen, "\(back)")
    }

    @Test func sCyclesTheColumnsAndLowercaseSTurnsTheSortRound() {
        var state = ConsoleState(header: ConsoleHeader(database: "purchases.sqlite", operatorName: "mei", readOnly: false, appleLabel: "Apple"),
                                 size: ScreenSize(rows: 24, columns: 80))
        func load() -> ConsoleEffect { .loadList(.customers, ListRequest(cursor: .first, limit: state.layout.listRows, purpose: .replace(keepKey: nil))) }
        #expect(ConsoleReducer.reduce(&state, .key(.character("S"))) == [load()])
        #expect(state.sorts[.customers] == BrowseSort(.name, descending: false))
        #expect(state.message?.text == "Customers by name ▲: A to Z, no name last · S next · s flips")
        _ = ConsoleReducer.reduce(&state, .key(.character("s")))
        #expect(state.sorts[.customers] == BrowseSort(.name, descending: true))
        _ = ConsoleReducer.reduce(&state, .key(.character("S")))
        #expect(state.sorts[.customers] == BrowseSort(.created, descending: true))
        // After the last column, the list's own order (by its id, oldest first): nothing asked.
        _ = ConsoleReducer.reduce(&state, .key(.character("S")))
        #expect(state.sorts[.customers] == nil)
        // A list sorted only by its id turns round.
        _ = ConsoleReducer.reduce(&state, .key(.character("6")))
        _ = ConsoleReducer.reduce(&state, .key(.character("S")))
        #expect(state.sorts[.audit] == BrowseSort(.id, descending: false))
        // :sort picks a column and a direction; a column the list has not is refused, naming those it has.
        _ = ConsoleReducer.reduce(&state, .key(.character("4")))
        _ = ConsoleReducer.runCommandLine(&state, "sort received asc")
        #expect(state.sorts[.receipts] == BrowseSort(.received, descending: false))
        _ = ConsoleReducer.runCommandLine(&state, "sort name")
        #expect(state.message?.kind == .error && state.message?.text.contains("they sort by id, received") == true, "\(state.message?.text ?? "")")
        #expect(state.sorts[.receipts] == BrowseSort(.received, descending: false))
        // Tab completes the column, then the direction.
        #expect(CommandCompletion.complete("so", state: state).text == "sort ")
        #expect(CommandCompletion.complete("sort r", state: state).text == "sort received ")
        #expect(CommandCompletion.complete("sort received d", state: state).text == "sort received desc")
        #expect(CommandCompletion.complete("sort ", state: state).candidates == ["id", "received"])
    }

    @Test func aBroadSearchSaysItKeepsTheKeyOrderAndTheHeadingMarksTheOrderTheRowsAreIn() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: ScreenSize(rows: 24, columns: 80))
        c.press(.character("S"), on: screen)
        #expect(screen.text.contains("name ▲"), "\(screen.text)")
        c.press(.character("/"), on: screen)
        c.typeText("status:tester", on: screen)
        c.press(.enter, on: screen)
        #expect(c.state.list.sort == BrowseSort.own(.customers))
        #expect(screen.text.contains("shown by id, not by name"), "\(screen.text)")
        #expect(!screen.text.contains("name ▲"), "\(screen.text)")
    }

    @Test("sorted heading snapshots at 80×24")
    func sortedHeadingSnapshots() throws {
        let size = ScreenSize(rows: 24, columns: 80)
        for (name, keys) in [("sort-customers-name", [KeyEvent.character("S")]),
                             ("sort-transactions-purchased", [.character("3"), .character("S")]),
                             ("sort-receipts-received-ascending", [.character("4"), .character("S"), .character("s")])] {
            let f = try ConsoleFixture()
            let (c, _) = f.console(size: size, exportDirectory: "/home/support/Downloads")
            for key in keys { c.handle(key) }
            Snapshot.check(name, c, size: size)
        }
    }
}
