@testable import ConsoleUI
import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// Each action at Apple from the console against a scripted App Store Server API: the form, the
/// ledger's preview, y, the request running off the screen's thread (the screen keeps taking
/// keys), the one-line answer, and what the ledger recorded and audited.
/// The fixture, read by the scripted Apple's thread only to sign payloads.
final class FixtureBox: @unchecked Sendable {
    let fixture: ConsoleFixture
    init(_ fixture: ConsoleFixture) { self.fixture = fixture }
}

@Suite("Acting at Apple from the console", .serialized)
struct AppleActionTests {
    static let size = ScreenSize(rows: 48, columns: 160)

    /// A fixture with Apple's side, a console over a scripted Apple, and the script's requests.
    static func console(_ answer: @escaping @Sendable (HTTPRequest, ConsoleFixture) throws -> HTTPResponse,
                        gated: Bool = false) throws -> (ConsoleFixture, ConsoleController, VirtualScreen, ScriptedApple) {
        let fixture = try ConsoleFixture()
        try fixture.addAppleSide()
        let box = FixtureBox(fixture)
        let apple = ScriptedApple(gated: gated) { try answer($0, box.fixture) }
        var (controller, screen) = fixture.console(size: size, apple: try FakeServerAPI.service(apple, fixture))
        _ = screen
        screen = VirtualScreen(size: size, theme: .colour256)
        controller.render(on: screen)
        return (fixture, controller, screen, apple)
    }

    static func audits(_ fixture: ConsoleFixture, _ action: String) throws -> [String] {
        try fixture.database.query("SELECT details FROM audit_log WHERE action = ? ORDER BY seq", [.text(action)]).compactMap { $0.string("details") }
    }

    static func statuses(_ fixture: ConsoleFixture, expires: String) throws -> HTTPResponse {
        let (transaction, renewal) = fixture.activeState(expires: expires)
        return try FakeServerAPI.statuses(fixture, status: 1, transaction: transaction, renewal: renewal)
    }

    /// alice's subscription paid again until June 2nd: Apple refuses to extend one in its grace
    /// period once its expiry has passed, as the fixture's is.
    static func renewed(_ fixture: ConsoleFixture) throws {
        let (transaction, renewal) = fixture.activeState(expires: "2025-06-02T00:00:00Z")
        _ = try fixture.notify("DID_RENEW", uuid: "n-paid-again", signed: "2025-06-01T11:00:00Z", status: 1, transaction: transaction, renewal: renewal)
    }

