@testable import ConsoleUI
import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// Signing a promotional or win-back offer from the customer view: the form (the product from the
/// customer's subscription), the ledger's preview, y, then the token shown once in the pager to
/// copy, never saved, never in a message, the database or the screen's state once closed; the
/// audit keeps its SHA-256. Nothing is asked of Apple.
@Suite("Signing an offer from the console", .serialized)
struct OfferSignatureActionTests {
    /// Opens the offer form for alice (whose subscription Apple says may redeem WINBACK50) and
    /// fills it with `offer` and `reason`.
    static func fill(_ controller: ConsoleController, _ screen: VirtualScreen, offer: String, reason: String) {
        controller.press(.character("P"), .tab, on: screen)
        controller.typeText(offer, on: screen)
        controller.press(.tab, on: screen)
        controller.typeText(reason, on: screen)
        controller.press(.enter, on: screen)
    }

    static func offerAudits(_ fixture: ConsoleFixture) throws -> Int64 {
        try fixture.database.queryFirst("SELECT count(*) AS n FROM audit_log WHERE action = 'apple-offer-signature'", [])?.int("n") ?? -1
    }

    static func winBack(_ fixture: ConsoleFixture) throws {
        let renewal = fixture.transactionPayload(ConsoleFixture.renewalId, bought: "2025-05-01T00:00:00Z", expires: "2025-06-01T00:00:00Z")
        try fixture.notify("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", uuid: "n-winback", signed: "2025-06-01T03:00:00Z", status: 4,
                           transaction: renewal, renewal: fixture.renewalPayload(signed: "2025-06-01T03:00:00Z") {
                               $0.autoRenewStatus = 0
                               $0.eligibleWinBackOfferIds = ["WINBACK50"]
                           })
    }

