import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// The App Store Server API paths over loopback: signed answers, pagination, look-ups, and the
/// 401 and 404 Apple gives.
@Suite("Simulator App Store Server API")
struct SimulatorServerAPITests {
    /// The signed transactions of an answer, decoded and verified against the simulator's roots.
    static func transactions(_ list: [Any]?, fixture: SimulatorFixture) throws -> [SignedTransaction] {
        let verifier = ReceiptVerifier(trust: fixture.state.authority.trustStore())
        return try (list ?? []).map { item in
            let text = try #require(item as? String)
            let transaction = try SignedTransaction(compactJWS: text)
            let verdict = verifier.verify(.transaction(transaction))
            #expect(verdict.isValid, "\(verdict.reason)")
            return transaction
        }
    }

    @Test("Get Transaction Info answers a verified JWS with the transaction's environment and facts")
    func transactionInfo() throws {
        let fixture = try SimulatorFixture()
        var purchase = SimulatorFixture.monthly(SimulatorFixture.day(-3))
        purchase.appAccountToken = "9A1F5C2E-1111-4222-8333-444455556666"
        let minted = try fixture.state.mintSignedTransaction(environment: .sandbox, purchase: purchase, signedDate: SimulatorFixture.now)
        let id = minted.transaction.transactionId
        let response = try fixture.api(.sandbox, "/inApps/v1/transactions/\(id)")
        #expect(response.status == 200)
        let signed = try #require(try response.json().string("signedTransactionInfo"))
        let transaction = try #require(try Self.transactions([signed], fixture: fixture).first)
        #expect(transaction.environment.environment == .sandbox)
        #expect(transaction.purchase.transactionId == id)
        #expect(transaction.purchase.appAccountToken == "9a1f5c2e-1111-4222-8333-444455556666")
        #expect(transaction.purchase.expiresDate == SimulatorFixture.day(27))
    }

    @Test("an unknown transaction, or one only the other environment knows, is 404 4040010; a non-numeric id 400 4000006")
    func notFound() throws {
        let fixture = try SimulatorFixture()
        let minted = try fixture.state.mintSignedTransaction(environment: .sandbox, purchase: SimulatorFixture.monthly(SimulatorFixture.day(-3)),
                                                             signedDate: SimulatorFixture.now)
        for path in ["/inApps/v1/transactions/", "/inApps/v2/history/", "/inApps/v1/subscriptions/", "/inApps/v2/refund/lookup/"] {
            let elsewhere = try fixture.api(.production, path + minted.transaction.transactionId)
            #expect(elsewhere.status == 404, "\(path)")
            #expect(try elsewhere.json().int("errorCode") == 4040010)
            #expect(try elsewhere.json().string("errorMessage") == "Transaction id not found.")
            #expect(try fixture.api(.sandbox, path + "9999999999").status == 404)
            let bad = try fixture.api(.sandbox, path + "abc")
            #expect(try bad.status == 400 && bad.json().int("errorCode") == 4000006)
        }
        #expect(try fixture.api(.sandbox, "/inApps/v9/nothing/1").status == 404)
        let post = try #require(try exchange(port: fixture.port, method: "POST", path: "/sandbox/inApps/v1/transactions/1", body: [1]))
        #expect(post.status == 405 && post.header("Allow") == "GET")
    }

