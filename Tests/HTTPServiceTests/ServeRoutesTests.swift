import Foundation
import HTTPService
import LiveService
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// `serve`'s routes over real HTTP on loopback: purchases imported as `import` does, Apple's
/// notifications applied once and answered only once committed, tokens, and hostile requests
/// answered 4xx with nothing changed.
@Suite(.serialized) struct ServeRoutesTests {
    static func day(_ n: Double) -> Date { (RFC3339.parse("2025-01-01T00:00:00Z") ?? Date()).addingTimeInterval(n * 86_400) }

    @Test func aPurchaseIsImportedOnceAndAnsweredAsImportDoes() throws {
        let world = try LiveWorld()
        let jws = try world.jws("2000000000000701")
        let first = try #require(try world.purchase(["customer": "ada", "signedTransactions": [jws]]))
        #expect(first.status == 200, "\(String(decoding: first.body, as: UTF8.self))")
        let body = try first.json()
        let result = try #require((body["results"] as? [[String: Any]])?.first)
        let report = try #require((result["transactions"] as? [[String: Any]])?.first)
        #expect(report["outcome"] as? String == "recorded" && report["transactionId"] as? String == "2000000000000701")
        #expect(((result["verdict"] as? [String: Any])?["status"] as? String) == "valid")
        #expect((body["entitlements"] as? [[String: Any]])?.contains { $0["name"] as? String == "pro" && $0["active"] as? Bool == true } == true)
        // StoreKit calls back again: a duplicate, never a second credit.
        let again = try #require(try world.purchase(["customer": "ada", "signedTransactions": [jws]]))
        let repeated = try #require(((try again.json()["results"] as? [[String: Any]])?.first?["transactions"] as? [[String: Any]])?.first)
        #expect(again.status == 200 && repeated["outcome"] as? String == "duplicate")
        #expect(try world.count("SELECT COUNT(*) AS n FROM transactions") == 1)
        let audit = try world.inspector.database.queryFirst("SELECT operator FROM audit_log WHERE action = 'import'", [])
        #expect(audit?.string("operator") == "serve-app", "each audit entry names the token's client")
        let held = try #require(try world.send("GET", "/v1/customers/ada/entitlements", headers: ["Authorization": "Bearer \(world.token)"]))
        #expect(try held.status == 200 && ((held.json()["entitlements"] as? [[String: Any]])?.first?["reason"] as? String)?.isEmpty == false)
    }

    @Test func tokensAreRequiredAndNothingIsWrittenWithoutOne() throws {
        let world = try LiveWorld()
        let jws = try world.jws("2000000000000702")
        let none = try #require(try world.send("POST", "/v1/purchases", body: Array("{\"customer\":\"bo\",\"signedTransactions\":[\"\(jws)\"]}".utf8)))
        #expect(none.status == 401 && none.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        let wrong = try #require(try world.purchase(["customer": "bo", "signedTransactions": [jws]], token: "rdk_" + String(repeating: "A", count: 43)))
        #expect(wrong.status == 401)
        let reading = try #require(try world.send("GET", "/v1/customers/bo/entitlements"))
        #expect(reading.status == 401)
        #expect(try world.count("SELECT COUNT(*) AS n FROM receipts") == 0)
        #expect(try world.count("SELECT COUNT(*) AS n FROM audit_log") == 0)
    }

