import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// Send Consumption Information and Set App Account Token over loopback.
@Suite("Simulator consumption information and app account token")
struct ConsumptionAndTokenEndpointTests {
    static let valid: [(String, String)] = [
        ("customerConsented", "true"), ("consumptionStatus", "2"), ("platform", "1"), ("sampleContentProvided", "false"),
        ("deliveryStatus", "0"), ("appAccountToken", "\"\""), ("accountTenure", "3"), ("playTime", "4"),
        ("lifetimeDollarsRefunded", "0"), ("lifetimeDollarsPurchased", "5"), ("userStatus", "1"), ("refundPreference", "2"),
    ]

    static func body(replacing key: String? = nil, with value: String? = nil) -> String {
        "{" + valid.compactMap { name, text in
            guard name == key else { return "\"\(name)\":\(text)" }
            return value.map { "\"\(name)\":\($0)" }
        }.joined(separator: ",") + "}"
    }

    @Test("a valid request is 202 with no body, kept with its date, and settles the pending CONSUMPTION_REQUEST")
    func accepted() throws {
        let fixture = try SimulatorFixture()
        let coins = try fixture.state.register(SimulatedPurchase(productId: "coins", type: .consumable, purchaseDate: SimulatorFixture.day(-2)), environment: .sandbox)
        let note = try fixture.state.requestConsumption(transactionId: coins.transactionId, date: SimulatorFixture.now.addingTimeInterval(-3 * 3600))
        #expect(note.record.notificationType == "CONSUMPTION_REQUEST")
        #expect(fixture.state.pendingConsumptionRequest(transactionId: coins.transactionId) == SimulatorFixture.now.addingTimeInterval(-3 * 3600))
        let response = try fixture.send("PUT", .sandbox, "/inApps/v1/transactions/consumption/\(coins.transactionId)", body: Self.body())
        #expect(response.status == 202 && response.body.isEmpty)
        let kept = try #require(fixture.state.consumptionRecords(transactionId: coins.transactionId).first)
        #expect(kept.receivedDate == SimulatorFixture.now && kept.consumptionStatus == 2 && kept.playTime == 4 && kept.refundPreference == 2)
        #expect(kept.lifetimeDollarsPurchased == 5 && kept.appAccountToken == "" && kept.environment == .sandbox)
        #expect(fixture.state.pendingConsumptionRequest(transactionId: coins.transactionId) == nil)
        let sub = try fixture.activeSubscription()
        #expect(try fixture.send("PUT", .sandbox, "/inApps/v1/transactions/consumption/\(sub.transactionId)",
                                 body: Self.body(replacing: "appAccountToken", with: "\"\(UUID().uuidString)\"")).status == 202)
        #expect(try fixture.send("PUT", .sandbox, "/inApps/v1/transactions/consumption/\(sub.transactionId)",
                                 body: Self.body(replacing: "refundPreference")).status == 202, "refundPreference may be left out")
    }

    static let validV2: [(String, String)] = [
        ("customerConsented", "true"), ("consumptionPercentage", "25000"), ("deliveryStatus", "\"DELIVERED\""),
        ("refundPreference", "\"GRANT_PRORATED\""), ("sampleContentProvided", "false"),
    ]

    static func bodyV2(replacing key: String? = nil, with value: String? = nil) -> String {
        "{" + validV2.compactMap { name, text in
            guard name == key else { return "\"\(name)\":\(text)" }
            return value.map { "\"\(name)\":\($0)" }
        }.joined(separator: ",") + "}"
    }

    @Test("version 2: Apple's names and the share consumed are kept; the reason rides on the request; each wrong member refused")
    func version2() throws {
        let fixture = try SimulatorFixture()
        let coins = try fixture.state.register(SimulatedPurchase(productId: "coins", type: .consumable, purchaseDate: SimulatorFixture.day(-2)), environment: .sandbox)
        let note = try fixture.state.requestConsumption(transactionId: coins.transactionId, date: SimulatorFixture.now.addingTimeInterval(-3600),
                                                        reason: "FULFILLMENT_ISSUE")
        #expect(note.body.contains("signedPayload"))
        let signed = try #require(note.record.signedPayload)
        let payload = try #require(try ServerNotification(compactJWS: signed).payload.object("data"))
        #expect(try payload.string("consumptionRequestReason") == "FULFILLMENT_ISSUE")
        let path = "/inApps/v2/transactions/consumption/\(coins.transactionId)"
        let response = try fixture.send("PUT", .sandbox, path, body: Self.bodyV2())
        #expect(response.status == 202 && response.body.isEmpty)
        let kept = try #require(fixture.state.consumptionRecords(transactionId: coins.transactionId).first)
        #expect(kept.version == 2 && kept.consumptionPercentage == 25_000 && kept.deliveryStatusName == "DELIVERED"
                && kept.refundPreferenceName == "GRANT_PRORATED")
        #expect(fixture.state.pendingConsumptionRequest(transactionId: coins.transactionId) == nil)
        #expect(try fixture.send("PUT", .sandbox, path, body: Self.bodyV2(replacing: "consumptionPercentage")).status == 202, "may be left out")
        #expect(try fixture.send("PUT", .sandbox, path, body: Self.bodyV2(replacing: "refundPreference")).status == 202, "may be left out")
        let codes: [(String, String?, Int64)] = [
            ("customerConsented", "false", 4000035), ("customerConsented", nil, 4000035), ("deliveryStatus", "0", 4000036),
            ("deliveryStatus", "\"LOST\"", 4000036), ("deliveryStatus", nil, 4000036), ("sampleContentProvided", nil, 4000041),
            ("refundPreference", "\"MAYBE\"", 4000044), ("consumptionPercentage", "100001", 4000000), ("consumptionPercentage", "-1", 4000000),
        ]
        for (key, value, code) in codes {
            let wrong = try fixture.send("PUT", .sandbox, path, body: Self.bodyV2(replacing: key, with: value))
            #expect(wrong.status == 400 && SimulatorFixture.errorCode(wrong) == code, "\(key)=\(value ?? "missing")")
        }
        #expect(fixture.state.consumptionRecords(transactionId: coins.transactionId).count == 3, "nothing kept from a refused request")
    }

    @Test("each member missing or out of range has its own code; unknown 4040010; not consumable 4000043")
    func errors() throws {
        let fixture = try SimulatorFixture()
        let coins = try fixture.state.register(SimulatedPurchase(productId: "coins", type: .consumable, purchaseDate: SimulatorFixture.day(-2)), environment: .sandbox)
        let path = "/inApps/v1/transactions/consumption/\(coins.transactionId)"
        let codes: [(String, String, Int64)] = [
            ("customerConsented", "false", 4000035), ("consumptionStatus", "4", 4000034), ("platform", "3", 4000039),
            ("sampleContentProvided", "1", 4000041), ("deliveryStatus", "6", 4000036), ("appAccountToken", "\"abc\"", 4000033),
            ("accountTenure", "8", 4000032), ("playTime", "-1", 4000040), ("lifetimeDollarsRefunded", "8", 4000038),
            ("lifetimeDollarsPurchased", "\"2\"", 4000037), ("userStatus", "5", 4000042), ("refundPreference", "4", 4000044),
        ]
        for (key, value, code) in codes {
            let wrong = try fixture.send("PUT", .sandbox, path, body: Self.body(replacing: key, with: value))
            #expect(wrong.status == 400 && SimulatorFixture.errorCode(wrong) == code, "\(key)=\(value)")
            if key != "refundPreference" {
                #expect(SimulatorFixture.errorCode(try fixture.send("PUT", .sandbox, path, body: Self.body(replacing: key))) == code, "\(key) missing")
            }
        }
        #expect(SimulatorFixture.errorCode(try fixture.send("PUT", .sandbox, path, body: "{")) == 4000000)
        #expect(SimulatorFixture.errorCode(try fixture.send("PUT", .sandbox, "/inApps/v1/transactions/consumption/9999999", body: Self.body())) == 4040010)
        #expect(SimulatorFixture.errorCode(try fixture.send("PUT", .production, path, body: Self.body())) == 4040010)
        #expect(SimulatorFixture.errorCode(try fixture.send("PUT", .sandbox, "/inApps/v1/transactions/consumption/x1", body: Self.body())) == 4000006)
        let ads = try fixture.state.register(SimulatedPurchase(productId: "no.ads", type: .nonConsumable, purchaseDate: SimulatorFixture.day(-2)), environment: .sandbox)
        let refused = try fixture.send("PUT", .sandbox, "/inApps/v1/transactions/consumption/\(ads.transactionId)", body: Self.body())
        #expect(refused.status == 400 && SimulatorFixture.errorCode(refused) == 4000043)
        #expect(fixture.state.consumptionRecords(transactionId: coins.transactionId).isEmpty)
    }

    @Test("Set App Account Token: every transaction of the original and the next renewal's signed transaction and notification carry it")
    func appAccountToken() throws {
        let fixture = try SimulatorFixture()
        let sub = try fixture.activeSubscription(start: SimulatorFixture.day(-40))
        let renewal = try fixture.state.renew(originalTransactionId: sub.transactionId, purchaseDate: SimulatorFixture.day(-10), expiresDate: SimulatorFixture.day(20))
        let token = "5E0C2A1B-7B0D-4C3A-9F1E-0A1B2C3D4E5F"
        let path = "/inApps/v1/transactions/\(sub.transactionId)/appAccountToken"
        let response = try fixture.send("PUT", .sandbox, path, body: "{\"appAccountToken\":\"\(token)\"}")
        #expect(response.status == 200 && response.body.isEmpty)
        #expect(fixture.state.transaction(renewal.transactionId)?.appAccountToken == token.lowercased())
        let note = try fixture.state.renewAndNotify(originalTransactionId: sub.transactionId, purchaseDate: SimulatorFixture.day(20), expiresDate: SimulatorFixture.day(50))
        let decoded = try fixture.verifiedNotification(note.signedPayload)
        #expect(decoded.transaction?.purchase.appAccountToken == token.lowercased())
        #expect(decoded.transaction?.purchase.transactionId == note.record.transactionId)
        let info = try fixture.send("GET", .sandbox, "/inApps/v1/transactions/\(try #require(note.record.transactionId))").json()
        #expect(try SignedTransaction(compactJWS: try #require(try info.string("signedTransactionInfo"))).purchase.appAccountToken == token.lowercased())

        #expect(SimulatorFixture.errorCode(try fixture.send("PUT", .sandbox, path, body: "{\"appAccountToken\":\"nope\"}")) == 4000033)
        #expect(SimulatorFixture.errorCode(try fixture.send("PUT", .sandbox, path, body: "{}")) == 4000033)
        #expect(SimulatorFixture.errorCode(try fixture.send("PUT", .sandbox, "/inApps/v1/transactions/\(renewal.transactionId)/appAccountToken",
                                                             body: "{\"appAccountToken\":\"\(token)\"}")) == 4000187)
        let unknown = try fixture.send("PUT", .sandbox, "/inApps/v1/transactions/9999999/appAccountToken", body: "{\"appAccountToken\":\"\(token)\"}")
        #expect(unknown.status == 404 && SimulatorFixture.errorCode(unknown) == 4040010)
        #expect(SimulatorFixture.errorCode(try fixture.send("PUT", .production, path, body: "{\"appAccountToken\":\"\(token)\"}")) == 4040010)
    }
}
