import Foundation
import PurchaseStore
import Testing
@testable import ConsoleUI

/// Issue 29: Space tags rows, and an action applies to all tagged with one preview, through the
/// ledger's audited grant, each tagged customer exactly once (all or none).
@Suite("Tagging rows")
struct TaggingTests {
    @Test(arguments: ConsoleBackend.available)
    func oneGrantPreviewForEveryTaggedCustomerAppliedOnceEach(_ backend: ConsoleBackend) async throws {
        let f = try ConsoleFixture(backend: backend)
        let (c, screen) = f.console(size: ScreenSize(rows: 30, columns: 120))
        // dave (row 4) and erin (row 5), and dave's transactions tab has none: tag on customers.
        c.press(.down, .down, .down, on: screen)
        #expect(c.state.list.selectedRow?.customerId == "dave")
        c.press(.character(" "), .character(" "), on: screen)
        #expect(c.state.taggedCustomers == ["dave", "erin"], "\(c.state.taggedCustomers)")
        #expect(screen.text.contains("2 tagged"), "\(screen.text)")
        // Space again on a tagged row untags it; tag it back.
        c.press(.up, .character(" "), on: screen)
        #expect(c.state.taggedCustomers == ["dave"])
        c.press(.up, .character(" "), on: screen)
        #expect(c.state.taggedCustomers == ["dave", "erin"])
        let before = try f.database.query("SELECT grant_id FROM grants", []).count
        let auditBefore = try f.database.query("SELECT seq FROM audit_log WHERE action = 'grant'", []).count
        c.press(.character("g"), on: screen)
        #expect(screen.text.contains("Grant an entitlement to 2 tagged customers"), "\(screen.text)")
        c.press(.tab, on: screen)
        c.typeText("2025-12-31", on: screen)
        c.press(.tab, on: screen)
        c.typeText("outage goodwill", on: screen)
        c.press(.enter, on: screen)
        #expect(await c.settle())
        guard case .confirm(let confirmation) = c.state.mode else { Issue.record("no preview: \(screen.text)"); return }
        let preview = confirmation.lines.map(\.text).joined(separator: "\n")
        #expect(preview.contains("to customer dave") && preview.contains("to customer erin") && preview.contains("2 changes"), "\(preview)")
        c.press(.character("y"), on: screen)
        #expect(await c.settle())
        let grants = try f.database.query("SELECT customer_id FROM grants ORDER BY grant_id", []).compactMap { $0.string("customer_id") }
        #expect(grants.count == before + 2 && Array(grants.suffix(2)) == ["dave", "erin"], "\(grants)")
        #expect(try f.database.query("SELECT seq FROM audit_log WHERE action = 'grant'", []).count == auditBefore + 2, "one audit entry each")
        #expect(try AuditLog.verify(f.database).isIntact)
        #expect(c.state.tags.isEmpty, "the tags were acted on")
        #expect(screen.text.contains("2 done"), "\(screen.text)")
    }

    @Test func aTaggedCustomerThatWouldBeRefusedStopsTheWholeAction() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: ScreenSize(rows: 30, columns: 120))
        // alice already holds grant #1 of pro: granting pro to alice and bob is refused whole.
        c.press(.character(" "), .character(" "), on: screen)
        #expect(c.state.taggedCustomers == ["alice", "bob"])
        let before = try f.dump()
        c.press(.character("g"), on: screen)
        if case .form(var form) = c.state.mode, case .choice(let options, _) = form.fields[0].kind, let pro = options.firstIndex(of: "pro") {
            form.fields[0].kind = .choice(options, pro)
            c.state.mode = .form(form)
        }
        c.press(.tab, .tab, on: screen)
        c.typeText("goodwill", on: screen)
        c.press(.enter, on: screen)
        #expect(screen.text.contains("alice already has grant #1 of pro"), "\(screen.text)")
        #expect(try f.dump() == before, "nothing written")
    }
}
