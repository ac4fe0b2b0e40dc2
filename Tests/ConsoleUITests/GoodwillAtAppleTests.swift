@testable import ConsoleUI
import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// B's "extend at Apple": for the tagged customers (or the filter's), one preview from
/// `planRenewalExtensionBatch` (who gets what, who is skipped and why, Apple asked nothing),
/// then y extends each at the simulator over loopback, off the screen's thread, and the report
/// opens in the pager. On both backends; the preview's snapshot at 80×24.
@Suite("Goodwill at Apple for many in the console", .serialized)
struct GoodwillAtAppleTests {
    static let size = ScreenSize(rows: 48, columns: 160)

    /// The simulator on loopback, and the console's Apple service for it.
    final class Apple: @unchecked Sendable {
        let state: SimulatorState
        let simulator: AppStoreSimulator
        let service: AppleService

        init(_ fixture: ConsoleFixture) throws {
            state = SimulatorState(authority: fixture.authority, bundleId: "com.example.app")
            let key = try PrivateKey.generateP256()
            state.serverAPIKey = ServerAPIKey(publicKey: try key.publicKey(), keyId: "KEY1", issuerId: "ISSUER")
            simulator = try AppStoreSimulator(state: state, clock: { ConsoleFixture.now })
            try simulator.start()
            let credentials = try ServerAPICredentials(keyId: "KEY1", issuerId: "ISSUER", bundleId: "com.example.app", privateKey: key)
            let client = try AppStoreServerAPIClient(endpoints: .rooted(at: simulator.baseURL), transport: URLSessionTransport(), credentials: credentials,
                                                     verifier: ReceiptVerifier(trust: fixture.authority.trustStore()), retry: RetryPolicy(maxAttempts: 1),
                                                     clock: { ConsoleFixture.now })
            service = AppleService(api: .serverAPI, verifyReceipt: nil, serverAPI: client, label: "TEST: the simulator")
        }

        deinit { simulator.stop() }

        /// A monthly subscription the simulator issued, in the ledger for `customer`; its original.
        func subscriber(_ fixture: ConsoleFixture, _ customer: String, bought: String, expires: String) throws -> String {
            let minted = try state.mintUnifiedReceipt(environment: .production, purchases: [
                SimulatedPurchase(productId: "com.example.pro.monthly", type: .autoRenewable, purchaseDate: ConsoleFixture.date(bought),
                                  expiresDate: ConsoleFixture.date(expires)),
            ], originalAppVersion: "50")
            _ = try fixture.ledger.importArtefact(Array(minted.base64.utf8), customer: customer, source: "test", operatorName: "mei")
            return try #require(minted.transactions.first?.transactionId)
        }
    }

    @Test(arguments: ConsoleBackend.available)
    func taggedCustomersArePreviewedThenExtendedAtAppleWithAReport(_ backend: ConsoleBackend) async throws {
        let fixture = try ConsoleFixture(backend: backend)
        let apple = try Apple(fixture)
        let paid = try apple.subscriber(fixture, "gw-a", bought: "2025-05-20T00:00:00Z", expires: "2025-06-20T00:00:00Z")
        let grace = try apple.subscriber(fixture, "gw-b", bought: "2025-05-01T00:00:00Z", expires: "2025-05-31T00:00:00Z")
        let failed = try apple.state.failRenewal(originalTransactionId: grace, date: ConsoleFixture.date("2025-05-31T00:00:00Z"),
                                                 gracePeriodExpiresDate: ConsoleFixture.date("2025-06-10T00:00:00Z"))
        _ = try fixture.ledger.applyNotification(Array(failed.body.utf8), operatorName: "apple")
        let other = try apple.subscriber(fixture, "gw-c", bought: "2025-05-20T00:00:00Z", expires: "2025-06-20T00:00:00Z")
        let (controller, screen) = fixture.console(size: Self.size, apple: apple.service)
        controller.press(.character("/"), on: screen)
        controller.typeText("gw-", on: screen)
        controller.press(.enter, on: screen)
        let rows = controller.state.list.rows.map { "\($0.key)" }
        try #require(rows.count == 3, "\(rows)")
        controller.press(.character(" "), .character(" "), on: screen)  // tag gw-a and gw-b (Space moves on)
        #expect(controller.state.taggedCustomers == ["gw-a", "gw-b"])
        controller.press(.character("B"), on: screen)
        guard case .form(let form) = controller.state.mode, case .grantBatch("gw-", ["gw-a", "gw-b"]) = form.kind else {
            Issue.record("no goodwill form: \(controller.state.mode)"); return
        }
        controller.press(.right, .tab, .tab, .tab, on: screen)  // extend at Apple; to Days
        controller.typeText("3", on: screen)
        controller.press(.tab, .tab, on: screen)
        controller.typeText("outage 3 June", on: screen)
        controller.press(.enter, on: screen)
        guard case .confirm(let confirmation) = controller.state.mode else { Issue.record("no preview: \(controller.state.message?.text ?? "")"); return }
        #expect(confirmation.title == "Goodwill at Apple: preview")
        let preview = confirmation.lines.map { $0.map(\.text).joined() }
        #expect(preview.first == "Extend at Apple by 3 days: 1 of 2 subscriptions of the 2 customers tagged", "\(preview)")
        #expect(preview.contains("  + gw-a  com.example.pro.monthly  expires 2025-06-20 → about 2025-06-23"), "\(preview)")
        let skipped = preview.first { $0.hasPrefix("  - gw-b  com.example.pro.monthly  skipped: ") } ?? ""
        #expect(skipped.contains("skipped: in billing grace period since 2025-05-31 (Apple refuses extensions after expiry): Apple's status 4 and expiry in notification "),
                "\(preview)")
        #expect(!preview.contains { $0.contains("gw-c") }, "only the tagged")
        #expect(apple.state.extensions(originalTransactionId: paid).isEmpty, "the preview asked Apple nothing")