    @Test("Get Transaction History pages through the account's transactions with revision and hasMore")
    func history() throws {
        let fixture = try SimulatorFixture(pageSize: 20)
        let start = SimulatorFixture.day(-1500)
        let first = try fixture.state.mintSignedTransaction(environment: .sandbox, purchase: SimulatorFixture.monthly(start),
                                                            signedDate: SimulatorFixture.now).transaction
        var expected = [first.transactionId]
        for month in 1...44 {
            let renewed = try fixture.state.renew(originalTransactionId: first.transactionId,
                                                  purchaseDate: start.addingTimeInterval(Double(month) * 30 * 86_400),
                                                  expiresDate: start.addingTimeInterval(Double(month + 1) * 30 * 86_400))
            expected.append(renewed.transactionId)
        }
        _ = try fixture.state.mintSignedTransaction(environment: .sandbox, purchase: SimulatorFixture.monthly(start), signedDate: SimulatorFixture.now)

        var seen: [String] = []
        var revision: String?
        var pages: [(count: Int, hasMore: Bool)] = []
        repeat {
            let query = revision.map { "?revision=\($0)" } ?? ""
            let response = try fixture.api(.sandbox, "/inApps/v2/history/\(expected[7])\(query)")
            #expect(response.status == 200)
            let body = try response.json()
            #expect(try body.string("environment") == "Sandbox" && body.string("bundleId") == SimulatorFixture.bundleId)
            let page = try Self.transactions(body.values["signedTransactions"] as? [Any], fixture: fixture)
            seen += page.compactMap(\.purchase.transactionId)
            #expect(body.has("hasMore"))
            let hasMore = try body.bool("hasMore") ?? false
            pages.append((page.count, hasMore))
            revision = try body.string("revision")
            if !hasMore { break }
        } while pages.count < 10
        #expect(pages.map(\.count) == [20, 20, 5])
        #expect(pages.map(\.hasMore) == [true, true, false])
        #expect(seen == expected, "every transaction of the account once, oldest first, no other account's")

        let descending = try fixture.api(.sandbox, "/inApps/v2/history/\(expected[0])?sort=DESCENDING").json()
        let newest = try Self.transactions(descending.values["signedTransactions"] as? [Any], fixture: fixture).first
        #expect(newest?.purchase.transactionId == expected.last)
        let broken = try fixture.api(.sandbox, "/inApps/v2/history/\(expected[0])?revision=garbage")
        #expect(try broken.status == 400 && broken.json().int("errorCode") == 4000005)
    }

    @Test("a bad, expired, mis-addressed or missing bearer token is 401 with Apple's body")
    func unauthorized() throws {
        let fixture = try SimulatorFixture()
        let id = try fixture.state.mintSignedTransaction(environment: .production, purchase: SimulatorFixture.monthly(SimulatorFixture.day(-3)),
                                                         signedDate: SimulatorFixture.now).transaction.transactionId
        let path = "/inApps/v1/transactions/\(id)"
        #expect(try fixture.api(.production, path).status == 200)
        let otherKey = try PrivateKey.generateP256()
        let cases: [(String, String)] = [
            (try fixture.token(key: otherKey), "signature"),
            (try fixture.token(issuedAt: SimulatorFixture.now.addingTimeInterval(-3600), lifetime: 1800), "expired"),
            (try fixture.token(audience: "appstoreconnect-v2"), "aud"),
            (try fixture.token(kid: "OTHERKEY"), "kid"),
            (try fixture.token(issuer: "someone-else"), "iss"),
            (try fixture.token(bundle: "com.example.other"), "bid"),
            (try fixture.token(issuedAt: SimulatorFixture.now.addingTimeInterval(300)), "future"),
            (try fixture.token(lifetime: 2 * 3600), "hour"),
            ("not-a-jwt", "not a JWT"),
        ]
        for (token, reason) in cases {
            let response = try fixture.api(.production, path, token: token)
            #expect(response.status == 401, "\(reason)")
            #expect(response.text.hasPrefix("Unauthenticated"))
            #expect(response.header("X-Simulator-Reason")?.contains(reason) == true, "\(response.header("X-Simulator-Reason") ?? "")")
        }
        let missing = try #require(try exchange(port: fixture.port, path: "/production\(path)"))
        #expect(missing.status == 401)
        let basic = try #require(try exchange(port: fixture.port, path: "/production\(path)", headers: [("Authorization", "Basic abc")]))
        #expect(basic.status == 401)
        fixture.state.serverAPIKey = nil
        #expect(try fixture.api(.production, path).status == 401)
    }