    @Test func theFormPreviewsThenTheTokenIsShownOnceToCopyAndOnlyItsDigestIsKept() async throws {
        let (fixture, controller, screen, apple) = try AppleActionTests.console({ _, _ in FakeServerAPI.empty() })
        try Self.winBack(fixture)
        controller.press(.character("P"), on: screen)
        guard case .form(let form) = controller.state.mode, case .offer(let customer, let choices) = form.kind else {
            Issue.record("no form: \(controller.state.message?.text ?? "")"); return
        }
        #expect(customer == "alice" && choices.map(\.originalTransactionId) == [ConsoleFixture.original])
        #expect(choices.first?.productId == "com.example.pro.monthly", "the product comes from the customer's subscription")
        #expect(choices.first?.label == "com.example.pro.monthly · grace period · win-back: WINBACK50 · original \(ConsoleFixture.original)",
                "the choice names the win-back offers Apple says alice may redeem")
        controller.press(.escape, on: screen)
        // Without a reason: refused in the form, nothing signed.
        Self.fill(controller, screen, offer: "WINBACK50", reason: "")
        guard case .form(let refused) = controller.state.mode else { Issue.record("the form closed"); return }
        #expect(refused.error?.hasPrefix("a reason is required") == true, "\(refused.error ?? "")")
        controller.press(.escape, on: screen)
        Self.fill(controller, screen, offer: "WINBACK50", reason: "churned, ticket 77")
        guard case .confirm(let confirmation) = controller.state.mode else { Issue.record("no preview: \(controller.state.message?.text ?? "")"); return }
        #expect(confirmation.title == "Sign an offer: preview")
        let preview = confirmation.lines.map { $0.map(\.text).joined() }
        #expect(preview.first == "Sign offer WINBACK50 of com.example.pro.monthly for alice")
        #expect(preview.contains("  tied to their purchase \(ConsoleFixture.original) (the signature's transactionId)"))
        #expect(preview.contains("  shown once, to copy into the app: never stored, logged or shown again"))
        #expect(try Self.offerAudits(fixture) == 0, "nothing before y")
        controller.press(.character("y"), on: screen)
        #expect(await controller.settle())
        guard case .pager(let pager) = controller.state.mode else { Issue.record("no pager: \(controller.state.message?.text ?? "")"); return }
        #expect(pager.shownOnce && pager.title == "offer WINBACK50 of com.example.pro.monthly for alice: signed token")
        let token = pager.text
        let parts = token.split(separator: ".").map(String.init)
        try #require(parts.count == 3, "the pager holds the token alone, to copy whole: \(token)")
        let claims = try JSONObject(parsing: try Base64.decodeURL(parts[1], "claims"), what: "claims")
        #expect(try claims.string("offerIdentifier") == "WINBACK50" && claims.string("productId") == "com.example.pro.monthly"
                && claims.string("transactionId") == ConsoleFixture.original && claims.string("aud") == "promotional-offer")
        let key = try #require(controller.environment.appleActions).client.token.credentials.privateKey
        #expect(try key.publicKey().verifyES256(rawSignature: try Base64.decodeURL(parts[2], "signature"), message: Array((parts[0] + "." + parts[1]).utf8)))
        let message = try #require(controller.state.message)
        #expect(message == StatusMessage(text: "offer WINBACK50 of com.example.pro.monthly signed for alice: shown once in the pager (y copies it; it is not kept)",
                                         kind: .success))
        #expect(apple.paths.isEmpty, "nothing is asked of Apple")
        // The audit says what, to whom and why, with the token's digest; the database never holds the token.
        let audit = try #require(try fixture.database.queryFirst("SELECT operator, details FROM audit_log WHERE action = 'apple-offer-signature'", []))
        let details = audit.string("details") ?? ""
        #expect(audit.string("operator") == "mei" && details.contains("churned, ticket 77") && details.contains("WINBACK50"))
        #expect(details.contains(DigestAlgorithm.sha256.hash(Array(token.utf8)).hexString))
        #expect(!(try fixture.dump()).contains(parts[2]), "no table holds the token")
        // y copies it whole; s does not save it.
        var state = controller.state
        #expect(PagerLogic.handleKey(&state, pager, .character("y")) == [.copyToClipboard(token, label: pager.title)])
        controller.press(.character("s"), on: screen)
        guard case .pager(let after) = controller.state.mode else { Issue.record("the pager closed"); return }
        #expect(after.prompt == nil, "no file name is asked")
        #expect(controller.state.message?.text == "not saved: \(pager.title) is shown once and never stored; y copies it")
        #expect(screen.text.contains("shown once, not kept: y copy (OSC 52)"))
        // Closed, it is gone.
        controller.press(.escape, on: screen)
        #expect(!String(describing: controller.state).contains(parts[2]), "nothing of the screen's state keeps it")
    }

    @Test func aBadOfferIdIsRefusedAtThePreviewAndACustomerWithoutSubscriptionHasNoForm() async throws {
        let (fixture, controller, screen, _) = try AppleActionTests.console({ _, _ in FakeServerAPI.empty() })
        Self.fill(controller, screen, offer: "WIN BACK", reason: "goodwill")
        guard case .form(let refused) = controller.state.mode else { Issue.record("the form closed"); return }
        #expect(refused.error == "offer refused: offer signature: the offer identifier 'WIN BACK' is not 1–100 printable ASCII characters",
                "\(refused.error ?? "")")
        controller.press(.escape, on: screen)
        #expect(try Self.offerAudits(fixture) == 0)
        // bob bought a non-consumable only: nothing to offer. (The command line `:offer` asks the same.)
        controller.state.focus = .list
        controller.press(.character("j"), on: screen)
        #expect(controller.state.selectedCustomer == "bob")
        controller.press(.character(":"), on: screen)
        controller.typeText("offer", on: screen)
        controller.press(.enter, on: screen)
        #expect(controller.state.message?.text == "bob has no auto-renewable subscription: an offer is signed for a subscription product")
    }

    /// A token shown once cannot wait for the operator to leave a prompt: its pager opens over it;
    /// any other answer's pager waits for the browsing screen.
    @Test func aValueShownOnceOpensOverAnOpenPromptAnotherDoesNot() {
        var state = ConsoleState(header: ReducerTests.header, size: ScreenSize(rows: 24, columns: 80))
        let request = AppleRequest.offer(customer: "alice", productId: "p", offerId: "o", transactionId: nil, reason: "r")
        var secret = PagerState(title: "offer o of p for alice: signed token", text: "a.b.c")
        secret.shownOnce = true
        let message = StatusMessage(text: "signed", kind: .success)
        state.mode = .filter(TextField("ali"))
        _ = ConsoleReducer.reduce(&state, .appleFinished(AppleOutcome(request: request, message: message, pager: secret, changed: false)))
        guard case .pager(let shown) = state.mode else { Issue.record("the token waited behind the filter prompt"); return }
        #expect(shown == secret)
        state.mode = .filter(TextField("ali"))
        let history = AppleRequest.history(transactionId: "1")
        _ = ConsoleReducer.reduce(&state, .appleFinished(AppleOutcome(request: history, message: message, pager: PagerState(title: "h", text: "x"),
                                                                     changed: false)))
        guard case .filter(let field) = state.mode else { Issue.record("the history replaced the filter prompt"); return }
        #expect(field.text == "ali")
    }

    @Test func readOnlyOffersNoOffer() throws {
        let fixture = try ConsoleFixture()
        let (controller, screen) = fixture.console(readOnly: true)
        controller.press(.character("P"), on: screen)
        #expect(controller.state.message?.text == "read-only (--read-only): 'offer' is not available; nothing changed")
        #expect(!KeyBindings.helpRows(readOnly: true).contains { $0.name == "offer" })
        #expect(KeyBindings.helpRows(readOnly: false).contains { $0.name == "offer" && $0.keys == "P" })
    }
}
