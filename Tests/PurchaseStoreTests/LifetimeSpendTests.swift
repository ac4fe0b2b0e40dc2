import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// What a customer paid and got back, from the prices Apple signs on StoreKit 2 transactions:
/// kept with each transaction, summed per currency (a prorated refund gives back its share),
/// shown with the customer, and used by version 1's consumption bands (dollars only).
@Suite("Lifetime spend from signed prices, both backends")
struct LifetimeSpendTests {
    static func paid(_ f: BackendLedgerFixture, _ id: String, price: Int64, currency: String = "USD",
                     configure: (inout TransactionPayload) -> Void = { _ in }) throws -> [UInt8] {
        var payload = TransactionPayload(transactionId: id, bundleId: "com.example.app", productId: "com.example.coins.100", type: "Consumable",
                                         purchaseDate: LedgerFixture.date("2025-05-01T00:00:00Z"),
                                         signedDate: LedgerFixture.date("2025-05-01T00:00:00Z"), environment: "Production")
        payload.price = price
        payload.currency = currency
        configure(&payload)
        return Array(try JWSBuilder(authority: f.authority).signedTransaction(payload).utf8)
    }

    @Test(arguments: TestBackend.available)
    func pricesAreKeptAndSummedPerCurrencyWithProratedRefunds(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        for artefact in [try Self.paid(f, "ls-1", price: 9_990), try Self.paid(f, "ls-2", price: 4_990) {
            $0.revocationDate = LedgerFixture.date("2025-05-03T00:00:00Z")
            $0.revocationReason = 0
        }, try Self.paid(f, "ls-3", price: 10_000) {
            $0.revocationDate = LedgerFixture.date("2025-05-04T00:00:00Z")
            $0.revocationReason = 0
            $0.revocationType = "REFUND_PRORATED"
            $0.revocationPercentage = 25_000
        }] {
            _ = try f.ledger.importArtefact(artefact, customer: "lu", source: "test", operatorName: "mei")
        }
        // An app receipt carries no price: counted apart.
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("ls-4", "com.example.pro.lifetime", expires: nil, type: 0)]),
                                        customer: "lu", source: "test", operatorName: "mei")
        #expect(try f.database.queryFirst("SELECT price, currency FROM transactions WHERE transaction_id = 'ls-1'", [])?.int("price") == 9_990)
        let spend = try f.ledger.lifetimeSpend(of: "lu")
        #expect(spend.amounts == [LifetimeSpend.Amount(currency: "USD", spent: 24_980, refunded: 4_990 + 2_500)], "\(spend)")
        #expect(spend.unpriced == 1 && spend.refunds == 2)
        #expect(spend.line == "spent 24.98 USD, refunded 7.49 USD; 1 purchase without a signed price (app receipts carry none)", "\(spend.line ?? "")")
        #expect(try f.ledger.customerSummary("lu").lifetimeSpend == spend)
        // Another currency is summed apart, and then no dollar figure can be given.
        _ = try f.ledger.importArtefact(try Self.paid(f, "ls-5", price: 1_990, currency: "EUR"), customer: "lu", source: "test", operatorName: "mei")
        let mixed = try f.ledger.lifetimeSpend(of: "lu")
        #expect(mixed.amounts.map(\.currency) == ["EUR", "USD"] && mixed.dollars == nil)
    }

    /// A transaction first known from an app receipt gets its price when Apple signs it later.
    @Test(arguments: TestBackend.available)
    func aPriceArrivingLaterFillsTheTransaction(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("lf-1", "com.example.coins.100", expires: nil, type: 1)]),
                                        customer: "mo", source: "test", operatorName: "mei")
        #expect(try f.ledger.lifetimeSpend(of: "mo").unpriced == 1)
        let payload = try Self.paid(f, "lf-1", price: 2_990)
        let data = NotificationData(bundleId: "com.example.app", environment: "Production",
                                    signedTransactionInfo: .compact(String(decoding: payload, as: UTF8.self)))
        let notification = NotificationPayload(notificationType: "ONE_TIME_CHARGE", subtype: nil, notificationUUID: "lf-n1",
                                               signedDate: LedgerFixture.date("2025-05-02T00:00:00Z"), data: data)
        _ = try f.ledger.applyNotification(Array(try JWSBuilder(authority: f.authority).notificationBody(notification).utf8), operatorName: "apple")
        let spend = try f.ledger.lifetimeSpend(of: "mo")
        #expect(spend.unpriced == 0 && spend.amounts == [LifetimeSpend.Amount(currency: "USD", spent: 2_990, refunded: 0)], "\(spend)")
    }
}
