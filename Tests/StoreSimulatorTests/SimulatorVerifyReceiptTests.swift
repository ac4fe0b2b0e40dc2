import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// `POST /{production,sandbox}/verifyReceipt` over loopback: every status path, and what the
/// answer carries once the simulator has been told about renewals, refunds and expiries.
@Suite("Simulator verifyReceipt")
struct SimulatorVerifyReceiptTests {
    static func consumable(_ day: Double, product: String = "coins.100") -> SimulatedPurchase {
        SimulatedPurchase(productId: product, type: .consumable, purchaseDate: SimulatorFixture.day(day))
    }

    @Test("a sandbox receipt on sandbox is status 0 with Apple's fields, and decodes as a VerifyReceiptResponse")
    func valid() throws {
        let fixture = try SimulatorFixture()
        let receipt = try fixture.state.mintUnifiedReceipt(environment: .sandbox, purchases: [
            Self.consumable(-2), SimulatorFixture.monthly(SimulatorFixture.day(-10)),
        ], appVersion: "42")
        let answer = try fixture.verify(.sandbox, body: SimulatorFixture.body(receipt.base64))
        #expect(try answer.int("status") == 0)
        #expect(try answer.string("environment") == "Sandbox")
        #expect(try answer.bool("is-retryable") == false)
        #expect(try answer.string("latest_receipt") == receipt.base64)
        let body = try #require(try answer.object("receipt"))
        #expect(try body.string("bundle_id") == SimulatorFixture.bundleId)
        #expect(try body.string("receipt_type") == "ProductionSandbox")
        #expect(try body.string("application_version") == "42")
        let inApp = try body.objects("in_app")
        #expect(inApp.count == 2)
        let coins = try #require(inApp.first { try $0.string("product_id") == "coins.100" })
        let purchased = SimulatorFixture.day(-2)
        #expect(coins.values["purchase_date_ms"] as? String == String(Int64(purchased.timeIntervalSince1970 * 1000)))
        #expect(coins.values["quantity"] as? String == "1")
        let dateText = try #require(coins.values["purchase_date"] as? String)
        #expect(dateText == "2025-05-30 12:00:00 Etc/GMT")
        #expect((coins.values["purchase_date_pst"] as? String)?.hasSuffix("America/Los_Angeles") != false)

        let raw = try #require(try exchange(port: fixture.port, method: "POST", path: "/sandbox/verifyReceipt",
                                            body: Array(SimulatorFixture.body(receipt.base64).utf8)))
        let decoded = try VerifyReceiptResponse(json: raw.body)
        #expect(decoded.status == 0 && decoded.environment.environment == .sandbox)
        #expect(Set(decoded.latestReceiptInfo.compactMap(\.transactionId)) == Set(receipt.transactions.map(\.transactionId)))
        #expect(decoded.pendingRenewalInfo.count == 1)
        #expect(decoded.inApp.first { $0.productId == "coins.100" }?.purchaseDate == purchased)
    }

    @Test("a sandbox receipt on production is 21007 and a production receipt on sandbox 21008, legacy ones too")
    func wrongEnvironment() throws {
        let fixture = try SimulatorFixture()
        let sandbox = try fixture.state.mintUnifiedReceipt(environment: .sandbox, purchases: [Self.consumable(-1)])
        let production = try fixture.state.mintUnifiedReceipt(environment: .production, purchases: [Self.consumable(-1)])
        #expect(try fixture.verify(.production, body: SimulatorFixture.body(sandbox.base64)).int("status") == 21007)
        #expect(try fixture.verify(.sandbox, body: SimulatorFixture.body(production.base64)).int("status") == 21008)
        #expect(try fixture.verify(.production, body: SimulatorFixture.body(production.base64)).int("status") == 0)

        let legacySandbox = try fixture.state.mintLegacyReceipt(environment: .sandbox, purchase: Self.consumable(-3))
        let legacyProduction = try fixture.state.mintLegacyReceipt(environment: .production, purchase: Self.consumable(-3))
        #expect(try fixture.verify(.production, body: SimulatorFixture.body(legacySandbox.base64)).int("status") == 21007)
        #expect(try fixture.verify(.sandbox, body: SimulatorFixture.body(legacyProduction.base64)).int("status") == 21008)
        let legacy = try fixture.verify(.production, body: SimulatorFixture.body(legacyProduction.base64))
        #expect(try legacy.int("status") == 0)
        #expect(try legacy.object("receipt")?.string("transaction_id") == legacyProduction.transactions[0].transactionId)
        #expect(try legacy.object("receipt")?.string("bid") == SimulatorFixture.bundleId)
    }

    @Test("unreadable JSON is 21000; missing or malformed receipt-data is 21002")
    func malformed() throws {
        let fixture = try SimulatorFixture()
        for body in ["", "not json", "[1,2]", "{\"receipt-data\":", String(repeating: "[", count: 100)] {
            #expect(try fixture.verify(.production, body: body).int("status") == 21000, "\(body.prefix(20))")
        }
        for body in ["{}", "{\"receipt-data\":\"\"}", "{\"receipt-data\":\"@@@not base64@@@\"}",
                     "{\"receipt-data\":\"\(Data("hello world".utf8).base64EncodedString())\"}",
                     "{\"receipt-data\":\"\(Data([0x30, 0x03, 0x02, 0x01]).base64EncodedString())\"}",
                     "{\"receipt-data\":\"\(Data("{ broken plist".utf8).base64EncodedString())\"}",
                     "{\"receipt-data\":{\"nested\":1}}"] {
            #expect(try fixture.verify(.production, body: body).int("status") == 21002, "\(body.prefix(40))")
        }
        let get = try #require(try exchange(port: fixture.port, path: "/production/verifyReceipt"))
        #expect(try get.json().int("status") == 21000)
        let put = try #require(try exchange(port: fixture.port, method: "PUT", path: "/production/verifyReceipt", body: [1]))
        #expect(put.status == 405 && put.header("Allow") == "POST")
    }

    @Test("a receipt not signed by the simulator's authority is 21003")
    func forged() throws {
        let fixture = try SimulatorFixture()
        let impostor = try TestCertificateAuthority.shared(.impostor)
        let builder = UnifiedReceiptBuilder(bundleId: SimulatorFixture.bundleId, appVersion: "1", creationDate: SimulatorFixture.now,
                                            purchases: [ReceiptPurchase(productId: "coins.100", transactionId: "1000000000000009",
                                                                        purchaseDate: SimulatorFixture.now)])
        let forged = try builder.build(signedBy: impostor)
        #expect(try fixture.verify(.sandbox, body: SimulatorFixture.body(forged.base64)).int("status") == 21003)
        var tampered = try fixture.state.mintUnifiedReceipt(environment: .sandbox, purchases: [Self.consumable(-1)]).bytes
        let id = Array("coins.100".utf8)
        let start = try #require((0...(tampered.count - id.count)).first { tampered[$0..<($0 + id.count)].elementsEqual(id) })
        tampered[start] = UInt8(ascii: "C")
        #expect(try fixture.verify(.sandbox, body: SimulatorFixture.body(Data(tampered).base64EncodedString())).int("status") == 21003)
    }

    @Test("with a shared secret set, a missing or wrong password is 21004 and the right one passes")
    func sharedSecret() throws {
        let fixture = try SimulatorFixture(sharedSecret: "0123456789abcdef")
        let receipt = try fixture.state.mintUnifiedReceipt(environment: .sandbox, purchases: [SimulatorFixture.monthly(SimulatorFixture.day(-1))])
        #expect(try fixture.verify(.sandbox, body: SimulatorFixture.body(receipt.base64)).int("status") == 21004)
        #expect(try fixture.verify(.sandbox, body: SimulatorFixture.body(receipt.base64, password: "0123456789abcdeX")).int("status") == 21004)
        #expect(try fixture.verify(.sandbox, body: SimulatorFixture.body(receipt.base64, password: "0123456789abcdef")).int("status") == 0)
        // The environment check comes first, so the production-first client still learns 21007.
        #expect(try fixture.verify(.production, body: SimulatorFixture.body(receipt.base64)).int("status") == 21007)
    }

    @Test("latest_receipt_info shows renewals and refunds it was told about; expiry shows in pending_renewal_info")
    func renewalsAndRefunds() throws {
        let fixture = try SimulatorFixture()
        let start = SimulatorFixture.day(-90)
        let receipt = try fixture.state.mintUnifiedReceipt(environment: .sandbox, purchases: [SimulatorFixture.monthly(start), Self.consumable(-80)])
        let original = receipt.transactions[0].transactionId
        var renewals: [IssuedTransaction] = []
        for month in 1...2 {
            renewals.append(try fixture.state.renew(originalTransactionId: original, purchaseDate: start.addingTimeInterval(Double(month) * 30 * 86_400),
                                                    expiresDate: start.addingTimeInterval(Double(month + 1) * 30 * 86_400)))
        }
        let refundDate = SimulatorFixture.day(-20)
        try fixture.state.refund(transactionId: renewals[1].transactionId, date: refundDate, reason: 1)
        try fixture.state.refund(transactionId: receipt.transactions[1].transactionId, date: refundDate)
        try fixture.state.expire(originalTransactionId: original, intent: 1)

        let answer = try fixture.verify(.sandbox, body: SimulatorFixture.body(receipt.base64))
        let latest = try answer.objects("latest_receipt_info")
        #expect(latest.count == 4)
        #expect(try latest.map { try $0.string("transaction_id") ?? "" }.first == renewals[1].transactionId, "newest first")
        let refunded = try #require(latest.first { try $0.string("transaction_id") == renewals[1].transactionId })
        #expect(refunded.values["cancellation_date_ms"] as? String == String(Int64(refundDate.timeIntervalSince1970 * 1000)))
        #expect(refunded.values["cancellation_reason"] as? String == "1")
        #expect(refunded.values["original_transaction_id"] as? String == original)
        #expect(refunded.values["subscription_group_identifier"] as? String == "pro.monthly")
        let coins = try #require(latest.first { try $0.string("product_id") == "coins.100" })
        #expect(coins.values["cancellation_reason"] as? String == "0")
        let pending = try answer.objects("pending_renewal_info")
        #expect(pending.count == 1)
        #expect(pending.first?.values["auto_renew_status"] as? String == "0")
        #expect(pending.first?.values["expiration_intent"] as? String == "1")
        #expect(try answer.object("receipt")?.objects("in_app").count == 2, "the receipt itself is what was sent")

        let trimmed = try fixture.verify(.sandbox, body: SimulatorFixture.body(receipt.base64, excludeOld: true))
        let kept = try trimmed.objects("latest_receipt_info").map { try $0.string("transaction_id") ?? "" }
        #expect(Set(kept) == [renewals[1].transactionId, receipt.transactions[1].transactionId])
    }

    @Test("transactions in a receipt the simulator never issued still appear in latest_receipt_info")
    func unknownTransactions() throws {
        let fixture = try SimulatorFixture()
        var builder = UnifiedReceiptBuilder(bundleId: SimulatorFixture.bundleId, appVersion: "1", creationDate: SimulatorFixture.now,
                                            purchases: [ReceiptPurchase(productId: "lifetime", transactionId: "1000000000000777",
                                                                        purchaseDate: SimulatorFixture.day(-5), productTypeCode: 0)])
        builder.receiptType = "Production"
        let built = try builder.build(signedBy: fixture.state.authority)
        let answer = try fixture.verify(.production, body: SimulatorFixture.body(built.base64))
        #expect(try answer.int("status") == 0)
        #expect(try answer.objects("latest_receipt_info").map { try $0.string("transaction_id") } == ["1000000000000777"])
    }
}
