import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing
@testable import ConsoleUI

/// A paid-era customer's receipt holds no in-app purchase and needs none: the receipt view says
/// why the entitlement holds instead of advising a restore (issue 13, item 5).
@Suite("Advice follows the reason")
struct PaidEraAdviceTests {
    @Test func aPaidEraReceiptIsNotToldToRestorePurchases() throws {
        let f = try ConsoleFixture()
        var configuration = ConsoleFixture.configuration
        configuration.paidToFree = PaidToFreeRule(entitlement: "pro", beforeBuild: "42", beforeDate: nil)
        let ledger = PurchaseLedger(database: f.database, configuration: configuration,
                                    verifier: ReceiptVerifier(trust: f.authority.trustStore(), configuration: configuration),
                                    clock: { ConsoleFixture.now })
        func receipt(originalVersion: String) throws -> [UInt8] {
            var builder = UnifiedReceiptBuilder(bundleId: "com.example.app", appVersion: "60", creationDate: ConsoleFixture.date("2025-05-01T00:00:00Z"),
                                                purchases: [])
            builder.originalAppVersion = originalVersion
            builder.receiptType = "Production"
            return Array(try builder.build(signedBy: f.authority).base64.utf8)
        }
        _ = try ledger.importArtefact(try receipt(originalVersion: "12"), customer: "paid-era", source: "test", operatorName: "mei")
        _ = try ledger.importArtefact(try receipt(originalVersion: "50"), customer: "free-era", source: "test", operatorName: "mei")
        let environment = ConsoleEnvironment(ledger: ledger, apple: nil, operatorName: "mei", readOnly: true,
                                             databaseLabel: "purchases.sqlite", clock: { ConsoleFixture.now })
        let size = ScreenSize(rows: 40, columns: 160)
        let c = ConsoleController(environment: environment, size: size)
        let screen = VirtualScreen(size: size)
        c.render(on: screen)
        c.press(.character("4"), .end, on: screen)
        c.press(.up, on: screen)  // paid-era's receipt (free-era's is the last)
        #expect(screen.text.contains("no in-app purchases, and none are needed: pro via legacy paid purchase"), "\(screen.text)")
        #expect(!screen.text.contains("it probably predates the purchase"), "\(screen.text)")
        c.press(.down, on: screen)  // free-era: the general advice (restore purchases) stays
        #expect(screen.text.contains("it probably predates the purchase"), "\(screen.text)")
    }
}
