import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// Extend a Subscription Renewal Date and the mass extension endpoints over loopback.
@Suite("Simulator subscription extensions")
struct ExtensionEndpointTests {
    static func body(days: String = "30", reason: String = "1", request: String = UUID().uuidString) -> String {
        "{\"extendByDays\":\(days),\"extendReasonCode\":\(reason),\"requestIdentifier\":\"\(request)\"}"
    }

    @Test("extending moves the expiry and renewal date, answers Apple's shape and mints RENEWAL_EXTENDED; the same request id does not extend twice")
    func extend() throws {
        let fixture = try SimulatorFixture()
        let sub = try fixture.activeSubscription()
        let request = UUID().uuidString
        let response = try fixture.send("PUT", .sandbox, "/inApps/v1/subscriptions/extend/\(sub.transactionId)", body: Self.body(request: request))
        #expect(response.status == 200)
        let json = try response.json()
        let expected = SimulatorFixture.day(50)
        #expect(try json.string("originalTransactionId") == sub.transactionId)
        #expect(try json.string("webOrderLineItemId") == sub.webOrderLineItemId)
        #expect(try json.bool("success") == true)
        #expect(try json.millisecondsDate("effectiveDate") == expected)
        #expect(fixture.state.transaction(sub.transactionId)?.expiresDate == expected)
        let recorded = fixture.state.extensions(originalTransactionId: sub.transactionId)
        #expect(recorded.map(\.days) == [30] && recorded.first?.reasonCode == 1 && recorded.first?.requestIdentifier == request.lowercased())
        let note = try #require(fixture.state.notifications.last)
        #expect(note.notificationType == "RENEWAL_EXTENDED")
        let decoded = try fixture.verifiedNotification(try #require(note.signedPayload))
        #expect(decoded.transaction?.purchase.expiresDate == expected)
        #expect(decoded.renewalInfo?.renewalDate == expected)

        let again = try fixture.send("PUT", .sandbox, "/inApps/v1/subscriptions/extend/\(sub.transactionId)", body: Self.body(request: request))
        #expect(again.status == 200 && again.body == response.body)
        #expect(fixture.state.transaction(sub.transactionId)?.expiresDate == expected, "not extended twice")
        #expect(fixture.state.notifications.count == 1)
    }

    @Test("each invalid body member and id has its code; unknown 4040005; ineligible 4030004")
    func errors() throws {
        let fixture = try SimulatorFixture()
        let sub = try fixture.activeSubscription()
        let path = "/inApps/v1/subscriptions/extend/\(sub.transactionId)"
        let cases: [(String, String, Int, Int64)] = [
            (path, Self.body(days: "0"), 400, 4000009), (path, Self.body(days: "91"), 400, 4000009),
            (path, Self.body(days: "\"30\""), 400, 4000009), (path, Self.body(days: "1.5"), 400, 4000009),
            (path, Self.body(reason: "4"), 400, 4000010), (path, Self.body(reason: "-1"), 400, 4000010),
            (path, Self.body(request: "not-a-uuid"), 400, 4000011),
            ("/inApps/v1/subscriptions/extend/12ab", Self.body(), 400, 4000008),
            ("/inApps/v1/subscriptions/extend/9999999999", Self.body(), 404, 4040005),
            (path, "not json", 400, 4000000), (path, "[1,2]", 400, 4000000),
            (path, "{\"pad\":\"" + String(repeating: "x", count: 70_000) + "\"}", 400, 4000000),
        ]
        for (target, body, status, code) in cases {
            let response = try fixture.send("PUT", .sandbox, target, body: body)
            #expect(response.status == status && SimulatorFixture.errorCode(response) == code, "\(body.prefix(60)) → \(response.status) \(response.text.prefix(100))")
        }
        #expect(SimulatorFixture.errorCode(try fixture.send("PUT", .production, path, body: Self.body())) == 4040005, "other environment")
        let expired = try fixture.state.register(SimulatorFixture.monthly(SimulatorFixture.day(-90)), environment: .sandbox)
        let coins = try fixture.state.register(SimulatedPurchase(productId: "coins", type: .consumable, purchaseDate: SimulatorFixture.day(-1)), environment: .sandbox)
        let retrying = try fixture.activeSubscription()
        try fixture.state.failRenewal(originalTransactionId: retrying.transactionId, date: SimulatorFixture.day(-1))
        let revoked = try fixture.activeSubscription()
        try fixture.state.refund(transactionId: revoked.transactionId, date: SimulatorFixture.day(-1))
        for id in [expired.transactionId, coins.transactionId, retrying.transactionId, revoked.transactionId] {
            let response = try fixture.send("PUT", .sandbox, "/inApps/v1/subscriptions/extend/\(id)", body: Self.body())
            #expect(response.status == 403 && SimulatorFixture.errorCode(response) == 4030004)
            #expect(try response.json().string("errorMessage") == "Subscription extension ineligible.")
        }
        let get = try fixture.send("GET", .sandbox, path)
        #expect(get.status == 405 && get.header("Allow") == "PUT")
        #expect(try #require(try exchange(port: fixture.port, method: "PUT", path: "/sandbox\(path)", body: Array(Self.body().utf8))).status == 401)
    }

    @Test("twice a year at most, and at most 180 days in 365: then 4030005")
    func yearlyLimit() throws {
        let fixture = try SimulatorFixture()
        let sub = try fixture.activeSubscription()
        let path = "/inApps/v1/subscriptions/extend/\(sub.transactionId)"
        #expect(try fixture.send("PUT", .sandbox, path, body: Self.body(days: "90")).status == 200)
        let tooMany = try fixture.send("PUT", .sandbox, path, body: Self.body(days: "91"))
        #expect(SimulatorFixture.errorCode(tooMany) == 4000009)
        #expect(try fixture.send("PUT", .sandbox, path, body: Self.body(days: "90")).status == 200, "180 days in all is allowed")
        let third = try fixture.send("PUT", .sandbox, path, body: Self.body(days: "1"))
        #expect(third.status == 403 && SimulatorFixture.errorCode(third) == 4030005)
        #expect(try third.json().string("errorMessage") == "Subscription max extension.")

        let other = try fixture.activeSubscription()
        let otherPath = "/inApps/v1/subscriptions/extend/\(other.transactionId)"
        #expect(try fixture.send("PUT", .sandbox, otherPath, body: Self.body(days: "90")).status == 200)
        #expect(SimulatorFixture.errorCode(try fixture.send("PUT", .sandbox, otherPath, body: Self.body(days: "91"))) == 4000009)
        let over = try fixture.send("PUT", .sandbox, otherPath, body: Self.body(days: "90"))
        #expect(over.status == 200, "90 + 90 = 180 is the limit, not over it")
        let sum = try fixture.activeSubscription()
        #expect(try fixture.send("PUT", .sandbox, "/inApps/v1/subscriptions/extend/\(sum.transactionId)", body: Self.body(days: "90")).status == 200)
        let tooLong = try fixture.send("PUT", .sandbox, "/inApps/v1/subscriptions/extend/\(sum.transactionId)", body: Self.body(days: "91"))
        #expect(SimulatorFixture.errorCode(tooLong) == 4000009)
    }

    @Test("a mass extension completes on the K-th status poll with counts; at-limit subscriptions fail; RENEWAL_EXTENSION SUMMARY carries the summary")
    func massExtension() throws {
        let fixture = try SimulatorFixture()
        fixture.state.massExtensionStatusPolls = 3
        let subs = try (0..<4).map { _ in try fixture.activeSubscription() }
        _ = try fixture.activeSubscription(product: "pro.yearly")
        _ = try fixture.activeSubscription(.production)
        let atLimit = subs[3].transactionId
        for _ in 0..<2 {
            #expect(try fixture.send("PUT", .sandbox, "/inApps/v1/subscriptions/extend/\(atLimit)", body: Self.body(days: "10")).status == 200)
        }
        let notesBefore = fixture.state.notifications.count
        let request = UUID().uuidString.lowercased()
        let body = "{\"extendByDays\":7,\"extendReasonCode\":3,\"requestIdentifier\":\"\(request)\",\"productId\":\"pro.monthly\",\"storefrontCountryCodes\":[\"USA\"]}"
        let started = try fixture.send("POST", .sandbox, "/inApps/v1/subscriptions/extend/mass", body: body)
        #expect(try started.status == 200 && started.json().string("requestIdentifier") == request)
        #expect(try fixture.send("POST", .sandbox, "/inApps/v1/subscriptions/extend/mass", body: body).status == 200, "repeated request")

        let statusPath = "/inApps/v1/subscriptions/extend/mass/pro.monthly/\(request)"
        var seen: [(Bool, Int64, Int64)] = []
        for _ in 0..<4 {
            let json = try fixture.send("GET", .sandbox, statusPath).json()
            seen.append((try json.bool("complete") ?? false, try json.int("succeededCount") ?? -1, try json.int("failedCount") ?? -1))
            if try json.bool("complete") == true { #expect(try json.millisecondsDate("completeDate") == SimulatorFixture.now) }
            else { #expect(!json.has("completeDate")) }
        }
        #expect(seen.map(\.0) == [false, false, true, true])
        #expect(seen.map(\.1) == [1, 2, 3, 3])
        #expect(seen.map(\.2) == [0, 0, 1, 1])
        #expect(fixture.state.transaction(subs[0].transactionId)?.expiresDate == SimulatorFixture.day(27))
        let minted = fixture.state.notifications.dropFirst(notesBefore)
        #expect(minted.map(\.notificationType) == ["RENEWAL_EXTENDED", "RENEWAL_EXTENDED", "RENEWAL_EXTENDED", "RENEWAL_EXTENSION"])
        let summaryNote = try #require(minted.last)
        #expect(summaryNote.subtype == "SUMMARY")
        let decoded = try fixture.verifiedNotification(try #require(summaryNote.signedPayload))
        let summary = try #require(try decoded.payload.object("summary"))
        #expect(!decoded.payload.has("data"))
        #expect(try summary.string("requestIdentifier") == request && summary.string("productId") == "pro.monthly")
        #expect(try summary.int("succeededCount") == 3 && summary.int("failedCount") == 1 && summary.int("appAppleId") == 987_654_321)
        #expect(try summary.string("environment") == "Sandbox" && summary.string("bundleId") == SimulatorFixture.bundleId)
        #expect((summary.values["storefrontCountryCodes"] as? [String]) == ["USA"])

        let unknown = try fixture.send("GET", .sandbox, "/inApps/v1/subscriptions/extend/mass/pro.monthly/\(UUID().uuidString)")
        #expect(unknown.status == 404 && SimulatorFixture.errorCode(unknown) == 4040009)
        #expect(SimulatorFixture.errorCode(try fixture.send("GET", .production, statusPath)) == 4040009)
        #expect(SimulatorFixture.errorCode(try fixture.send("GET", .sandbox, "/inApps/v1/subscriptions/extend/mass/pro.yearly/\(request)")) == 4040009)
        let badProduct = body.replacingOccurrences(of: "pro.monthly", with: "no.such.product")
        #expect(SimulatorFixture.errorCode(try fixture.send("POST", .sandbox, "/inApps/v1/subscriptions/extend/mass", body: badProduct)) == 4000023)
        #expect(SimulatorFixture.errorCode(try fixture.send("POST", .sandbox, "/inApps/v1/subscriptions/extend/mass",
                                                             body: body.replacingOccurrences(of: "\"extendByDays\":7", with: "\"extendByDays\":0"))) == 4000009)
        #expect(SimulatorFixture.errorCode(try fixture.send("POST", .sandbox, "/inApps/v1/subscriptions/extend/mass",
                                                             body: body.replacingOccurrences(of: "\"extendReasonCode\":3", with: "\"extendReasonCode\":9"))) == 4000010)
        #expect(SimulatorFixture.errorCode(try fixture.send("POST", .sandbox, "/inApps/v1/subscriptions/extend/mass",
                                                             body: body.replacingOccurrences(of: request, with: "nope"))) == 4000011)
    }
}