    @Test("Look Up Order ID returns the order's transactions, status 1 for an unknown order")
    func orderLookup() throws {
        let fixture = try SimulatorFixture()
        var purchase = SimulatedPurchase(productId: "coins.500", type: .consumable, purchaseDate: SimulatorFixture.day(-1))
        purchase.orderId = "MKTEST0001"
        let receipt = try fixture.state.mintUnifiedReceipt(environment: .production, purchases: [purchase])
        #expect(receipt.transactions[0].orderId == "MKTEST0001")
        let found = try fixture.api(.production, "/inApps/v1/lookup/MKTEST0001").json()
        #expect(try found.int("status") == 0)
        #expect(try Self.transactions(found.values["signedTransactions"] as? [Any], fixture: fixture).map(\.purchase.transactionId)
                == [receipt.transactions[0].transactionId])
        let missing = try fixture.api(.production, "/inApps/v1/lookup/MKNOSUCH01").json()
        #expect(try missing.int("status") == 1 && (missing.values["signedTransactions"] as? [Any])?.isEmpty == true)
        #expect(try fixture.api(.sandbox, "/inApps/v1/lookup/MKTEST0001").json().int("status") == 1)
    }

    @Test("Get All Subscription Statuses: active, expired, revoked, with signed renewal info")
    func subscriptionStatuses() throws {
        let fixture = try SimulatorFixture()
        let account = fixture.state.newAccount()
        let active = try fixture.state.register(SimulatorFixture.monthly(SimulatorFixture.day(-5)), environment: .sandbox, account: account)
        let lapsed = try fixture.state.register(SimulatorFixture.monthly(SimulatorFixture.day(-60), product: "pro.yearly"), environment: .sandbox, account: account)
        var other = SimulatorFixture.monthly(SimulatorFixture.day(-5), product: "extra.monthly")
        other.subscriptionGroupIdentifier = "extras"
        let refunded = try fixture.state.register(other, environment: .sandbox, account: account)
        try fixture.state.refund(transactionId: refunded.transactionId, date: SimulatorFixture.day(-1))
        try fixture.state.expire(originalTransactionId: lapsed.transactionId, intent: 1)

        let body = try fixture.api(.sandbox, "/inApps/v1/subscriptions/\(active.transactionId)").json()
        #expect(try body.string("environment") == "Sandbox" && body.int("appAppleId") == 987_654_321)
        var statuses: [String: Int64] = [:]
        for group in try body.objects("data") {
            for item in try group.objects("lastTransactions") {
                statuses[try item.string("originalTransactionId") ?? ""] = try item.int("status")
                let renewal = try RenewalInfo(compactJWS: try #require(try item.string("signedRenewalInfo")))
                #expect(ReceiptVerifier(trust: fixture.state.authority.trustStore()).verify(.renewalInfo(renewal)).isValid)
            }
        }
        #expect(statuses == [active.transactionId: 1, lapsed.transactionId: 2, refunded.transactionId: 5])
        #expect(try body.objects("data").compactMap { try $0.string("subscriptionGroupIdentifier") }.sorted() == ["extras", "pro.monthly", "pro.yearly"])
    }

    @Test("Get Refund History lists the account's refunded transactions only")
    func refundHistory() throws {
        let fixture = try SimulatorFixture()
        let receipt = try fixture.state.mintUnifiedReceipt(environment: .production, purchases: [
            SimulatedPurchase(productId: "coins.100", type: .consumable, purchaseDate: SimulatorFixture.day(-9)),
            SimulatedPurchase(productId: "coins.500", type: .consumable, purchaseDate: SimulatorFixture.day(-8)),
        ])
        #expect(try fixture.api(.production, "/inApps/v2/refund/lookup/\(receipt.transactions[0].transactionId)").json()
                    .values["signedTransactions"] as? [Any] != nil)
        try fixture.state.refund(transactionId: receipt.transactions[1].transactionId, date: SimulatorFixture.day(-2), reason: 1)
        let body = try fixture.api(.production, "/inApps/v2/refund/lookup/\(receipt.transactions[0].transactionId)").json()
        let refunds = try Self.transactions(body.values["signedTransactions"] as? [Any], fixture: fixture)
        #expect(refunds.map(\.purchase.transactionId) == [receipt.transactions[1].transactionId])
        #expect(refunds.first?.purchase.revocationDate == SimulatorFixture.day(-2))
        #expect(try body.bool("hasMore") == false)
    }
}
