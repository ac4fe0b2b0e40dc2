@testable import ConsoleUI
import Foundation
import PurchaseStore
import ReceiptCore
import Testing

/// The customer view with Apple's side (from signed notifications): the subscription block, the
/// refund requests, Apple's events on the timeline, the refund queue, and the refusals that need
/// no Apple (read-only; Apple's rules checked by the ledger before anything is asked).
@Suite("Apple's side in the console", .serialized)
struct AppleSideViewTests {
    static func text(_ line: DetailLine) -> String { line.spans.map(\.text).joined() }

    static func lines(_ controller: ConsoleController) -> [String] { DetailLines.build(controller.state).map(text) }

    /// The pane's text as one line, wrapped paragraphs joined again.
    static func flat(_ controller: ConsoleController) -> String {
        lines(controller).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    static func span(_ controller: ConsoleController, containing needle: String) -> Span? {
        DetailLines.build(controller.state).flatMap(\.spans).first { $0.text.contains(needle) }
    }

    @Test func theSubscriptionShowsStatusWhyAutoRenewMoneyAndSourceRightAfterEntitlements() throws {
        let fixture = try ConsoleFixture()
        try fixture.addAppleSide()
        let (controller, _) = fixture.console(size: ScreenSize(rows: 48, columns: 160))
        let lines = Self.lines(controller)
        let entitlements = try #require(lines.firstIndex(of: "Entitlements"))
        let apple = try #require(lines.firstIndex { $0.hasPrefix("Subscriptions (Apple)") })
        let orders = try #require(lines.firstIndex(of: "Orders"))
        #expect(entitlements < apple && apple < orders, "the section comes right after Entitlements")
        #expect(lines.contains { $0.contains("com.example.pro.monthly  GRACE PERIOD") && $0.contains("original 1000000359369424") })
        #expect(Self.flat(controller).contains("billing problem since 2025-06-01: in the grace period until 2025-06-17, access continues while Apple retries the payment"),
                "\(lines.joined(separator: "\n"))")
        #expect(lines.contains { $0.contains("auto-renew on → com.example.pro.monthly · expires 2025-06-01") })
        #expect(lines.contains { $0.contains("price 9.99 EUR · next 12.99 EUR · storefront DEU") })
        // The newest signed notification about it (the refund request) is where its state came from.
        #expect(Self.flat(controller).contains("from notification n-refund-due, signed 2025-06-01 02:00"))
        #expect(Self.span(controller, containing: "GRACE PERIOD")?.style.role == .warning, "grace period is a warning")
    }

    @Test func statusColoursFollowApple() throws {
        var state = SubscriptionState(originalTransactionId: "1", environment: "Production", source: "s", signedDate: Date(), updatedAt: Date())
        let expected: [(Int64, ColorRole)] = [(1, .ok), (3, .warning), (4, .warning), (2, .danger), (5, .danger)]
        for (status, role) in expected {
            state.status = status
            #expect(AppleSideView.role(state) == role, "status \(status)")
        }
    }

    @Test func refundRequestsSayDueOrOverdueTheOverdueOneInDanger() throws {
        let fixture = try ConsoleFixture()
        try fixture.addAppleSide()
        let (controller, _) = fixture.console(size: ScreenSize(rows: 48, columns: 160))
        let lines = Self.lines(controller)
        #expect(lines.contains { $0.hasPrefix("Refund requests") })
        #expect(lines.contains { $0.contains("due in 2h 0m") && $0.contains("transaction 1000000359369700") })
        #expect(lines.contains { $0.contains("OVERDUE by 4h 0m") && $0.contains("transaction 1000000359369425") })
        let overdue = try #require(Self.span(controller, containing: "OVERDUE by"))
        #expect(overdue.style.role == .danger && overdue.style.bold)
        #expect(Self.span(controller, containing: "due in 2h")?.style.role == .warning)
    }

