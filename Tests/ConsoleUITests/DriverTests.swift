import Foundation
import PurchaseStore
import ReceiptCore
import Testing
@testable import ConsoleUI

/// Every action driven by keys on the virtual screen, checked on the screen and in the database.
@Suite("Driving the console", .serialized)
struct DriverTests {
    func count(_ f: ConsoleFixture, _ sql: String) throws -> Int64 { try f.database.queryFirst(sql, [])?.int("n") ?? -1 }

    @Test func grantWithAnEmptyReasonIsRefusedAndChangesNothing() throws {
        let f = try ConsoleFixture()
        let before = try f.dump()
        let (c, screen) = f.console()
        c.press(.character("g"), on: screen)
        #expect(screen.text.contains("Grant an entitlement to alice"))
        c.press(.tab, .tab, on: screen)
        c.typeText("   ", on: screen)
        c.press(.enter, on: screen)
        #expect(screen.text.contains("a reason is required"))
        guard case .form = c.state.mode else { Issue.record("the form closed on a refused grant"); return }
        #expect(try f.dump() == before)
        // Even a change that reaches the ledger without a reason is refused there.
        c.dispatch(.key(.escape))
        c.dispatch(.previewReady(Confirmation(change: .grant(customer: "alice", entitlement: "coins", end: .forever, reason: " "), title: "x", lines: [])))
        c.press(.character("y"), on: screen)
        #expect(screen.text.contains("grant refused"))
        #expect(try f.dump() == before)
    }

