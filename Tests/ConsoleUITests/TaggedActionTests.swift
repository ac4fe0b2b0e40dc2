import Foundation
import PurchaseStore
import Testing
@testable import ConsoleUI

/// Issue 29 §3a: revoke and re-verify act on every tagged row too, each with one preview; the
/// status line after Space names the actions that do (by the keys in force).
@Suite("Tagged actions")
struct TaggedActionTests {
    /// bob and carol (rows 2 and 3), who both hold pro.
    static func tagBobAndCarol(_ c: ConsoleController, _ screen: VirtualScreen) {
        c.press(.down, .character(" "), .character(" "), on: screen)
    }

    @Test(arguments: ConsoleBackend.available)
    func revokeTakesTheNamedEntitlementFromEveryTaggedCustomerOnceEach(_ backend: ConsoleBackend) async throws {
        let f = try ConsoleFixture(backend: backend)
        let (c, screen) = f.console(size: ScreenSize(rows: 30, columns: 120))
        Self.tagBobAndCarol(c, screen)
        #expect(c.state.taggedCustomers == ["bob", "carol"], "\(c.state.taggedCustomers)")
        #expect(screen.text.contains("2 tagged (2 customers) · g grant, x revoke, r re-verify each once · U untag"), "\(screen.text)")
        let auditBefore = try f.database.query("SELECT seq FROM audit_log WHERE action = 'revoke'", []).count
        c.press(.character("x"), on: screen)
        #expect(screen.text.contains("Revoke an entitlement from 2 tagged customers"), "\(screen.text)")
        guard case .form(let form) = c.state.mode, case .choice(let options, _) = form.fields[0].kind, let pro = options.firstIndex(of: "pro") else {
            Issue.record("no entitlement choice: \(screen.text)")
            return
        }
        for _ in 0..<pro { c.press(.right, on: screen) }
        c.press(.tab, on: screen)
        c.typeText("chargeback", on: screen)
        c.press(.enter, on: screen)
        guard case .confirm(let confirmation) = c.state.mode else { Issue.record("no preview: \(screen.text)"); return }
        let preview = confirmation.lines.map(\.text).joined(separator: "\n")
        #expect(preview.contains("Revoke pro from customer bob") && preview.contains("Revoke pro from customer carol")
                && preview.contains("2 changes"), "\(preview)")
        #expect(try f.database.query("SELECT revocation_id FROM revocations", []).isEmpty, "the preview writes nothing")
        c.press(.character("y"), on: screen)
        #expect(await c.settle())
        let revoked = try f.database.query("SELECT customer_id, entitlement FROM revocations ORDER BY revocation_id", [])
            .map { "\($0.string("customer_id") ?? "?") \($0.string("entitlement") ?? "?")" }
        #expect(revoked == ["bob pro", "carol pro"], "\(revoked)")
        #expect(try f.database.query("SELECT seq FROM audit_log WHERE action = 'revoke'", []).count == auditBefore + 2, "one audit entry each")
        #expect(try AuditLog.verify(f.database).isIntact)
        for customer in ["bob", "carol"] {
            #expect(try f.ledger.customerSummary(customer).entitlements.first { $0.name == "pro" }?.isActive != true, "\(customer) still holds pro")
        }
        #expect(c.state.tags.isEmpty && screen.text.contains("2 done"), "\(screen.text)")
    }

    @Test func aTaggedCustomerWithoutTheEntitlementRefusesTheWholeRevoke() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: ScreenSize(rows: 30, columns: 120))
        // carol holds pro, dave holds nothing: the revoke is refused whole, naming dave.
        c.press(.down, .down, .character(" "), .character(" "), on: screen)
        #expect(c.state.taggedCustomers == ["carol", "dave"])
        let before = try f.dump()
        c.press(.character("x"), on: screen)
        if case .form(var form) = c.state.mode, case .choice(let options, _) = form.fields[0].kind, let pro = options.firstIndex(of: "pro") {
            form.fields[0].kind = .choice(options, pro)
            c.state.mode = .form(form)
        }
        c.press(.tab, on: screen)
        c.typeText("chargeback", on: screen)
        c.press(.enter, on: screen)
        #expect(screen.text.contains("dave does not hold pro"), "\(screen.text)")
        #expect(try f.dump() == before, "nothing written")
    }

    @Test(arguments: ConsoleBackend.available)
    func reverifyAsksAppleAboutEveryTaggedCustomersReceiptOnceOneAtATime(_ backend: ConsoleBackend) async throws {
        let f = try ConsoleFixture(backend: backend)
        let apple = ScriptedApple(answer: ScriptedApple.unavailable)
        let (c, screen) = f.console(size: ScreenSize(rows: 30, columns: 120), apple: try apple.service())
        let alice = try f.database.query("SELECT receipt_id FROM receipts WHERE customer_id = 'alice' ORDER BY receipt_id", []).compactMap { $0.int("receipt_id") }
        let bob = try f.receiptId("bob")
        #expect(alice.count == 3)
        // alice on the customers tab, then bob's receipt on the receipts tab is another tab's tag: tag alice and bob here.
        c.press(.character(" "), .character(" "), on: screen)
        #expect(c.state.taggedCustomers == ["alice", "bob"])
        c.press(.character("r"), on: screen)
        guard case .confirm(let confirmation) = c.state.mode else { Issue.record("no preview: \(screen.text)"); return }
        let preview = confirmation.lines.map(\.text).joined(separator: "\n")
        let aliceList = alice.map { "#\($0)" }.joined(separator: ", ")
        #expect(preview.contains("about 4 receipts, one at a time, each once") && preview.contains("customer alice  3 receipts: \(aliceList)")
                && preview.contains("customer bob  1 receipt: #\(bob)"), "\(preview)")
        #expect(apple.paths.isEmpty, "the preview asks nothing")
        c.press(.character("y"), on: screen)
        #expect(c.state.job?.serial == true && c.state.job?.receiptIds == alice + [bob], "\(String(describing: c.state.job))")
        #expect(await c.settle())
        #expect(apple.paths.count == 4, "each receipt asked once: \(apple.paths)")
        let asked = try f.database.query("SELECT receipt_id FROM reverifications ORDER BY receipt_id", []).compactMap { $0.int("receipt_id") }
        #expect(asked == (alice + [bob]).sorted(), "\(asked)")
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    @Test func reverifyOfTaggedReceiptsListsThemAndNCancelsWithNothingAsked() throws {
        let f = try ConsoleFixture()
        let apple = ScriptedApple(answer: ScriptedApple.unavailable)
        let (c, screen) = f.console(size: ScreenSize(rows: 30, columns: 120), apple: try apple.service())
        c.press(.character("4"), .character(" "), .character(" "), on: screen)
        let tagged = (c.state.tags[.receipts] ?? []).compactMap { row -> Int64? in
            if case .receipt(_, let r) = row { return r.record.receiptId } else { return nil }
        }
        #expect(tagged.count == 2)
        c.press(.character("r"), on: screen)
        guard case .confirm(let confirmation) = c.state.mode else { Issue.record("no preview: \(screen.text)"); return }
        let preview = confirmation.lines.map(\.text).joined(separator: "\n")
        #expect(tagged.allSatisfy { preview.contains("receipt #\($0)") } && preview.contains("about 2 receipts"), "\(preview)")
        c.press(.character("n"), on: screen)
        #expect(c.state.job == nil && apple.paths.isEmpty && c.state.tags[.receipts]?.count == 2, "cancelled: nothing asked, the tags kept")
    }

    @Test func readOnlyTagsNameNoAction() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: ScreenSize(rows: 30, columns: 120), readOnly: true)
        c.press(.character(" "), on: screen)
        #expect(screen.text.contains("1 tagged (1 customer): read-only, nothing acts on them"), "\(screen.text)")
    }

    @Test(arguments: [ScreenSize(rows: 24, columns: 80), ScreenSize(rows: 48, columns: 160)])
    func snapshots(_ size: ScreenSize) throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: size)
        Self.tagBobAndCarol(c, screen)
        c.press(.character("x"), .right, .tab, on: screen)
        c.typeText("chargeback, ticket 4411", on: screen)
        c.press(.enter, on: screen)
        Snapshot.check("revoke-tagged-preview", c, size: size)
        let apple = ScriptedApple(answer: ScriptedApple.unavailable)
        let (reverify, other) = f.console(size: size, apple: try apple.service())
        reverify.press(.character(" "), .character(" "), .character("r"), on: other)
        Snapshot.check("reverify-tagged-preview", reverify, size: size)
    }
}
