import Foundation
import PurchaseStore
import ReceiptCore
import Testing
@testable import ConsoleUI

/// What one operator did, seen by another (issue 13, item 4): a re-verification's result is
/// stored with the receipt and shown in another console; a restore shows on both accounts; a
/// resolved conflict keeps its history; a repeated callback leaves a trace on the transaction.
@Suite("Team history in the console")
struct TeamHistoryViewTests {
    @Test func anotherConsoleSeesTheStoredReverification() async throws {
        let f = try ConsoleFixture()
        // One operator re-verifies (awaited, not polled: no deadline to miss on a loaded machine).
        let reverifier = Reverifier(lock: LedgerLock(f.ledger), service: try ScriptedApple(answer: ScriptedApple.mismatchAnswer).service(),
                                    operatorName: "mei")
        let report = await reverifier.reverify(1)
        #expect(report.outcome == .verified, "\(report.summary)")
        // A second operator's console, which ran nothing, opens the same receipt.
        let (other, otherScreen) = f.console(size: ScreenSize(rows: 48, columns: 160))
        other.press(.character("4"), on: otherScreen)
        #expect(otherScreen.text.contains("Apple's answer re-verified 2025-06-01 12:00 by mei"), "\(otherScreen.text)")
        #expect(otherScreen.text.contains("≠ "), "the differences are stored too:\n\(otherScreen.text)")
    }

    @Test func restoresConflictsAndRepeatsAreInTheHistoryOfBothCustomers() throws {
        let f = try ConsoleFixture()
        let conflict = try #require(try f.ledger.conflicts().first)
        try f.ledger.resolveConflict(conflict.conflictId, owner: conflict.claimantCustomerId, reason: "their order id matches", operatorName: "li")
        _ = try f.ledger.restore(customer: "newphone", fromCustomer: "alice", transactionIds: ["1000000359369424"], reason: "new phone",
                                 operatorName: "mei")
        let alicesReceipt = try #require(try f.database.queryFirst("SELECT raw FROM receipts WHERE customer_id = 'alice' ORDER BY receipt_id LIMIT 1", [])?.blob("raw"))
        _ = try f.ledger.importArtefact(alicesReceipt, customer: "alice", source: "callback again", operatorName: "mei")
        let (c, screen) = f.console(size: ScreenSize(rows: 60, columns: 180))
        c.press(.character("/"), on: screen)
        c.typeText("alice", on: screen)
        c.press(.enter, .character("1"), on: screen)
        #expect(screen.text.contains("1000000359369424 transferred out to newphone (restore), by mei: new phone"), "\(screen.text)")
        #expect(screen.text.contains("arrived again"), "\(screen.text)")
        c.press(.character("/"), on: screen)
        for _ in 0..<5 { c.press(.backspace, on: screen) }
        c.typeText("newphone", on: screen)
        c.press(.enter, .character("1"), on: screen)
        #expect(screen.text.contains("1000000359369424 restored from alice, by mei: new phone"), "\(screen.text)")
        // The conflict keeps who owned it, who resolved it, when and why.
        c.press(.character("\\"), .character("5"), on: screen)
        c.press(.character("/"), on: screen)
        c.typeText("status:resolved", on: screen)
        c.press(.enter, on: screen)
        #expect(screen.text.contains("owner before"), "\(screen.text)")
        #expect(screen.text.contains("by li at 2025-06-01 12:00"), "\(screen.text)")
        #expect(screen.text.contains("\"their order id matches\""), "\(screen.text)")
    }
}
