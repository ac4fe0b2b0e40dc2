import Foundation
import PurchaseStore
import Testing
@testable import ConsoleUI

/// Issue 29: lists show names beside ids, columns adapt to the width (ids whole, headings never
/// cut, the least important columns leave first), at 80×24 and 200×60.
@Suite("List layout")
struct ListLayoutTests {
    static let sizes = [ScreenSize(rows: 24, columns: 80), ScreenSize(rows: 60, columns: 200)]

    /// The list pane's lines (inside its border) of the screen.
    static func listLines(_ c: ConsoleController, _ screen: VirtualScreen) -> [String] {
        let rect = c.state.layout.listRect
        return screen.lines[(rect.row + 1)..<(rect.row + rect.rows - 1)].map { line in
            String(line.dropFirst(rect.column + 1).prefix(rect.columns - 2))
        }
    }

    @Test(arguments: sizes)
    func customersShowTheirNameBesideTheIdAndASearchSaysWhyTheyMatched(_ size: ScreenSize) throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: size)
        let lines = Self.listLines(c, screen)
        #expect(lines.contains { $0.contains("alice") && $0.contains("Alice Liddell") }, "\(lines.joined(separator: "\n"))")
        // A name fragment finds alice; her row shows the name it matched.
        c.press(.character("/"), on: screen)
        c.typeText("liddell", on: screen)
        c.press(.enter, on: screen)
        let found = Self.listLines(c, screen)
        #expect(found.contains { $0.contains("alice") && $0.contains("Alice Liddell") }, "\(found.joined(separator: "\n"))")
        // An email fragment: bob's row shows the email, which is why he matched.
        c.press(.character("/"), .control("u"), on: screen)
        c.typeText("qa+bob", on: screen)
        c.press(.enter, on: screen)
        let byEmail = Self.listLines(c, screen)
        #expect(byEmail.contains { $0.contains("bob") && $0.contains("qa+bob@") }, "\(byEmail.joined(separator: "\n"))")
    }

    @Test(arguments: sizes, BrowseTable.allCases)
    func idsAreWholeAndHeadingsNeverCut(_ size: ScreenSize, _ table: BrowseTable) throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: size)
        c.press(.character(Character(String((BrowseTable.allCases.firstIndex(of: table) ?? 0) + 1))), on: screen)
        let lines = Self.listLines(c, screen)
        let heading = try #require(lines.first)
        #expect(!heading.contains("…"), "\(table) heading cut at \(size): \(heading)")
        for column in ListRowFormatter.columns(table) where column.drop == 0 {
            #expect(heading.contains(column.title), "\(table): \(column.title) left out at \(size): \(heading)")
        }
        for row in c.state.list.rows {
            let wanted: String
            switch row {
            case .transaction(_, let t): wanted = t.record.transactionId
            case .conflict(_, let k): wanted = k.transactionId
            case .customer(_, let cu): wanted = cu.customerId
            case .order(_, let o): wanted = o.orderId
            case .receipt(_, let r): wanted = "#\(r.record.receiptId)"
            case .audit(_, let a): wanted = "#\(a.seq)"
            }
            #expect(lines.contains { $0.contains(wanted) }, "\(table): \(wanted) is not whole at \(size):\n\(lines.joined(separator: "\n"))")
        }
    }

    @Test func theLeastImportantColumnsLeaveFirstAndSpareWidthGoesToTheGrowingOne() {
        let columns = [ListColumns.Column("id"), ListColumns.Column("name", cut: 6, drop: 2, grows: true),
                       ListColumns.Column("extra", cut: 5, drop: 3), ListColumns.Column("env", drop: 1)]
        let rows = [[ListColumns.Cell("1000000359369424"), ListColumns.Cell("Alice Liddell"), ListColumns.Cell("something"),
                     ListColumns.Cell("PRODUCTION")]]
        let narrow = ListColumns.plan(columns, rows: rows, total: 36)
        #expect(narrow == [16, 8, 0, 10], "\(narrow)")  // extra leaves, the name is cut to what is left
        let wide = ListColumns.plan(columns, rows: rows, total: 80)
        #expect(wide[0] == 16 && wide[2] == 9 && wide[3] == 10 && wide[1] == 80 - 16 - 9 - 10 - 3, "\(wide)")
        let line = ListColumns.line(rows[0], columns: columns, widths: narrow, total: 36).text
        #expect(line.hasPrefix("1000000359369424 Alice L… PRODUCTION"), "\(line)")
        // Cut short of its core (the name), the name sends a less important column away first.
        var named = rows
        named[0][1].core = 13
        let kept = ListColumns.plan(columns, rows: named, total: 41)
        #expect(kept == [16, 13, 0, 10], "\(kept)")
    }
}

/// Issue 29: labels are never cut ("↻ re-verifie", "Esc cance"): hints leave whole, the
/// timeline's legend wraps.
@Suite("Labels never cut")
struct LabelTests {
    @Test func hintsLeaveWholeAndEscStays() {
        let line = " j/k scroll · w wrap · / search · n next · y copy (OSC 52) · s save to a file · Esc close"
        #expect(ConsoleFormat.fitHints(line, width: 200) == line)
        let narrow = ConsoleFormat.fitHints(line, width: 43)
        #expect(narrow == " j/k scroll · w wrap · / search · Esc close", "\(narrow)")
        #expect(ConsoleFormat.fitHints(" a very long hint that does not fit · Esc cancels", width: 14) == " Esc cancels")
    }

    @Test(arguments: [ScreenSize(rows: 24, columns: 80), ScreenSize(rows: 60, columns: 200)])
    func noLabelIsCutOnTheCustomerViewThePagerOrAForm(_ size: ScreenSize) throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: size)
        c.press(.enter, .end, on: screen)  // alice's timeline, its legend at the end
        #expect(screen.text.contains("↻ re-verified"), "\(screen.text)")
        c.press(.escape, .character("v"), on: screen)
        #expect(screen.text.contains("Esc close"), "\(screen.text)")
        c.press(.character("s"), on: screen)
        #expect(screen.text.contains("Esc cancels"), "\(screen.text)")
        c.press(.escape, .escape, .character("g"), on: screen)
        #expect(screen.text.contains("Esc cancels"), "\(screen.text)")
        for cut in ["re-verifie ", "Esc cance ", "Esc clos "] { #expect(!screen.text.contains(cut)) }
    }
}