    @Test func grantShowsExactlyWhatChangesThenWritesOneGrantAndOneAuditEntry() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console()
        c.press(.character("g"), on: screen)
        c.press(.tab, on: screen)
        c.typeText("P30D", on: screen)
        c.press(.tab, on: screen)
        c.typeText("goodwill after the outage", on: screen)
        c.press(.enter, on: screen)
        #expect(screen.text.contains("Grant coins to customer alice"))
        #expect(screen.text.contains("until 2025-07-01 12:00 UTC"), "30 days from the fixed clock, exactly")
        #expect(try count(f, "SELECT count(*) AS n FROM grants WHERE entitlement = 'coins'") == 0, "nothing before y")
        c.press(.character("y"), on: screen)
        #expect(screen.text.contains("granted coins to alice until 2025-07-01 12:00"))
        let grant = try #require(try f.database.queryFirst("SELECT * FROM grants WHERE entitlement = 'coins'", []))
        #expect(grant.string("reason") == "goodwill after the outage" && grant.string("granted_by") == "mei")
        #expect(grant.string("ends_at") == "2025-07-01T12:00:00.000Z")
        let audit = try AuditLog.entries(f.database, limit: 1)
        #expect(audit.first?.action == "grant" && audit.first?.target == "customer:alice" && audit.first?.operatorName == "mei")
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    @Test func everyActionRunsByNameFromTheCommandLine() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console()
        c.press(.character(":"), on: screen)
        c.typeText("grant", on: screen)
        c.press(.enter, on: screen)
        #expect(screen.text.contains("Grant an entitlement to alice"))
        c.press(.escape, on: screen)
        c.press(.character(":"), on: screen)
        c.typeText("tab audit", on: screen)
        c.press(.enter, on: screen)
        #expect(c.state.tab == .audit)
        c.press(.character(":"), on: screen)
        c.typeText("filter alice", on: screen)
        c.press(.enter, on: screen)
        #expect(c.state.list.rows.count == 6, "add, her name and email, three imports and the grant: the entries whose target is alice")
        c.press(.character(":"), on: screen)
        c.typeText("quit", on: screen)
        c.press(.enter, on: screen)
        #expect(c.isFinished)
    }

    @Test func revokeAGrant() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console()
        c.press(.character("x"), on: screen)
        #expect(screen.text.contains("grant #1: pro until 2025-07-01"))
        c.press(.tab, on: screen)
        c.typeText("granted by mistake", on: screen)
        c.press(.enter, on: screen)
        #expect(screen.text.contains("Revoke grant #1"))
        c.press(.character("y"), on: screen)
        #expect(screen.text.contains("revoked grant #1 of alice"))
        #expect(try f.database.queryFirst("SELECT revoked_by FROM grants WHERE grant_id = 1", [])?.string("revoked_by") == "mei")
    }

    @Test func restoreShowsAPreviewAndNoMeansNothingChanges() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console()
        let aliceOwns = try count(f, "SELECT count(*) AS n FROM transactions WHERE customer_id = 'alice'")
        let consumables = try count(f, "SELECT count(*) AS n FROM transactions WHERE customer_id = 'alice' AND product_type = 'consumable'")
        try #require(consumables > 0, "the fixture's alice holds a consumable")
        let bobOwns = try count(f, "SELECT count(*) AS n FROM transactions WHERE customer_id = 'bob'")
        c.press(.down, .character("R"), on: screen)  // bob
        c.typeText("alice", on: screen)
        c.press(.tab, .tab, .tab, .tab, on: screen)
        c.typeText("same person, new account", on: screen)
        c.press(.enter, on: screen)
        #expect(screen.text.contains("would move \(Plural.of(aliceOwns - consumables, "transaction"))"), "\(screen.text)")
        #expect(screen.text.contains("leaves \(Plural.of(consumables, "consumable purchase")) with \(consumables == 1 ? "its" : "their") owner"))
        let before = try f.dump()
        c.press(.character("n"), on: screen)
        #expect(screen.text.contains("nothing changed"))
        #expect(try f.dump() == before)
        c.press(.character("R"), on: screen)
        c.typeText("alice", on: screen)
        c.press(.tab, .tab, .tab, .tab, on: screen)
        c.typeText("same person, new account", on: screen)
        c.press(.enter, .character("y"), on: screen)
        #expect(screen.text.contains("restored to bob: moved \(aliceOwns - consumables)"), "\(screen.text)")
        #expect(screen.text.contains("\(Plural.of(consumables, "consumable")) stayed with \(consumables == 1 ? "its" : "their") owner"))
        #expect(try count(f, "SELECT count(*) AS n FROM transactions WHERE customer_id = 'bob'") == bobOwns + aliceOwns - consumables)
        // Moving the consumables too takes its own yes.
        c.press(.character("R"), on: screen)
        c.typeText("alice", on: screen)
        c.press(.tab, .tab, .tab, .right, .tab, on: screen)
        c.typeText("the customer insists", on: screen)
        c.press(.enter, on: screen)
        #expect(screen.text.contains("⚠ includes \(Plural.of(consumables, "consumable purchase"))"), "\(screen.text)")
        c.press(.character("y"), on: screen)
        #expect(screen.text.contains("will be spent twice"), "\(screen.text)")
        #expect(try count(f, "SELECT count(*) AS n FROM transactions WHERE customer_id = 'alice'") == consumables, "nothing moved before the second yes")
        c.press(.character("y"), on: screen)
        #expect(try count(f, "SELECT count(*) AS n FROM transactions WHERE customer_id = 'alice'") == 0)
    }

    @Test func resolveAConflictByChoosingTheOwner() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console()
        c.press(.character("5"), on: screen)
        #expect(screen.text.contains("⚠ open"))
        c.press(.character("o"), on: screen)
        #expect(screen.text.contains("Resolve conflict #1"))
        c.press(.right, .tab, on: screen)
        c.typeText("erin showed the bank statement", on: screen)
        c.press(.enter, on: screen)
        #expect(screen.text.contains("moves from carol to erin"))
        c.press(.character("y"), on: screen)
        #expect(try f.ledger.transaction("3000000000000001")?.customerId == "erin")
        #expect(try f.ledger.conflicts().isEmpty)
    }

    @Test func importAPastedReceiptAndAFile() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console()
        let pasted = try f.receipt([ConsoleFixture.purchase("5000000000000001", "com.example.pro.lifetime", bought: "2025-05-30T00:00:00Z")],
                                   created: "2025-05-30T00:01:00Z")
        c.press(.character("i"), .tab, on: screen)
        c.typeText(String(decoding: pasted, as: UTF8.self), on: screen)
        c.press(.tab, .enter, .enter, on: screen)
        #expect(screen.text.contains("5000000000000001"))
        c.press(.character("y"), on: screen)
        #expect(screen.text.contains("imported receipt #8 for alice: 1 recorded"))
        let file = f.directory.appendingPathComponent("receipt.txt")
        let another = try f.receipt([ConsoleFixture.purchase("5000000000000002", "com.example.coins.100", bought: "2025-05-31T00:00:00Z", type: 1)],
                                    created: "2025-05-31T00:01:00Z")
        try Data(another).write(to: file)
        c.press(.character("i"), .tab, on: screen)
        c.typeText(file.path, on: screen)
        c.press(.tab, .enter, .enter, .character("y"), on: screen)
        #expect(try f.ledger.transaction("5000000000000002")?.customerId == "alice")
    }

    @Test func readOnlyHidesAndRefusesEveryChange() async throws {
        let f = try ConsoleFixture()
        let before = try f.dump()
        let (c, screen) = f.console(readOnly: true, apple: try ScriptedApple(answer: ScriptedApple.mismatchAnswer).service())
        #expect(screen.text.contains("READ-ONLY"))
        for word in ["re-verify", "grant", "revoke", "restore", "import"] { #expect(!screen.lines[23].contains(word), "hint \(word) shown") }
        c.press(.character("?"), on: screen)
        for name in ["reverify", "grant", "revoke", "restore", "resolve", "import"] { #expect(!screen.text.contains(" \(name) "), "help lists \(name)") }
        c.press(.escape, on: screen)
        for key in ["g", "x", "R", "i", "r"] {
            c.press(.character(Character(key)), on: screen)
            #expect(screen.text.contains("read-only (--read-only): '"), "\(key) was not refused")
        }
        c.press(.character("5"), .character("o"), on: screen)
        #expect(screen.text.contains("read-only (--read-only): 'resolve'"))
        c.press(.character(":"), on: screen)
        c.typeText("import", on: screen)
        c.press(.enter, on: screen)
        #expect(screen.text.contains("'import' is not available"))
        // A change that reaches the controller anyway is refused there too.
        c.dispatch(.previewReady(Confirmation(change: .grant(customer: "alice", entitlement: "coins", end: .forever, reason: "x"), title: "x", lines: [])))
        c.press(.character("y"), on: screen)
        await c.settle()
        #expect(try f.dump() == before)
    }

    @Test func aFailedReverifyShowsApplesErrorAndChangesNothing() async throws {
        let f = try ConsoleFixture()
        let apple = ScriptedApple(answer: ScriptedApple.unavailable)
        let (c, screen) = f.console(apple: try apple.service())
        let tables = ["customers", "orders", "transactions", "receipts", "grants", "revocations", "conflicts"]
        let before = try f.dump(tables)
        c.press(.character("4"), .character("r"), on: screen)
        #expect(await c.settle())
        c.render(on: screen)
        #expect(screen.text.contains("✗ failed"))
        #expect(screen.text.contains("answered HTTP 503"))
        #expect(screen.text.contains("nothing changed"))
        #expect(try f.dump(tables) == before, "purchases, receipts and entitlements are as they were")
        #expect(try AuditLog.entries(f.database, limit: 1).first?.action == "reverify", "the attempt is audited")
        #expect(apple.paths == ["/verifyReceipt"])
    }

    @Test func reverifyShowsApplesAnswerBesideTheDecodeWithMismatch() async throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: ScreenSize(rows: 48, columns: 160), apple: try ScriptedApple(answer: ScriptedApple.mismatchAnswer).service())
        c.press(.character("4"), .character("r"), on: screen)
        #expect(await c.settle())
        c.render(on: screen)
        #expect(screen.text.contains("MISMATCH Apple says SANDBOX"))
        #expect(screen.text.contains("receipt (local)"))
        #expect(screen.text.contains("only Apple has it"))
        #expect(screen.style(of: "MISMATCH")?.role == .danger)
        #expect(try f.database.queryFirst("SELECT apple_environment FROM receipts WHERE receipt_id = 1", [])?.string("apple_environment") == "Sandbox")
    }

    @Test func escapeCancelsARunningReverificationAndTheSpinnerTurns() async throws {
        let f = try ConsoleFixture()
        let apple = ScriptedApple(gated: true, answer: ScriptedApple.mismatchAnswer)
        let (c, screen) = f.console(apple: try apple.service())
        c.press(.character("4"), .character("r"), on: screen)
        #expect(c.isBusy)
        let first = screen.lines[0]
        c.tick()
        c.render(on: screen)
        #expect(screen.lines[0] != first, "the spinner moved")
        c.press(.down, on: screen)
        #expect(c.state.list.selected == 1, "the screen does not freeze while Apple is asked")
        c.press(.escape, on: screen)
        #expect(!c.isBusy)
        #expect(screen.text.contains("re-verification cancelled"))
        apple.open()
        await c.settle()
    }

    @Test func quitAsksWhileReverifying() throws {
        let f = try ConsoleFixture()
        let apple = ScriptedApple(gated: true, answer: ScriptedApple.mismatchAnswer)
        let (c, screen) = f.console(apple: try apple.service())
        c.press(.character("4"), .character("r"), .character("q"), on: screen)
        #expect(screen.text.contains("Quit?"))
        c.press(.character("n"), on: screen)
        #expect(!c.isFinished)
        c.press(.character("q"), .character("y"), on: screen)
        #expect(c.isFinished)
        apple.open()
    }

    @Test(arguments: [ScreenSize(rows: 24, columns: 80), ScreenSize(rows: 48, columns: 160), ScreenSize(rows: 30, columns: 100)])
    func cjkNamesNeverBreakTheColumns(size: ScreenSize) throws {
        let f = try ConsoleFixture()
        try f.ledger.addCustomer("王小明王小明王小明王小明王小明王小明王小明", isTester: false, operatorName: "mei")
        try f.ledger.addCustomer("佐藤さくら", isTester: true, operatorName: "mei")
        let (c, screen) = f.console(size: size)
        for keys in [[KeyEvent](), [.end], [.character("4")], [.character("3")], [.character("1"), .end, .enter]] {
            c.press(.home, on: screen)
            for key in keys { c.press(key, on: screen) }
            let border = c.state.layout.listWidth - 1
            for row in 2..<(size.rows - 2) {
                #expect(DisplayWidth.of(screen.text(row: row)) == size.columns, "row \(row) is not \(size.columns) wide")
                #expect(screen.cell(row: row, column: border).character == "│" || screen.cell(row: row, column: border).character == "┐"
                        || screen.cell(row: row, column: border).character == "┘", "row \(row): the list border moved: \(screen.text(row: row))")
            }
        }
    }

    @Test func mouseClicksSelectAndTheWheelScrolls() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console()
        let row = try #require(screen.find("carol")).row
        c.press(.mouse(MouseEvent(.click, row: row, column: 5)), on: screen)
        #expect(c.state.list.selectedRow?.customerId == "carol")
        #expect(screen.text.contains("customer carol"))
        let tab = try #require(screen.find("Receipts")).column
        c.press(.mouse(MouseEvent(.click, row: 1, column: tab + 1)), on: screen)
        #expect(c.state.tab == .receipts)
        c.press(.mouse(MouseEvent(.wheelDown, row: 6, column: 5)), on: screen)
        #expect(c.state.list.selected == 3)
    }

    @Test func theTreeFoldsAndUnfolds() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: ScreenSize(rows: 48, columns: 160))
        c.press(.character("4"), .enter, on: screen)
        #expect(screen.text.contains("▸ in_app[0] (17)"))
        let lines = DetailLines.build(c.state)
        let index = try #require(lines.firstIndex { $0.treePath != nil && $0.spans.text.contains("▸ in_app[0]") })
        c.state.detail.cursor = index
        c.press(.enter, on: screen)
        #expect(screen.text.contains("▾ in_app[0] (17)"))
        #expect(screen.text.contains("transaction_id (1703)"))
        c.press(.character("h"), on: screen)
        #expect(screen.text.contains("▸ in_app[0] (17)"))
        c.press(.character("l"), on: screen)
        #expect(screen.text.contains("▾ in_app[0] (17)"))
        c.press(.character("*"), on: screen)
        #expect(!screen.text.contains("▸ in_app["), "every node open")
        c.press(.escape, on: screen)
        #expect(c.state.focus == .list)
    }

    @Test func openingALineDrillsInAndEscapeComesBack() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: ScreenSize(rows: 48, columns: 160))
        c.press(.enter, on: screen)
        let lines = DetailLines.build(c.state)
        c.state.detail.cursor = try #require(lines.firstIndex { $0.action == .open(.receipt(2)) })
        c.press(.enter, on: screen)
        #expect(c.state.detail.target == .receipt(2))
        #expect(screen.text.contains("receipt #2 · unified receipt"))
        c.press(.escape, on: screen)
        #expect(c.state.detail.target == .customer("alice"))
    }

    @Test func theFilterFindsEveryKindOfIdAndHighlightsIt() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: ScreenSize(rows: 48, columns: 160))
        c.press(.character("3"), .character("/"), on: screen)
        c.typeText("1000000359369424", on: screen)
        c.press(.enter, on: screen)
        #expect(c.state.list.rows.count == 3, "the transaction and the two renewals whose original it is")
        #expect(screen.style(of: "1000000359369424")?.role == .match)
        for (text, tab, expected) in [("ORD-8812", BrowseTable.orders, 1), ("王小明", .receipts, 1), ("金币礼包", .transactions, 1),
                                      ("status:conflict", .conflicts, 1), ("env:sandbox", .transactions, 1), ("verdict:invalid", .receipts, 0),
                                      ("customer:alice com.example.pro.monthly", .transactions, 3), ("#4", .receipts, 1)] {
            c.press(.character("/"), .control("u"), on: screen)
            c.typeText(text, on: screen)
            c.press(.enter, on: screen)
            c.handle(.character(Character(String(BrowseTable.allCases.firstIndex(of: tab).map { $0 + 1 } ?? 1))))
            c.render(on: screen)
            #expect(c.state.list.rows.count == expected, "/\(text) on \(tab): \(c.state.list.rows.count) rows")
        }
    }

    @Test func resizingRefillsTheWindow() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: ScreenSize(rows: 12, columns: 60))
        #expect(c.state.list.rows.count == c.state.layout.listRows)
        screen.resize(ScreenSize(rows: 40, columns: 120))
        c.render(on: screen)
        #expect(c.state.list.rows.count == 6, "every customer fits now")
        screen.resize(ScreenSize(rows: 8, columns: 40))
        c.render(on: screen)
        #expect(screen.text.contains("needs at least"))
    }
}

