@testable import ConsoleUI
import Foundation
import PurchaseStore
import ReceiptCore
import Testing

/// The support team's console actions: X erases a customer's personal data (preview: what goes,
/// what stays), B grants to every customer the filter finds (preview: who would get what, then
/// one audited batch). Both through the ledger, on both backends.
@Suite("Erasure and goodwill for many in the console", .serialized)
struct SupportActionTests {
    static let size = ScreenSize(rows: 48, columns: 160)

    @Test(arguments: ConsoleBackend.available) func eraseIsPreviewedThenDoneThroughTheLedger(_ backend: ConsoleBackend) async throws {
        let fixture = try ConsoleFixture(backend: backend)
        try fixture.ledger.setContact("alice", CustomerContact(displayName: "Alice Martin", email: "alice@example.com"), operatorName: "mei")
        let (controller, screen) = fixture.console(size: Self.size)
        controller.press(.character("X"), .enter, on: screen)
        guard case .form(let refused) = controller.state.mode, case .erase("alice") = refused.kind else {
            Issue.record("no erase form: \(controller.state.message?.text ?? "")"); return
        }
        #expect(refused.error?.hasPrefix("a reason is required") == true)
        controller.typeText("GDPR request, ticket 991", on: screen)
        controller.press(.enter, on: screen)
        guard case .confirm(let confirmation) = controller.state.mode else { Issue.record("no preview: \(controller.state.message?.text ?? "")"); return }
        let preview = confirmation.lines.map { $0.map(\.text).joined() }
        #expect(preview.first == "Erase the personal data of customer alice")
        #expect(preview.contains("  fields: display name, email"), "\(preview)")
        #expect(try fixture.ledger.customerSummary("alice").email == "alice@example.com", "nothing before y")
        controller.press(.character("y"), on: screen)
        #expect(await controller.settle())
        #expect(controller.state.message?.text.hasPrefix("personal data of alice erased: 2 fields") == true, "\(controller.state.message?.text ?? "")")
        let summary = try fixture.ledger.customerSummary("alice")
        #expect(summary.email == nil && summary.displayName == nil && summary.erasedBy == "mei")
        #expect(try fixture.database.queryFirst("SELECT count(*) AS n FROM audit_log WHERE action = 'customer-erase'", [])?.int("n") == 1)
        #expect(try AuditLog.verify(fixture.database).isIntact)
        // The customer view says so; a receipt of theirs says its bytes went.
        controller.press(.control("l"), .enter, on: screen)
        #expect(screen.text.contains("personal data erased 2025-06-01 12:00 by mei"), "\(screen.text)")
        let stored = try #require(try Browser(fixture.database).receipt(try fixture.receiptId("alice")))
        let detail = DetailLoader.decode(stored, ledger: fixture.ledger, now: ConsoleFixture.now)
        #expect(detail.decodeError?.hasPrefix("its bytes were erased with the customer's personal data") == true, "\(detail.decodeError ?? "")")
    }

    @Test(arguments: ConsoleBackend.available) func grantBatchGoesToWhoTheFilterFinds(_ backend: ConsoleBackend) async throws {
        let fixture = try ConsoleFixture(backend: backend)
        let (controller, screen) = fixture.console(size: Self.size)
        controller.press(.character("B"), on: screen)
        #expect(controller.state.message?.text.hasPrefix("grant-batch: filter the customers first") == true, "no filter: no batch")
        controller.press(.character("/"), on: screen)
        controller.typeText("env:production", on: screen)
        controller.press(.enter, .character("B"), .tab, .right, .tab, .tab, .tab, .tab, on: screen)  // grant here; pro; to Reason
        controller.typeText("outage 3 June", on: screen)
        controller.press(.enter, on: screen)
        guard case .confirm(let confirmation) = controller.state.mode,
              case .grantBatch(_, let customers?, "pro", .forever, "outage 3 June") = confirmation.change else {
            Issue.record("no batch preview: \(controller.state.mode) \(controller.state.message?.text ?? "")"); return
        }
        let found = try GrantBatch.customers(matching: try BrowseFilter(parsing: "env:production"), in: fixture.database)
        #expect(customers == found && found.contains("alice") && found.count > 1, "\(found)")
        let preview = confirmation.lines.map { $0.map(\.text).joined() }
        #expect(preview.contains { $0.hasPrefix("  = alice  already has grant #1") }, "\(preview)")
        controller.press(.character("y"), on: screen)
        #expect(await controller.settle())
        #expect(controller.state.message?.text.contains(": granted pro to \(found.count - 1) of \(found.count) customers (1 left out") == true,
                "\(controller.state.message?.text ?? "")")
        for id in found where id != "alice" {
            #expect(try fixture.database.queryFirst("SELECT count(*) AS n FROM grants WHERE customer_id = ? AND granted_by = 'mei' AND reason = 'outage 3 June'",
                                                    [.text(id)])?.int("n") == 1, "\(id)")
        }
        #expect(try AuditLog.verify(fixture.database).isIntact)
    }

    @Test func readOnlyHasNeither() throws {
        let fixture = try ConsoleFixture()
        let (controller, screen) = fixture.console(readOnly: true)
        controller.press(.character("X"), on: screen)
        if case .form = controller.state.mode { Issue.record("read-only opened the erase form") }
        controller.press(.character("/"), on: screen)
        controller.typeText("env:production", on: screen)
        controller.press(.enter, .character("B"), on: screen)
        if case .form = controller.state.mode { Issue.record("read-only opened the batch form") }
    }

    static let scenarios: [(String, @Sendable (ConsoleController, ConsoleFixture) throws -> Void)] = [
        ("erase-preview", { c, f in
            try f.ledger.setContact("alice", CustomerContact(displayName: "Alice Martin", email: "alice@example.com"), operatorName: "mei")
            c.handle(.control("l")); c.handle(.character("X")); c.type("GDPR request, ticket 991"); c.handle(.enter)
        }),
        ("grant-batch-preview", { c, _ in
            c.handle(.character("/")); c.type("env:production"); c.handle(.enter)
            c.handle(.character("B")); c.handle(.tab); c.handle(.right); c.handle(.tab); c.type("P30D")
            for _ in 0..<3 { c.handle(.tab) }
            c.type("outage 3 June"); c.handle(.enter)
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