    @Test func datesAreInTheOperatorsZone() throws {
        let fixture = try ConsoleFixture()
        try fixture.addAppleSide()
        let zone = try #require(TimeZone(identifier: "America/Los_Angeles"))
        let (controller, screen) = fixture.console(size: ScreenSize(rows: 48, columns: 160), timeZone: zone)
        controller.press(.enter, on: screen)
        // 2025-06-17T00:00Z is the 16th in Los Angeles.
        #expect(screen.text.contains("in the grace period until 2025-06-16"), "\(screen.text)")
    }

    @Test func theTimelineDrawsApplesEventsAndListsThem() throws {
        let fixture = try ConsoleFixture()
        try fixture.addAppleSide()
        let (controller, _) = fixture.console(size: ScreenSize(rows: 48, columns: 160))
        guard case .customer(let detail) = controller.state.detail.model else { Issue.record("alice is not shown"); return }
        let model = TimelineModel(detail, now: ConsoleFixture.now)
        let marks = model.lanes.flatMap(\.marks).compactMap { mark -> String? in
            if case .apple(_, let kind) = mark { return kind } else { return nil }
        }
        #expect(Set(marks) == ["renewed", "grace period", "refund requested"])
        let chart = TimelineView.lines(model, width: 120).map { $0.map(\.text).joined() }
        #expect(chart.contains { $0.contains("↺") && $0.contains("?") && $0.contains("monthly") }, "Apple's events is drawn on the subscription's lane: \(chart.joined(separator: "\n"))")
        #expect(chart.contains { $0.hasPrefix(" Apple: ↺ renewed") })
        let lines = Self.lines(controller)
        #expect(lines.contains { $0.contains("2025-06-01 ! grace period") && $0.contains("grace period until 2025-06-17") })
        #expect(lines.contains { $0.contains("refund requested") })
    }

    @Test func aCustomerWithoutSubscriptionsHasNoAppleSection() throws {
        let fixture = try ConsoleFixture()
        let (controller, screen) = fixture.console(size: ScreenSize(rows: 48, columns: 160))
        controller.press(.end, on: screen)  // 王小明: coins only
        #expect(!Self.lines(controller).contains { $0.hasPrefix("Subscriptions (Apple)") })
    }

    @Test func theRefundQueueIsMostUrgentFirstAndOpensTheDraft() throws {
        let fixture = try ConsoleFixture()
        try fixture.addAppleSide()
        let (controller, screen) = fixture.console(size: ScreenSize(rows: 48, columns: 160))
        controller.press(.character("3"), .character("$"), on: screen)  // from another tab: reachable from anywhere
        guard case .refunds(let queue) = controller.state.mode else { Issue.record("no queue"); return }
        #expect(queue.requests.map(\.transactionId) == ["1000000359369425", "1000000359369700"], "the overdue one first")
        #expect(screen.text.contains("OVERDUE by 4h 0m") && screen.text.contains("due in 2h 0m"))
        #expect(screen.text.contains("1 OVERDUE"))
        controller.press(.enter, on: screen)
        guard case .form(let form) = controller.state.mode, case .consumption(let id) = form.kind else { Issue.record("no form"); return }
        #expect(id == queue.requests[0].requestId)
        #expect(form.fields.map(\.label).prefix(3) == ["Consent", "refundPreference", "deliveryStatus"], "version 2's fields")
        #expect(form.fields.first { $0.label == "deliveryStatus" }?.hint.contains("the ledger") == true, "each value says where it came from")
        #expect(form.fields.first { $0.label == "refundPreference" }?.text == "0 no preference (left out)")
        // Enter through every field to the reason: empty, refused.
        for _ in form.fields { controller.press(.enter, on: screen) }
        guard case .form(let refused) = controller.state.mode else { Issue.record("the form closed"); return }
        #expect(refused.error?.contains("a reason is required") == true)
        controller.typeText("customer says the app crashed", on: screen)
        controller.press(.enter, on: screen)
        // No consent: the ledger's check refuses it before anything is shown or sent.
        guard case .form(let noConsent) = controller.state.mode else { Issue.record("the form closed"); return }
        #expect(noConsent.error?.contains("the customer has not consented") == true, "\(noConsent.error ?? "")")
        #expect(screen.text.contains("✗ \(noConsent.error?.prefix(40) ?? "?")"), "the form shows the refusal")
    }