/// A typo in the import form's customer field is not a new customer (issue 13, item 5).
@Suite("Import form: an unknown customer")
struct ImportUnknownCustomerTests {
    @Test func anUnknownCustomerIsOfferedTheClosestAndCreatedOnlyWhenAsked() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: ScreenSize(rows: 30, columns: 140))
        let receipt = try f.receipt([ConsoleFixture.purchase("5000000000000009", "com.example.pro.lifetime", bought: "2025-05-30T00:00:00Z")],
                                    created: "2025-05-30T00:01:00Z")
        let customers = try f.database.queryFirst("SELECT count(*) AS n FROM customers", [])?.int("n")
        c.press(.character("i"), on: screen)
        c.press(.control("u"), on: screen)
        c.typeText("alcie", on: screen)
        c.press(.tab, on: screen)
        c.typeText(String(decoding: receipt, as: UTF8.self), on: screen)
        c.press(.tab, .tab, .enter, on: screen)
        #expect(screen.text.contains("no customer alcie: did you mean alice?"), "\(screen.text)")
        guard case .form = c.state.mode else { Issue.record("the form closed"); return }
        #expect(try f.database.queryFirst("SELECT count(*) AS n FROM customers", [])?.int("n") == customers)
        c.press(.right, .enter, on: screen)  // New customer: yes
        #expect(screen.text.contains("creates customer alcie"), "\(screen.text)")
        c.press(.character("y"), on: screen)
        #expect(try f.ledger.transaction("5000000000000009")?.customerId == "alcie")
    }
}
