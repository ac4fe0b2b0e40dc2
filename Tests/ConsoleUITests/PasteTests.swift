import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing
@testable import ConsoleUI

/// A receipt pasted from a ticket: one paste is inserted whole in one step, its line breaks are
/// data (never Enter), base64 and JWS lose the whitespace logs and emails wrap them with, and a
/// long paste is not thrown away by one Esc.
@Suite("Pasting into the console's forms")
struct PasteTests {
    /// A JWS wrapped at 40 columns, as a log or an email shows it.
    static func wrappedJWS(_ f: ConsoleFixture) throws -> (jws: String, wrapped: String) {
        let payload = TransactionPayload(transactionId: "77001", bundleId: "com.example.app", productId: "com.example.pro.lifetime",
                                         type: "Non-Consumable", purchaseDate: ConsoleFixture.now, signedDate: ConsoleFixture.now,
                                         environment: "Production")
        let jws = try JWSBuilder(authority: f.authority).signedTransaction(payload)
        var wrapped = ""
        var line = ""
        for character in jws {
            line.append(character)
            if line.count == 40 { wrapped += line + "\r\n"; line = "" }
        }
        return (jws, "  " + wrapped + line + "\n")
    }

    func openImportForm(_ c: ConsoleController, _ screen: VirtualScreen) {
        c.press(.character("i"), on: screen)
        c.press(.tab, on: screen)  // Customer → Artefact
    }

    @Test func aWrappedJWSPastedIntoTheImportFormIsOneArtefact() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: ScreenSize(rows: 30, columns: 120))
        let (jws, wrapped) = try Self.wrappedJWS(f)
        openImportForm(c, screen)
        c.handle(.paste(wrapped))
        c.render(on: screen)
        guard case .form(let form) = c.state.mode else { Issue.record("the paste left the form: \(c.state.mode)"); return }
        #expect(form.value("Artefact") == jws, "whitespace from the wrapping is dropped")
        #expect(form.focus == 1, "line breaks in a paste are data, not Enter")
        #expect(form.value("Order").isEmpty, "nothing spilled into the next field")
        // Submitting imports it as the valid transaction it is.
        c.press(.enter, on: screen)
        c.press(.enter, on: screen)
        c.press(.enter, on: screen)
        c.press(.character("y"), on: screen)
        #expect(try f.database.queryFirst("SELECT count(*) AS n FROM transactions WHERE transaction_id = '77001'", [])?.int("n") == 1,
                "\(screen.text)")
    }

    @Test func escOnALongPasteAsksFirst() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: ScreenSize(rows: 30, columns: 120))
        openImportForm(c, screen)
        c.handle(.paste(try Self.wrappedJWS(f).wrapped))
        c.press(.escape, on: screen)
        guard case .form(let asked) = c.state.mode else { Issue.record("one Esc threw the paste away"); return }
        #expect(asked.error?.contains("Esc again throws away") == true)
        c.press(.left, on: screen)  // any other key keeps it
        guard case .form(let kept) = c.state.mode else { Issue.record("the form closed"); return }
        #expect(kept.longestText > FormState.longText)
        c.press(.escape, on: screen)
        c.press(.escape, on: screen)
        if case .browse = c.state.mode {} else { Issue.record("two Esc kept the form") }
        // A short form closes on the first Esc, as before.
        c.press(.character("i"), on: screen)
        c.press(.escape, on: screen)
        if case .browse = c.state.mode {} else { Issue.record("a short form did not close on Esc") }
    }

    @Test func elsewhereLineBreaksBecomeSpacesAndJSONKeepsItsText() {
        #expect(FormLogic.cleanPaste("outage\ngoodwill\r\n", into: "Reason") == "outage goodwill ")
        #expect(FormLogic.cleanPaste("{\"signedPayload\": \"a.b.c\"}\n", into: "Artefact") == "{\"signedPayload\": \"a.b.c\"}")
        #expect(FormLogic.cleanPaste(" /tmp/receipt.b64\n", into: "Artefact") == "/tmp/receipt.b64")
        #expect(FormLogic.cleanPaste("ewoJ InNp\nZ25h", into: "Or receipt") == "ewoJInNpZ25h")
    }

    @Test func aFiftyKilobytePasteIsOneStep() throws {
        let f = try ConsoleFixture()
        let (c, screen) = f.console(size: ScreenSize(rows: 30, columns: 120))
        openImportForm(c, screen)
        let big = String(repeating: "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0\n", count: 1_400)  // about 50 KB
        let started = Date()
        c.handle(.paste(big))
        c.render(on: screen)
        guard case .form(let form) = c.state.mode else { Issue.record("the paste left the form"); return }
        #expect(form.value("Artefact").count == 1_400 * 36)
        // A bound for a loaded machine, far above what one step costs (the bench measures it).
        #expect(Date().timeIntervalSince(started) < 10)
    }
}