    @Test func readOnlyRefusesEveryActionAtAppleButShowsTheQueue() throws {
        let fixture = try ConsoleFixture()
        try fixture.addAppleSide()
        let before = try fixture.dump(["renewal_extensions", "refund_requests", "audit_log"])
        let (controller, screen) = fixture.console(size: ScreenSize(rows: 48, columns: 160), readOnly: true)
        for (key, name) in [("a", "apple-status"), ("E", "extend"), ("O", "lookup-order"), ("M", "mass-extend"), ("N", "notifications"),
                            ("T", "set-token")] {
            controller.press(.character(Character(key)), on: screen)
            #expect(controller.state.message?.text == "read-only (--read-only): '\(name)' is not available; nothing changed")
            guard case .browse = controller.state.mode else { Issue.record("\(key) opened something"); return }
        }
        #expect(!screen.text.contains("E extend") && !screen.text.contains("a apple"), "no hint for what read-only refuses")
        controller.press(.character("$"), on: screen)
        guard case .refunds = controller.state.mode else { Issue.record("the queue did not open"); return }
        controller.press(.enter, on: screen)
        #expect(controller.state.message?.text.hasPrefix("read-only (--read-only): sending consumption information is not available") == true)
        #expect(try fixture.dump(["renewal_extensions", "refund_requests", "audit_log"]) == before)
    }

    @Test func anExtensionApplesRulesForbidShowsTheLedgersReasonAndAsksNothing() throws {
        let fixture = try ConsoleFixture()
        try fixture.addAppleSide()
        let apple = ScriptedApple { _ in FakeServerAPI.empty() }
        let (controller, screen) = fixture.console(size: ScreenSize(rows: 48, columns: 160), apple: try FakeServerAPI.service(apple, fixture))
        var before = try fixture.dump(["renewal_extensions", "audit_log"])
        controller.press(.character("E"), on: screen)
        guard case .form(let form) = controller.state.mode, case .extend(_, let originals) = form.kind else { Issue.record("no form"); return }
        #expect(originals == [ConsoleFixture.original])
        #expect(form.fields[0].text.contains("grace period"))
        controller.press(.tab, on: screen)
        controller.typeText("91", on: screen)
        controller.press(.tab, .tab, on: screen)
        controller.typeText("goodwill", on: screen)
        controller.press(.enter, on: screen)
        guard case .form(let refused) = controller.state.mode else { Issue.record("the form closed"); return }
        #expect(refused.error == "extend refused: Apple extends a renewal date by 1–90 days at a time; 91 is not")
        #expect(try fixture.dump(["renewal_extensions", "audit_log"]) == before)
        // Expired at Apple: the ledger says so in one line.
        let (transaction, renewal) = fixture.activeState(expires: "2025-06-01T00:00:00Z")
        try fixture.notify("EXPIRED", "BILLING_RETRY", uuid: "n-expired", signed: "2025-06-01T11:00:00Z", status: 2, transaction: transaction,
                           renewal: renewal)
        before = try fixture.dump(["renewal_extensions", "audit_log"])
        controller.press(.up, .up, on: screen)
        controller.press(.control("u"), on: screen)
        controller.typeText("10", on: screen)
        controller.press(.down, .down, .enter, on: screen)
        guard case .form(let expired) = controller.state.mode else { Issue.record("the form closed"); return }
        #expect(expired.error?.hasPrefix("extend refused: subscription 1000000359369424 is expired (Apple, notification n-expired): Apple extends only active subscriptions") == true,
                "\(expired.error ?? "")")
        #expect(apple.paths.isEmpty, "nothing was asked of Apple")
        #expect(try fixture.dump(["renewal_extensions", "audit_log"]) == before)
    }
}