        controller.press(.character("y"), on: screen)
        #expect(controller.state.appleJob?.label == "extending by 3d at Apple for 2 tagged customers")
        #expect(await controller.settle())
        let message = try #require(controller.state.message)
        #expect(message.kind == .success && message.text.hasSuffix(": extended 1 of 2 subscriptions at Apple; 1 skipped (the report is in the pager)"),
                "\(message.text)")
        guard case .pager(let pager) = controller.state.mode else { Issue.record("no report: \(controller.state.mode)"); return }
        let extended = try #require(apple.state.extensions(originalTransactionId: paid).first)
        #expect(pager.text.contains("+ gw-a  \(paid) (com.example.pro.monthly)  extended by 3 days to \(ConsoleFormat.dateTime(extended.effectiveDate))"),
                "\(pager.text)")
        #expect(pager.text.contains("- gw-b  \(grace) (com.example.pro.monthly)  skipped: in billing grace period since 2025-05-31"), "\(pager.text)")
        #expect(apple.state.extensions(originalTransactionId: grace).isEmpty && apple.state.extensions(originalTransactionId: other).isEmpty)
        #expect(try fixture.database.queryFirst("SELECT count(*) AS n FROM audit_log WHERE action = 'apple-extend-batch'", [])?.int("n") == 1)
        #expect(controller.state.tags.isEmpty, "what was tagged was acted on")

        // Without tags the filter's customers are the list: the same goodwill already reached gw-a.
        controller.press(.escape, .character("B"), on: screen)
        controller.press(.right, .tab, .tab, .tab, on: screen)
        controller.typeText("3", on: screen)
        controller.press(.tab, .tab, on: screen)
        controller.typeText("Outage  3 june", on: screen)
        controller.press(.enter, on: screen)
        guard case .confirm(let again) = controller.state.mode else { Issue.record("no second preview: \(controller.state.message?.text ?? "")"); return }
        let lines = again.lines.map { $0.map(\.text).joined() }
        #expect(lines.first == "Extend at Apple by 3 days: 1 of 3 subscriptions of the 3 customers found by gw-", "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  = gw-a  com.example.pro.monthly  already extended by this goodwill to ") }
                && lines.contains { $0.hasPrefix("  + gw-c  ") }, "\(lines)")
        controller.press(.character("n"), on: screen)
        #expect(apple.state.extensions(originalTransactionId: other).isEmpty)
        #expect(try AuditLog.verify(fixture.database).isIntact)
    }

    @Test func theGrantChoiceStillGrantsAndAFormWithoutDaysIsRefused() throws {
        let fixture = try ConsoleFixture()
        let (controller, screen) = fixture.console(size: Self.size)
        controller.press(.character("/"), on: screen)
        controller.typeText("env:production", on: screen)
        controller.press(.enter, .character("B"), .right, .tab, .tab, .tab, .tab, .tab, on: screen)
        controller.typeText("outage", on: screen)
        controller.press(.enter, on: screen)
        guard case .form(let refused) = controller.state.mode else { Issue.record("the form closed"); return }
        #expect(refused.error == "say by how many days Apple extends each (1–90)")
        controller.press(.escape, .character("B"), .tab, .right, .tab, .tab, .tab, .tab, on: screen)
        controller.typeText("outage", on: screen)
        controller.press(.enter, on: screen)
        guard case .confirm(let confirmation) = controller.state.mode, case .grantBatch(_, _?, "pro", .forever, "outage") = confirmation.change else {
            Issue.record("no grant preview: \(controller.state.mode)"); return
        }
    }

    @Test(arguments: [ScreenSize(rows: 24, columns: 80)])
    func previewSnapshot(_ size: ScreenSize) throws {
        let fixture = try ConsoleFixture()
        try fixture.addAppleSide()  // alice's subscription in its grace period since June 1st
        let (controller, _) = fixture.console(size: size)
        controller.handle(.character("/")); controller.type("env:production"); controller.handle(.enter)
        controller.handle(.character("B")); controller.handle(.right); controller.handle(.tab); controller.handle(.tab); controller.handle(.tab)
        controller.type("3"); controller.handle(.tab); controller.handle(.tab); controller.type("outage 3 June"); controller.handle(.enter)
        guard case .confirm = controller.state.mode else { Issue.record("no preview: \(controller.state.message?.text ?? "")"); return }
        Snapshot.check("goodwill-apple-preview", controller, size: size)
    }
}