    @Test func hostileRequestsGetTheir4xxAndChangeNothing() throws {
        let world = try LiveWorld(limits: HTTPService.HTTPServer.Limits(maxBodyBytes: 1 << 20, idleTimeout: .seconds(1), transferTimeout: .seconds(2)))
        let auth = ["Authorization": "Bearer \(world.token)"]
        func status(_ response: RawResponse?) -> Int { response?.status ?? -1 }
        // 10 MB body: refused before it is read.
        #expect(status(try world.send("POST", "/v1/purchases", body: [UInt8](repeating: 0x41, count: 10 << 20), headers: auth)) == 413)
        // Malformed JSON, an unknown member, a missing customer: 400 saying where.
        let malformed = try #require(try world.send("POST", "/v1/purchases", body: Array("{\"customer\": ".utf8), headers: auth))
        #expect(try malformed.status == 400 && ((malformed.json()["error"] as? [String: Any])?["where"] as? String) == "body")
        let unknown = try #require(try world.purchase(["customer": "cy", "receipts": ["x"]]))
        #expect(try unknown.status == 400 && ((unknown.json()["error"] as? [String: Any])?["where"] as? String) == "body.receipts")
        #expect(status(try world.purchase(["signedTransactions": [try world.jws("2000000000000703")]])) == 400)
        // A forged notification (another authority's signature) and garbage: refused, the forgery kept by digest.
        let forger = try TestCertificateAuthority.shared(.impostor)
        let state = SimulatorState(authority: forger, bundleId: "com.example.app")
        let purchase = SimulatedPurchase(productId: "com.example.pro.monthly", type: .autoRenewable, purchaseDate: Self.day(0), expiresDate: Self.day(30))
        let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [purchase], account: "eve")
        let forged = try state.mintNotification(type: "REFUND", transactionId: try #require(receipt.transactions.first?.transactionId), signedDate: Self.day(2))
        let refused = try #require(try world.notify(forged.body))
        #expect((400..<500).contains(refused.status), "\(String(decoding: refused.body, as: UTF8.self))")
        #expect(status(try world.notify("{\"signedPayload\": 12}")) == 400)
        // Unknown route, wrong method.
        #expect(status(try world.send("GET", "/v1/admin")) == 404)
        let wrongMethod = try #require(try world.send("GET", "/v1/purchases", headers: auth))
        #expect(wrongMethod.status == 405 && wrongMethod.headers["allow"] == "POST")
        // HTTP/1.0 and two pipelined requests on one connection: each answered.
        let old = try RawClient(port: world.server.port)
        #expect(old.send("GET /healthz HTTP/1.0\r\n\r\n"))
        #expect(old.readResponse()?.status == 200)
        let pipelined = try RawClient(port: world.server.port)
        #expect(pipelined.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
        #expect(pipelined.readResponse()?.status == 200)
        #expect(pipelined.readResponse()?.status == 404)
        // Slow headers: the connection is cut, and the service answers others meanwhile and after.
        let slow = try RawClient(port: world.server.port)
        #expect(slow.send("POST /v1/purchases HTTP/1.1\r\nHost: x\r\n"))
        #expect(status(try world.send("GET", "/healthz")) == 200)
        #expect(slow.readToEnd().closed, "a client that stops mid-header is cut")
        // Nothing changed but the forgery's audit entry (route, digest, reason; never the body).
        #expect(try world.count("SELECT COUNT(*) AS n FROM receipts") == 0)
        #expect(try world.count("SELECT COUNT(*) AS n FROM transactions") == 0)
        let kept = try world.inspector.database.query("SELECT action, target, details FROM audit_log", [])
        #expect(kept.count == 1 && kept.first?.string("action") == "serve-refused", "\(kept.map { $0.string("details") ?? "" })")
        #expect(kept.first?.string("target") == "request:sha256:" + DigestAlgorithm.sha256.hash(Array(forged.body.utf8)).hexString)
    }

    @Test func aSubscriptionsWholeLifePostedToServeLeavesTheLedgerAsNotifyDoes() throws {
        let world = try LiveWorld()
        let state = SimulatorState(authority: world.authority, bundleId: "com.example.app")
        var purchase = SimulatedPurchase(productId: "com.example.pro.monthly", type: .autoRenewable, purchaseDate: Self.day(0), expiresDate: Self.day(30))
        purchase.price = 4990
        purchase.currency = "EUR"
        let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [purchase], account: "eva", originalAppVersion: "50")
        let original = try #require(receipt.transactions.first?.transactionId)
        for w in [world] { _ = try w.inspector.importArtefact(Array(receipt.base64.utf8), customer: "eva", source: "test", operatorName: "mei") }
        // The simulator itself posts each notification it mints to serve, as Apple posts to the registered URL.
        try state.setNotificationURL(URL(string: "http://127.0.0.1:\(world.server.port)/v1/apple/notifications"))
        state.notificationTimeout = 30
        var life: [MintedNotification] = []
        life.append(try state.setAutoRenew(originalTransactionId: original, enabled: false, date: Self.day(5)))
        life.append(try state.setAutoRenew(originalTransactionId: original, enabled: true, date: Self.day(6)))
        life.append(try state.changeRenewalPreference(originalTransactionId: original, to: "com.example.pro.yearly", upgrade: false, date: Self.day(7)))
        life.append(try state.increasePrice(originalTransactionId: original, renewalPrice: 5990, accepted: false, date: Self.day(9)))
        life.append(try state.increasePrice(originalTransactionId: original, renewalPrice: 5990, accepted: true, date: Self.day(10)))
        life.append(try state.redeemOffer(originalTransactionId: original, offerType: 2, offerIdentifier: "SPRING", date: Self.day(11)))
        life.append(try state.extendRenewalDate(originalTransactionId: original, days: 5, reasonCode: 3, date: Self.day(12)))
        life.append(try state.failRenewal(originalTransactionId: original, date: Self.day(35), gracePeriodExpiresDate: Self.day(41)))
        life.append(try state.expireGracePeriod(originalTransactionId: original, date: Self.day(41)))
        life.append(try state.recoverBilling(originalTransactionId: original, purchaseDate: Self.day(43), expiresDate: Self.day(73)))
        life.append(try state.renewAndNotify(originalTransactionId: original, purchaseDate: Self.day(73), expiresDate: Self.day(103)))
        let latest = try #require(state.transactions.last?.transactionId)
        life.append(try state.requestConsumption(transactionId: latest, date: Self.day(80)))
        life.append(try state.refundAndNotify(transactionId: latest, date: Self.day(85), reason: 1))
        life.append(try state.reverseRefund(transactionId: latest, date: Self.day(86)))
        life.append(try state.setAutoRenew(originalTransactionId: original, enabled: false, date: Self.day(90)))
        life.append(try state.expire(originalTransactionId: original, because: .voluntary, date: Self.day(103)))

