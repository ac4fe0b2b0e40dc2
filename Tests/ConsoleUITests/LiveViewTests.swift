import Foundation
import PurchaseStore
import ReceiptCore
import Testing
@testable import ConsoleUI

/// The live team view on the virtual screen, on SQLite and PostgreSQL: what another operator
/// changes through their own connection appears after the console's tick (the selection kept),
/// and an action on rows someone else changed after the preview was shown is refused with what
/// changed, leaving the database as the other operator left it.
@Suite("Live team view", .serialized)
struct LiveViewTests {
    /// A console over `f` that listens for changes on its ledger's connection, asking at every tick.
    func liveConsole(_ f: ConsoleFixture, size: ScreenSize = ScreenSize(rows: 30, columns: 120)) -> (ConsoleController, VirtualScreen) {
        let now = ConsoleFixture.now
        let environment = ConsoleEnvironment(ledger: f.ledger, apple: nil, operatorName: "mei", readOnly: false, databaseLabel: "purchases",
                                             clock: { now }, changes: ChangeFeeds.make(for: f.database), changeInterval: 0)
        let controller = ConsoleController(environment: environment, size: size)
        let screen = VirtualScreen(size: size)
        controller.render(on: screen)
        return (controller, screen)
    }

    /// Ticks (and draws) until `condition` holds, at most `seconds`.
    func tick(_ c: ConsoleController, on screen: VirtualScreen, within seconds: Double = 2, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            c.tick()
            c.render(on: screen)
            usleep(20_000)
        }
        return true
    }

    /// A feed that fails while `down` is set, and otherwise reports nothing new.
    final class FlakyFeed: ChangeNotifying {
        var down = true
        func waitForChange(timeout: TimeInterval) throws -> [String]? {
            if down { throw StoreError(.cannotOpen, "lost the connection to PostgreSQL at db and cannot reconnect: is the server running?") }
            return nil
        }
    }

    @Test func aRecoveredLiveViewClearsItsFailureFromTheStatusLine() throws {
        let f = try ConsoleFixture()
        let feed = FlakyFeed()
        let now = ConsoleFixture.now
        let environment = ConsoleEnvironment(ledger: f.ledger, apple: nil, operatorName: "mei", readOnly: true, databaseLabel: "purchases",
                                             clock: { now }, changes: feed, changeInterval: 0)
        let c = ConsoleController(environment: environment, size: ScreenSize(rows: 30, columns: 120))
        let screen = VirtualScreen(size: ScreenSize(rows: 30, columns: 120))
        #expect(tick(c, on: screen) { screen.text.contains("cannot reconnect") }, "the failure is shown:\n\(screen.text)")
        feed.down = false
        #expect(tick(c, on: screen) { !screen.text.contains("cannot reconnect") }, "the failure stays after the feed recovered:\n\(screen.text)")
        #expect(screen.text.contains("live view: connected again"))
    }

    @Test(arguments: ConsoleBackend.available)
    func anotherOperatorsChangeAppearsAfterTheTickWithTheSelectionKept(_ backend: ConsoleBackend) throws {
        let f = try ConsoleFixture(backend: backend)
        let (c, screen) = liveConsole(f)
        c.press(.down, on: screen)
        let selected = try #require(c.state.list.selectedRow?.customerId)
        #expect(!screen.text.contains("zed"))
        c.tick()
        c.render(on: screen)
        #expect(!screen.text.contains("zed"), "nothing changed: nothing new")

        let other = try f.otherOperator()
        _ = try other.addCustomer("zed", isTester: false, operatorName: "li")
        #expect(tick(c, on: screen) { screen.text.contains("zed") }, "the new customer is listed within 2 s")
        #expect(c.state.list.selectedRow?.customerId == selected, "the selection stays where it was")

        // The detail of the selected customer follows too.
        c.press(.home, on: screen)
        #expect(c.state.list.selectedRow?.customerId == "alice")
        #expect(!screen.text.contains("live goodwill"))
        _ = try other.grant(customer: "alice", entitlement: "coins", until: nil, reason: "live goodwill", operatorName: "li")
        #expect(tick(c, on: screen) { screen.text.contains("live goodwill") }, "alice's new grant shows in her detail:\n\(screen.text)")
        #expect(c.state.list.selectedRow?.customerId == "alice")
    }

    /// Anyone who can connect to the database may NOTIFY on the change channel: a notice that
    /// comes with no change reloads nothing.
    @Test(.enabled(if: ConsoleBackend.postgresURL != nil, "RECEIPTDESK_TEST_POSTGRES_URL is unset"))
    func aChangeNoticeSentByHandReloadsNothing() throws {
        let f = try ConsoleFixture(backend: .postgres)
        let (c, screen) = liveConsole(f)
        c.tick()  // the first tick runs the opening's audit check (a change of state by itself)
        let stranger = try f.otherOperator().database
        for payload in ["customers:alice", "customers:zed", "audit_log:999", "grants"] {
            try stranger.execute("SELECT pg_notify('changes', current_schema() || '.' || ?::text)", [.text(payload)])
        }
        let deadline = Date().addingTimeInterval(0.5)
        while Date() < deadline {
            #expect(!c.tick(), "a notice sent by hand was taken for a change")
            c.render(on: screen)
            usleep(20_000)
        }
        // A real change still shows.
        _ = try f.otherOperator().addCustomer("zed", isTester: false, operatorName: "li")
        #expect(tick(c, on: screen) { screen.text.contains("zed") }, "the new customer is listed within 2 s")
    }

    @Test(arguments: ConsoleBackend.available)
    func aGrantOnACustomerSomeoneElseChangedAfterThePreviewIsRefused(_ backend: ConsoleBackend) throws {
        let f = try ConsoleFixture(backend: backend)
        let (c, screen) = liveConsole(f)
        c.press(.character("g"), on: screen)
        #expect(screen.text.contains("Grant an entitlement to alice"))
        c.press(.tab, .tab, on: screen)
        c.typeText("goodwill", on: screen)
        c.press(.enter, on: screen)
        guard case .confirm = c.state.mode else { Issue.record("no preview: \(screen.text)"); return }

        // Meanwhile another operator revokes alice's manual grant.
        let other = try f.otherOperator()
        try other.revoke(customer: "alice", entitlement: "pro", reason: "chargeback", operatorName: "li")
        let after = try f.dump()
        c.press(.character("y"), on: screen)
        let message = c.state.message?.text ?? ""
        #expect(message.hasPrefix("grant refused: the grants of customer alice were changed by someone else"), "\(message)")
        #expect(message.contains("revoked_at – → 2025-06-01"), "says what changed: \(message)")
        #expect(try f.dump() == after, "nothing written over the other operator's change")
        #expect(try AuditLog.entries(f.database, limit: 1).first?.operatorName == "li")
        #expect(screen.text.contains("grant refused"))

        // Looked at again, the same grant goes through.
        c.press(.character("g"), on: screen)
        c.press(.tab, .tab, on: screen)
        c.typeText("goodwill", on: screen)
        c.press(.enter, .character("y"), on: screen)
        #expect(c.state.message?.text.hasPrefix("granted coins to alice") == true, "\(c.state.message?.text ?? "")")
    }

    @Test(arguments: ConsoleBackend.available)
    func resolvingAConflictSomeoneElseResolvedIsRefused(_ backend: ConsoleBackend) throws {
        let f = try ConsoleFixture(backend: backend)
        let (c, screen) = liveConsole(f)
        c.press(.character("5"), on: screen)
        let conflict = try #require(try f.database.queryFirst("SELECT conflict_id FROM conflicts WHERE status = 'open'", [])?.int("conflict_id"))
        #expect(c.state.list.selectedRow?.key == .integer(conflict))
        c.press(.character("o"), on: screen)
        guard case .form = c.state.mode else { Issue.record("no resolve form: \(screen.text)"); return }
        c.press(.tab, on: screen)
        c.typeText("receipt shows carol paid", on: screen)
        c.press(.enter, on: screen)
        guard case .confirm = c.state.mode else { Issue.record("no preview: \(screen.text)"); return }
        let other = try f.otherOperator()
        try other.resolveConflict(conflict, owner: "erin", reason: "li checked", operatorName: "li")
        let after = try f.dump()
        c.press(.character("y"), on: screen)
        let message = c.state.message?.text ?? ""
        #expect(message.hasPrefix("resolve refused: conflict \(conflict) was changed by someone else"), "\(message)")
        #expect(try f.dump() == after)
    }
}
