@testable import ConsoleUI
import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore
import Testing

/// A transaction finished at Apple says so where the console lists it (the customer view) and in
/// its own detail; one not finished says nothing.
@Suite("Finished at Apple in the console")
struct FinishedTransactionViewTests {
    @Test func theCustomerViewAndTheTransactionDetailSayFinishedAtApple() async throws {
        let fixture = try ConsoleFixture()
        let apple = ScriptedApple { _ in FakeServerAPI.empty() }
        let client = try #require(try FakeServerAPI.service(apple, fixture).serverAPI)
        let actions = AppleActions(ledger: LedgerLock(fixture.ledger), client: client)
        // alice's coins, paid for order ORD-8812.
        _ = try await actions.finishTransaction("1000000359369500", reason: "coins delivered", operatorName: "mei")
        #expect(apple.paths == ["/inApps/v1/transactions/1000000359369500/finish"])
        let (c, screen) = fixture.console(size: ScreenSize(rows: 48, columns: 160))
        c.press(.enter, on: screen)
        let lines = DetailLines.build(c.state)
        let texts = lines.map { $0.spans.text }
        #expect(texts.contains { $0.contains("1000000359369500") && $0.hasSuffix("finished at Apple 2025-06-01") }, "\(texts.joined(separator: "\n"))")
        #expect(!texts.contains { $0.contains("1000000359369600") && $0.contains("finished at Apple") }, "the other coins are not finished")
        c.state.detail.cursor = try #require(lines.firstIndex { $0.action == .open(.transaction("1000000359369500")) })
        c.press(.enter, on: screen)
        #expect(c.state.detail.target == .transaction("1000000359369500"))
        #expect(screen.text.contains("finished at Apple 2025-06-01 12:00  by mei (Finish Transaction)"), "\(screen.text)")
    }
}
