@testable import ConsoleUI
import Foundation
import PurchaseStore
import ReceiptCore
import Testing

/// Notes on a customer from the console: `n` opens the form, Enter previews, y writes the note
/// through the ledger (audited), and the customer view shows it to whoever opens the customer.
@Suite("Customer notes in the console", .serialized)
struct CustomerNoteActionTests {
    static let text = "called 12 May, promised a refund if Apple declines"

    @Test(arguments: ConsoleBackend.available) func aNoteIsPreviewedWrittenAndShownToTheTeam(_ backend: ConsoleBackend) async throws {
        let fixture = try ConsoleFixture(backend: backend)
        let (controller, screen) = fixture.console(size: ScreenSize(rows: 48, columns: 160))
        // An empty note is refused in the form.
        controller.press(.character("n"), .enter, on: screen)
        guard case .form(let refused) = controller.state.mode, case .note(let customer) = refused.kind else {
            Issue.record("no note form: \(controller.state.message?.text ?? "")"); return
        }
        #expect(customer == "alice")
        #expect(refused.error == "the note is empty: say what happened; nothing changed")
        controller.typeText(Self.text, on: screen)
        controller.press(.enter, on: screen)
        guard case .confirm(let confirmation) = controller.state.mode else { Issue.record("no preview: \(controller.state.message?.text ?? "")"); return }
        #expect(confirmation.title == "Note: confirm")
        #expect(confirmation.lines.map { $0.map(\.text).joined() }.contains("  \"\(Self.text)\""))
        #expect(try fixture.ledger.notes(of: "alice").isEmpty, "nothing before y")
        controller.press(.character("y"), on: screen)
        #expect(await controller.settle())
        #expect(controller.state.message?.text.hasPrefix("note #1 added to alice") == true, "\(controller.state.message?.text ?? "")")
        let notes = try fixture.ledger.notes(of: "alice")
        #expect(notes.map(\.text) == [Self.text] && notes.first?.writtenBy == "mei")
        #expect(try fixture.database.queryFirst("SELECT count(*) AS n FROM audit_log WHERE action = 'customer-note'", [])?.int("n") == 1)
        // Another operator's console shows it in the customer view.
        let (other, otherScreen) = fixture.console(size: ScreenSize(rows: 48, columns: 160))
        other.press(.enter, on: otherScreen)
        #expect(otherScreen.text.contains(Self.text) && otherScreen.text.contains("Notes"), "\(otherScreen.text)")
    }

    @Test func readOnlyHasNoNoteAction() throws {
        let fixture = try ConsoleFixture()
        let (controller, screen) = fixture.console(readOnly: true)
        controller.press(.character("n"), on: screen)
        if case .form = controller.state.mode { Issue.record("a read-only console opened the note form") }
        #expect(try fixture.ledger.notes(of: "alice").isEmpty)
    }

    static let scenarios: [(String, @Sendable (ConsoleController, ConsoleFixture) throws -> Void)] = [
        ("note-form", { c, _ in c.handle(.character("n")); c.type(text) }),
        ("note-preview", { c, _ in c.handle(.character("n")); c.type(text); c.handle(.enter) }),
        ("customer-notes", { c, f in
            try f.ledger.addNote(customer: "alice", text: text, operatorName: "li")
            try f.ledger.addNote(customer: "alice", text: "Apple declined on 14 May: refunded by hand, ticket 4411", operatorName: "mei")
            c.handle(.control("l")); c.handle(.enter)
        }),
    ]

    @Test(arguments: [ScreenSize(rows: 24, columns: 80), ScreenSize(rows: 48, columns: 160)])
    func snapshots(_ size: ScreenSize) throws {
        for (name, drive) in Self.scenarios {
            let fixture = try ConsoleFixture()
            let (controller, _) = fixture.console(size: size)
            try drive(controller, fixture)
            Snapshot.check(name, controller, size: size)
        }
    }
}

/// The team report in the console: W reads it (this week and this month) into the pager.
@Suite("Team report in the console", .serialized)
struct TeamReportConsoleTests {
    @Test(arguments: [ScreenSize(rows: 24, columns: 80), ScreenSize(rows: 48, columns: 160)])
    func theReportOpensInThePager(_ size: ScreenSize) async throws {
        let fixture = try ConsoleFixture()
        let (controller, screen) = fixture.console(size: size)
        controller.press(.character("W"), on: screen)
        #expect(await controller.settle())
        guard case .pager(let pager) = controller.state.mode else { Issue.record("no pager: \(controller.state.message?.text ?? "")"); return }
        #expect(pager.text.hasPrefix("This week: 2025-05-26 to 2025-06-01") && pager.text.contains("This month: 2025-06-01 to 2025-06-01"))
        Snapshot.check("team-report", controller, size: size)
    }
}