    @Test func extendPreviewsThePlanRunsOffTheScreenAndShowsTheNewState() async throws {
        let (fixture, controller, screen, apple) = try Self.console({ request, fixture in
            if request.method == "PUT", request.url.path.hasPrefix("/inApps/v1/subscriptions/extend/") {
                return FakeServerAPI.json(.object([("originalTransactionId", .string(ConsoleFixture.original)), ("webOrderLineItemId", .string("7")),
                                                   ("success", .bool(true)), ("effectiveDate", .int(1_749_600_000_000))]))
            }
            return try Self.statuses(fixture, expires: "2025-06-11T00:00:00Z")
        }, gated: true)
        try Self.renewed(fixture)
        controller.press(.character("E"), .tab, on: screen)
        controller.typeText("10", on: screen)
        controller.press(.tab, .tab, on: screen)
        controller.typeText("outage goodwill", on: screen)
        controller.press(.enter, on: screen)
        guard case .confirm(let confirmation) = controller.state.mode else { Issue.record("no preview: \(controller.state.message?.text ?? "")"); return }
        #expect(confirmation.title == "Extend at Apple: preview")
        let preview = confirmation.lines.map { $0.map(\.text).joined() }
        #expect(preview.first == "Extend com.example.pro.monthly of alice (original 1000000359369424, production) by 10 days", "the plan's lines")
        #expect(preview.contains("  expires 2025-06-02 → about 2025-06-12 (Apple answers the exact date)"), "\(preview)")
        #expect(screen.text.contains("Apple's reason code 1: customer satisfaction"))
        #expect(screen.text.contains("extensions in the last 365 days: 0 of 2"))
        #expect(apple.paths.isEmpty, "nothing asked before y")
        controller.press(.character("y"), on: screen)
        // Apple holds its answer: the screen is not frozen, the header says what runs.
        #expect(controller.state.appleJob?.label == "extending 1000000359369424 by 10d")
        controller.press(.character("3"), on: screen)
        #expect(controller.state.tab == .transactions, "keys still work while Apple works")
        #expect(screen.text.contains("extending 1000000359369424 by 10d"))
        controller.press(.character("E"), on: screen)
        #expect(controller.state.message?.text == "extending 1000000359369424 by 10d is still running at Apple: wait for its answer")
        apple.open()
        #expect(await controller.settle())
        #expect(controller.state.message == StatusMessage(text: "extended 1000000359369424 by 10 days at Apple on 2025-06-11; now active, expires 2025-06-11",
                                                          kind: .success))
        #expect(apple.paths.first == "/inApps/v1/subscriptions/extend/1000000359369424")
        #expect(try fixture.ledger.subscriptionState(original: ConsoleFixture.original)?.status == 1)
        #expect(try Self.audits(fixture, "apple-extend").first?.contains("outage goodwill") == true)
        controller.press(.character("1"), on: screen)
        #expect(AppleSideViewTests.lines(controller).contains { $0.contains("com.example.pro.monthly  ACTIVE") }, "the view shows the new state")
    }

    @Test func applesRefusalOfAnExtensionIsOneLineAndRecorded() async throws {
        let (fixture, controller, screen, _) = try Self.console({ _, _ in
            FakeServerAPI.appleError(4_030_004, "Subscription extensions are not allowed for this subscription.", status: 403)
        })
        try Self.renewed(fixture)
        controller.press(.character("E"), .tab, on: screen)
        controller.typeText("5", on: screen)
        controller.press(.tab, .tab, on: screen)
        controller.typeText("goodwill", on: screen)
        controller.press(.enter, .character("y"), on: screen)
        #expect(await controller.settle())
        let message = try #require(controller.state.message)
        #expect(message.kind == .error && message.text.hasPrefix("extend refused: ") && !message.text.contains("\n"), "\(message.text)")
        #expect(message.text.contains("4030004") || message.text.contains("not allowed"), "\(message.text)")
        let outcome = try fixture.database.queryFirst("SELECT outcome FROM renewal_extensions", [])?.string("outcome")
        #expect(outcome?.hasPrefix("refused") == true)
    }

    @Test func consumptionWithConsentIsReviewedThenSentAndTheRequestIsMarkedSent() async throws {
        let (fixture, controller, screen, apple) = try Self.console({ request, _ in
            #expect(request.method == "PUT")
            let body = FakeServerAPI.body(request)
            #expect(body["customerConsented"] as? Bool == true && body["refundPreference"] as? String == "DECLINE")
            return FakeServerAPI.empty(status: 202)
        })
        controller.press(.character("$"), .enter, on: screen)
        controller.press(.right, .tab, .right, .right, on: screen)  // consent yes; refund preference 2 decline
        guard case .form(let form) = controller.state.mode else { Issue.record("no form"); return }
        for _ in form.focus..<(form.fields.count - 1) { controller.press(.tab, on: screen) }
        controller.typeText("used it for a month", on: screen)
        controller.press(.enter, on: screen)
        guard case .confirm(let confirmation) = controller.state.mode else { Issue.record("no review: \(form.error ?? "")"); return }
        #expect(confirmation.title == "Send consumption information: review")
        #expect(screen.text.contains("customerConsented true"))
        #expect(screen.text.contains("refundPreference 2 decline the refund — the operator's choice"))
        #expect(screen.text.contains("OVERDUE by 4h 0m"))
        controller.press(.character("y"), on: screen)
        #expect(await controller.settle())
        #expect(controller.state.message == StatusMessage(text: "sent to Apple: refund request #2 is sent", kind: .success))
        #expect(apple.paths == ["/inApps/v2/transactions/consumption/1000000359369425"])
        #expect(try fixture.ledger.refundRequest(2).status == .sent)
        #expect(try Self.audits(fixture, "apple-consumption").count == 1)
    }

    @Test func setTokenPreviewsFromThePlanRefusesANonUUIDAndSetsIt() async throws {
        let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        let (fixture, controller, screen, apple) = try Self.console({ request, _ in
            #expect(FakeServerAPI.body(request)["appAccountToken"] as? String == token)
            return FakeServerAPI.empty()
        })
        controller.press(.character("3"), .character("T"), on: screen)  // the Transactions tab: 1000000359369424 first
        guard case .form(let form) = controller.state.mode, case .setToken(let original) = form.kind else { Issue.record("no form"); return }
        #expect(original == ConsoleFixture.original)
        controller.typeText("not-a-token", on: screen)
        controller.press(.tab, on: screen)
        controller.typeText("order mix-up", on: screen)
        controller.press(.enter, on: screen)
        guard case .form(let refused) = controller.state.mode else { Issue.record("the form closed"); return }
        #expect(refused.error == "set token refused: app account token 'not-a-token' is not a UUID (like 7e3fb20b-4cdb-47cc-936d-99d65f608138)")
        controller.press(.up, .control("u"), on: screen)
        controller.typeText(token.uppercased(), on: screen)
        controller.press(.tab, .enter, on: screen)
        guard case .confirm(let confirmation) = controller.state.mode else { Issue.record("no preview"); return }
        #expect(confirmation.lines.first?.map(\.text).joined() == "Set the app account token of 1000000359369424 (alice, production) to \(token)")
        controller.press(.character("y"), on: screen)
        #expect(await controller.settle())
        #expect(controller.state.message?.text == "set at Apple and in the ledger: 1000000359369424 carries \(token)")
        #expect(apple.paths == ["/inApps/v1/transactions/1000000359369424/appAccountToken"])
        #expect(try fixture.ledger.transaction(ConsoleFixture.renewalId)?.appAccountToken == token)
    }

    @Test func massExtensionPreviewsThenItsProgressIsPolledUntilComplete() async throws {
        final class Polls: @unchecked Sendable { var count = 0; let lock = NSLock() }
        let polls = Polls()
        let (fixture, controller, screen, _) = try Self.console({ request, _ in
            if request.method == "POST" {
                return FakeServerAPI.json(.object([("requestIdentifier", .string(FakeServerAPI.body(request)["requestIdentifier"] as? String ?? ""))]))
            }
            let poll = polls.lock.withLock { polls.count += 1; return polls.count }
            let id = request.url.lastPathComponent
            return FakeServerAPI.json(.object([("requestIdentifier", .string(id)), ("complete", .bool(poll >= 2)),
                                               ("succeededCount", .int(poll >= 2 ? 3 : 1)), ("failedCount", .int(0))]))
        })
        _ = fixture
        controller.press(.character("M"), .tab, on: screen)
        controller.typeText("3", on: screen)
        controller.press(.tab, .tab, .tab, .tab, on: screen)
        controller.typeText("store outage on 1 June", on: screen)
        controller.press(.enter, on: screen)
        #expect(screen.text.contains("Extend every active subscriber of com.example.pro.monthly (production) by 3 days"))
        #expect(screen.text.contains("Apple's reason code 3: service issue or outage"))
        controller.press(.character("y"), on: screen)
        #expect(await controller.settle())
        #expect(controller.state.message?.text == "mass extension of com.example.pro.monthly by 3 days: complete: 3 extended, 0 failed")
        #expect(polls.count == 2, "polled until Apple said complete")
        #expect(try fixture.ledger.massExtensions().first?.status == "complete")
    }

    @Test func notificationHistoryArrivesPageByPageAndSaysReadAndNew() async throws {
        let (fixture, controller, screen, apple) = try Self.console({ request, fixture in
            let renewal = fixture.transactionPayload(ConsoleFixture.renewalId, bought: "2025-05-01T00:00:00Z", expires: "2025-06-01T00:00:00Z")
            let old = try fixture.signedNotification("DID_RENEW", uuid: "n-renew", signed: "2025-05-01T00:00:00Z", transaction: renewal)
            let new = try fixture.signedNotification("OFFER_REDEEMED", uuid: "n-offer", signed: "2025-05-20T00:00:00Z", transaction: renewal)
            if request.url.query?.contains("paginationToken=p2") == true {
                return FakeServerAPI.json(.object([("notificationHistory", .array([.object([("signedPayload", .string(new))])])), ("hasMore", .bool(false))]))
            }
            return FakeServerAPI.json(.object([("notificationHistory", .array([.object([("signedPayload", .string(old))])])), ("hasMore", .bool(true)),
                                               ("paginationToken", .string("p2"))]))
        })
        controller.press(.character("N"), .tab, on: screen)
        controller.typeText("2025-05-01", on: screen)
        controller.press(.tab, .tab, .enter, on: screen)
        #expect(screen.text.contains("Notification history: preview"))
        controller.press(.character("y"), on: screen)
        #expect(await controller.settle())
        #expect(controller.state.message?.text == "notification history 2025-05-01 – 2025-06-01: 2 read, 1 new")
        #expect(apple.paths == ["/inApps/v1/notifications/history", "/inApps/v1/notifications/history"])
        #expect(try fixture.ledger.notificationFetches().first?.status == "done")
    }

    @Test func aTestNotificationIsRequestedAndItsDeliveryShown() async throws {
        let (_, controller, screen, apple) = try Self.console({ request, _ in
            if request.method == "POST" { return FakeServerAPI.json(.object([("testNotificationToken", .string("tok-1"))])) }
            return FakeServerAPI.json(.object([("sendAttempts", .array([.object([("attemptDate", .int(1_748_779_200_000)),
                                                                                  ("sendAttemptResult", .string("SUCCESS"))])]))]))
        })
        controller.press(.character("N"), .right, on: screen)
        controller.press(.tab, .tab, .tab, .enter, on: screen)
        #expect(screen.text.contains("Test notification: preview"))
        controller.press(.character("y"), on: screen)
        #expect(await controller.settle())
        #expect(controller.state.message == StatusMessage(text: "test notification tok-1: SUCCESS", kind: .success))
        #expect(apple.paths == ["/inApps/v1/notifications/test", "/inApps/v1/notifications/test/tok-1"])
    }

    @Test func aRefreshesApplesStatusOfTheCustomer() async throws {
        let (fixture, controller, screen, apple) = try Self.console({ _, fixture in try Self.statuses(fixture, expires: "2025-07-01T00:00:00Z") })
        controller.press(.character("a"), on: screen)
        #expect(await controller.settle())
        #expect(controller.state.message?.text.hasPrefix("Apple's status of alice: com.example.pro.monthly active") == true,
                "\(controller.state.message?.text ?? "")")
        #expect(apple.paths == ["/inApps/v1/subscriptions/\(ConsoleFixture.original)"])
        #expect(try fixture.ledger.subscriptionState(original: ConsoleFixture.original)?.status == 1)
        #expect(AppleSideViewTests.lines(controller).contains { $0.contains("ACTIVE") })
    }

    @Test func historyOpensApplesListInThePagerWithOwners() async throws {
        let (_, controller, screen, _) = try Self.console({ _, fixture in
            let builder = JWSBuilder(authority: fixture.authority)
            let mine = try builder.signedTransaction(fixture.transactionPayload(ConsoleFixture.renewalId, bought: "2025-05-01T00:00:00Z",
                                                                                expires: "2025-06-01T00:00:00Z"))
            let unknown = try builder.signedTransaction(fixture.transactionPayload("1000000359369999", bought: "2025-06-01T00:00:00Z",
                                                                                   expires: "2025-07-01T00:00:00Z"))
            return FakeServerAPI.json(.object([("signedTransactions", .array([.string(mine), .string(unknown)])), ("hasMore", .bool(false)),
                                               ("revision", .string("r1")), ("bundleId", .string("com.example.app")),
                                               ("environment", .string("Production"))]))
        })
        controller.press(.character("3"), .character("H"), on: screen)
        #expect(await controller.settle())
        controller.render(on: screen)
        guard case .pager(let pager) = controller.state.mode else { Issue.record("no pager: \(controller.state.message?.text ?? "")"); return }
        #expect(pager.text.contains("1000000359369700  com.example.pro.monthly") && pager.text.contains("(ledger: alice)"))
        #expect(pager.text.contains("1000000359369999") && pager.text.contains("(not in the ledger)"))
        #expect(pager.text.contains("9.99 EUR"))
    }

    @Test func lookUpOrderImportsItsTransactionsForTheCustomer() async throws {
        let (fixture, controller, screen, apple) = try Self.console({ _, fixture in
            let jws = try JWSBuilder(authority: fixture.authority).signedTransaction(
                fixture.transactionPayload("1000000359369800", bought: "2025-05-15T00:00:00Z", expires: "2025-06-15T00:00:00Z"))
            return FakeServerAPI.json(.object([("status", .int(0)), ("signedTransactions", .array([.string(jws)]))]))
        })
        controller.press(.character("O"), on: screen)
        controller.typeText("MK5TTTVWJH", on: screen)
        controller.press(.enter, on: screen)
        #expect(screen.text.contains("Ask Apple for order MK5TTTVWJH (Look Up Order ID)"))
        controller.press(.character("y"), on: screen)
        #expect(await controller.settle())
        #expect(controller.state.message?.text == "Apple order MK5TTTVWJH: 1 transaction for alice (1 new)")
        #expect(apple.paths == ["/inApps/v1/lookup/MK5TTTVWJH"])
        #expect(try fixture.ledger.transaction("1000000359369800")?.customerId == "alice")
    }
}
