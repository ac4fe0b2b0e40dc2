import Foundation
import PurchaseStore
import Testing
@testable import ConsoleUI

/// Issue 29: a conflict said "claimed by cust-family-kid (receipt #372)" while #372 sat under
/// the parent and the kid showed "receipts: none". The ledger is right: a receipt is stored once,
/// under whoever presented it first, and the kid presented the parent's; what was wrong was
/// calling it the claimant's receipt. In the fixture erin presents carol's receipt.
@Suite("Conflict attribution")
struct ConflictAttributionTests {
    @Test(arguments: ConsoleBackend.available)
    func aPresentedReceiptIsAttributedToWhomItIsStoredUnder(_ backend: ConsoleBackend) throws {
        let f = try ConsoleFixture(backend: backend)
        let carolsReceipt = try f.receiptId("carol")
        #expect(try f.receiptId("erin") == -1, "the shared receipt is stored once, under carol")
        let conflict = try #require(try f.ledger.conflicts().first { $0.claimantCustomerId == "erin" })
        #expect(conflict.receiptId == carolsReceipt && conflict.receiptCustomerId == "carol" && conflict.ownerCustomerId == "carol")
        #expect(try f.ledger.customerSummary("erin").conflicts.first?.receiptCustomerId == "carol")

        let (c, screen) = f.console(size: ScreenSize(rows: 30, columns: 140))
        c.press(.character("5"), on: screen)
        #expect(screen.text.contains("presented in      #\(carolsReceipt)  stored under carol, who presented it first"), "\(screen.text)")
        #expect(!screen.text.contains("claimant's receipt"))
        // erin's own view: no "no receipt on file, ask them to restore", but where their receipt went.
        c.press(.character("1"), on: screen)
        while c.state.list.selectedRow?.customerId != "erin" { c.press(.down, on: screen) }
        #expect(screen.text.contains("▸ #\(carolsReceipt) presented by them is stored under carol, who presented it first"), "\(screen.text)")
        #expect(!screen.text.contains("no receipt on file"))
    }
}