        // Each was answered 2xx, so the simulator counts it delivered.
        let delivered = state.notifications.filter { record in life.contains { $0.record.notificationUUID == record.notificationUUID } }
        #expect(delivered.count == life.count)
        #expect(delivered.allSatisfy { $0.sendAttempts?.last?.result == .success },
                "\(delivered.map { ($0.notificationType, $0.sendAttempts?.map(\.result.rawValue) ?? []) })")
        // The same bodies through `notify`, one by one, into a ledger of their own.
        let beside = try LiveWorld()
        _ = try beside.inspector.importArtefact(Array(receipt.base64.utf8), customer: "eva", source: "test", operatorName: "mei")
        let notified = try life.map { try beside.inspector.applyNotification(Array($0.body.utf8), operatorName: "apple") }
        #expect(notified.allSatisfy { $0.applied && $0.customerId == "eva" })
        func projection(_ w: LiveWorld) throws -> [String] {
            try w.inspector.database.query("""
                SELECT transaction_id, customer_id, product_id, expires_date, revocation_date, revocation_type FROM transactions ORDER BY transaction_id
                """, []).map { row in row.columns.indices.map { "\(row.values[$0])" }.joined(separator: "|") }
                + w.inspector.database.query("""
                    SELECT notification_uuid, notification_type, subtype, customer_id, outcome FROM notifications ORDER BY notification_uuid
                    """, []).map { row in row.columns.indices.map { "\(row.values[$0])" }.joined(separator: "|") }
                + w.inspector.entitlements("eva", now: Self.day(200)).map { "\($0.name) \($0.isActive) \($0.reason)" }
        }
        #expect(try projection(world) == projection(beside))
        // Apple sends the whole life again, eight at a time: every one answered 200, nothing changes.
        let before = try projection(world)
        let answers = Answers()
        let bodies = life.map(\.body)
        DispatchQueue.concurrentPerform(iterations: bodies.count) { index in
            answers.add((try? world.notify(bodies[index]))?.status ?? -1)
        }
        #expect(answers.all.sorted() == Array(repeating: 200, count: life.count))
        #expect(try projection(world) == before)
    }

    @Test func theAuditNamesTheClientATrustedProxyForwardsAndNobodyElsesClaim() throws {
        func refusedPeer(_ world: LiveWorld) throws -> String? {
            _ = try world.send("POST", "/v1/apple/notifications", body: Array("{\"signedPayload\":\"a.b.c\"}".utf8),
                               headers: ["X-Forwarded-For": "198.51.100.4, 203.0.113.9"])
            let details = try world.inspector.database.queryFirst("SELECT details FROM audit_log WHERE action = 'serve-refused'", [])?.string("details")
            let object = try JSONSerialization.jsonObject(with: Data((details ?? "{}").utf8)) as? [String: Any]
            return object?["peer"] as? String
        }
        let behindProxy = try refusedPeer(try LiveWorld(trustedProxies: ["127.0.0.1"]))
        #expect(behindProxy?.hasPrefix("203.0.113.9 via 127.0.0.1:") == true, "\(String(describing: behindProxy))")
        let direct = try refusedPeer(try LiveWorld())
        #expect(direct?.hasPrefix("127.0.0.1:") == true, "a client's own X-Forwarded-For is not believed: \(String(describing: direct))")
        // A purchase's import entry names the token's client and who sent it, the same way.
        func purchaseSource(_ world: LiveWorld) throws -> String? {
            let body = Array(try JSONSerialization.data(withJSONObject: ["customer": "ada", "signedTransactions": [try world.jws("2000000000000790")]]))
            let answer = try world.send("POST", "/v1/purchases", body: body,
                                        headers: ["Authorization": "Bearer \(world.token)", "X-Forwarded-For": "198.51.100.4, 203.0.113.9"])
            #expect(answer?.status == 200)
            let details = try world.inspector.database.queryFirst("SELECT details FROM audit_log WHERE action = 'import'", [])?.string("details")
            return (try JSONSerialization.jsonObject(with: Data((details ?? "{}").utf8)) as? [String: Any])?["source"] as? String
        }
        let proxied = try purchaseSource(try LiveWorld(trustedProxies: ["127.0.0.1"]))
        #expect(proxied?.hasPrefix("serve app from 203.0.113.9 via 127.0.0.1:") == true, "\(String(describing: proxied))")
        let unproxied = try purchaseSource(try LiveWorld())
        #expect(unproxied?.hasPrefix("serve app from 127.0.0.1:") == true, "\(String(describing: unproxied))")
    }

    final class Answers: @unchecked Sendable {
        private let lock = NSLock()
        private var statuses: [Int] = []
        func add(_ status: Int) { lock.withLock { statuses.append(status) } }
        var all: [Int] { lock.withLock { statuses } }
    }
}
