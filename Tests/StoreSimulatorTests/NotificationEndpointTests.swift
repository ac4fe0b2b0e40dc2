import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// A loopback receiver for notifications: keeps each body and answers with `status`.
final class NotificationReceiver: @unchecked Sendable {
    let server: HTTPServer

    init(status: Int = 200) throws {
        let box = Box()
        server = try HTTPServer { request in
            box.append(String(decoding: request.body, as: UTF8.self), path: request.path, type: request.header("Content-Type"))
            return HTTPServerResponse(status: status)
        }
        self.box = box
        try server.start()
    }

    private let box: Box
    var bodies: [String] { box.bodies }
    var url: URL { URL(string: "http://127.0.0.1:\(server.port)/apple/notifications") ?? URL(fileURLWithPath: "/") }

    deinit { server.stop() }

    /// What arrived, under a lock (the server's threads write it).
    final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String] = []
        func append(_ body: String, path: String, type: String?) {
            lock.lock(); defer { lock.unlock() }
            items.append(path == "/apple/notifications" && type == "application/json" ? body : "wrong request: \(path) \(type ?? "")")
        }
        var bodies: [String] { lock.lock(); defer { lock.unlock() }; return items }
    }
}

/// Get Notification History, Request a Test Notification, Get Test Notification Status, and delivery.
@Suite("Simulator notification history, test notifications and delivery")
struct NotificationEndpointTests {
    static func historyBody(start: Date = SimulatorFixture.day(-30), end: Date = SimulatorFixture.day(1), extra: String = "") -> String {
        "{\"startDate\":\(Int64(start.timeIntervalSince1970 * 1000)),\"endDate\":\(Int64(end.timeIntervalSince1970 * 1000))\(extra)}"
    }

    @Test("history pages oldest first with paginationToken, filters by type, transaction and date, and returns the JWS as minted")
    func history() throws {
        let fixture = try SimulatorFixture(pageSize: 2)
        let sub = try fixture.activeSubscription(start: SimulatorFixture.day(-20))
        var minted: [MintedNotification] = []
        minted.append(try fixture.state.setAutoRenew(originalTransactionId: sub.transactionId, enabled: false, date: SimulatorFixture.day(-9)))
        minted.append(try fixture.state.setAutoRenew(originalTransactionId: sub.transactionId, enabled: true, date: SimulatorFixture.day(-8)))
        let coins = try fixture.state.chargeOneTime(SimulatedPurchase(productId: "coins", type: .consumable, purchaseDate: SimulatorFixture.day(-7)), environment: .sandbox)
        minted.append(coins)
        minted.append(try fixture.state.refundAndNotify(transactionId: try #require(coins.record.transactionId), date: SimulatorFixture.day(-6)))
        minted.append(try fixture.state.increasePrice(originalTransactionId: sub.transactionId, renewalPrice: 12_990, accepted: false, date: SimulatorFixture.day(-5)))
        _ = try fixture.state.chargeOneTime(SimulatedPurchase(productId: "coins", type: .consumable, purchaseDate: SimulatorFixture.day(-4)), environment: .production)

        var payloads: [String] = []
        var token: String?
        var firstToken: String?
        var pages = 0
        repeat {
            let query = token.map { "?paginationToken=\($0)" } ?? ""
            let response = try fixture.send("POST", .sandbox, "/inApps/v1/notifications/history\(query)", body: Self.historyBody())
            #expect(response.status == 200)
            let json = try response.json()
            for item in try json.objects("notificationHistory") {
                payloads.append(try item.string("signedPayload") ?? "")
                #expect((item.values["sendAttempts"] as? [Any]) != nil)
            }
            token = try json.string("paginationToken")
            if firstToken == nil { firstToken = token }
            #expect(try json.bool("hasMore") == (token != nil))
            pages += 1
        } while token != nil && pages < 10
        #expect(pages == 3)
        #expect(payloads == minted.map(\.signedPayload), "this environment's notifications, oldest first, byte for byte")
        for payload in payloads { _ = try fixture.verifiedNotification(payload) }

        func filtered(_ extra: String, start: Date = SimulatorFixture.day(-30), end: Date = SimulatorFixture.day(1)) throws -> [String] {
            var found: [String] = []
            var token: String?
            repeat {
                let query = token.map { "?paginationToken=\($0)" } ?? ""
                let json = try fixture.send("POST", .sandbox, "/inApps/v1/notifications/history\(query)",
                                            body: Self.historyBody(start: start, end: end, extra: extra)).json()
                found += try json.objects("notificationHistory").map { try $0.string("signedPayload") ?? "" }
                token = try json.string("paginationToken")
            } while token != nil && found.count < 20
            return found
        }
        #expect(try filtered(",\"notificationType\":\"REFUND\"") == [minted[3].signedPayload])
        #expect(try filtered(",\"notificationType\":\"DID_CHANGE_RENEWAL_STATUS\",\"notificationSubtype\":\"AUTO_RENEW_ENABLED\"") == [minted[1].signedPayload])
        #expect(try filtered(",\"transactionId\":\"\(sub.transactionId)\"") == [minted[0], minted[1], minted[4]].map(\.signedPayload))
        #expect(try filtered("", start: SimulatorFixture.day(-8), end: SimulatorFixture.day(-6)) == [minted[1], minted[2]].map(\.signedPayload), "[start, end)")
        #expect(try filtered(",\"onlyFailures\":true").isEmpty)
        let other = try fixture.send("POST", .sandbox, "/inApps/v1/notifications/history?paginationToken=\(try #require(firstToken))",
                                     body: Self.historyBody(extra: ",\"notificationType\":\"REFUND\""))
        #expect(SimulatorFixture.errorCode(other) == 4000014, "a token continues only the query that made it")
    }

    @Test("history errors: 4000015, 4000016, 4000012, 4000013, 4000014, 4000018, 4000019")
    func historyErrors() throws {
        let fixture = try SimulatorFixture()
        let path = "/inApps/v1/notifications/history"
        let ms = { (date: Date) in Int64(date.timeIntervalSince1970 * 1000) }
        let cases: [(String, String, Int64)] = [
            (path, "{\"endDate\":\(ms(SimulatorFixture.now))}", 4000015),
            (path, "{\"startDate\":\"yesterday\",\"endDate\":\(ms(SimulatorFixture.now))}", 4000015),
            (path, "{\"startDate\":\(ms(SimulatorFixture.day(-1)))}", 4000016),
            (path, Self.historyBody(start: SimulatorFixture.day(-181)), 4000012),
            (path, Self.historyBody(start: SimulatorFixture.day(-1), end: SimulatorFixture.day(-2)), 4000013),
            (path + "?paginationToken=garbage", Self.historyBody(), 4000014),
            (path, Self.historyBody(extra: ",\"notificationType\":\"NOT_A_TYPE\""), 4000018),
            (path, Self.historyBody(extra: ",\"notificationType\":\"REFUND\",\"transactionId\":\"1\""), 4000019),
            (path, "nonsense", 4000000),
        ]
        for (target, body, code) in cases {
            let response = try fixture.send("POST", .sandbox, target, body: body)
            #expect(response.status == 400 && SimulatorFixture.errorCode(response) == code, "\(body)")
        }
        let get = try fixture.send("GET", .sandbox, path)
        #expect(get.status == 405 && get.header("Allow") == "POST")
    }

    @Test("a test notification is delivered to a loopback receiver and its status lists the attempt; unknown token 4040008; no URL 4040007")
    func testNotification() throws {
        let fixture = try SimulatorFixture()
        let noURL = try fixture.send("POST", .sandbox, "/inApps/v1/notifications/test")
        #expect(noURL.status == 404 && SimulatorFixture.errorCode(noURL) == 4040007)
        let receiver = try NotificationReceiver()
        try fixture.state.setNotificationURL(receiver.url)
        let response = try fixture.send("POST", .sandbox, "/inApps/v1/notifications/test")
        #expect(response.status == 200)
        let token = try #require(try response.json().string("testNotificationToken"))
        let parts = token.split(separator: "_")
        #expect(parts.count == 2 && UUID(uuidString: String(parts[0])) != nil && parts.last.map(String.init) == String(Int64(SimulatorFixture.now.timeIntervalSince1970 * 1000)))
        let status = try fixture.send("GET", .sandbox, "/inApps/v1/notifications/test/\(token)").json()
        let signed = try #require(try status.string("signedPayload"))
        let attempts = try status.objects("sendAttempts")
        #expect(try attempts.map { try $0.string("sendAttemptResult") } == ["SUCCESS"])
        #expect(try attempts.first?.millisecondsDate("attemptDate") == SimulatorFixture.now)
        #expect(receiver.bodies == ["{\"signedPayload\":\"\(signed)\"}"])
        let decoded = try fixture.verifiedNotification(signed)
        #expect(decoded.notificationType == "TEST" && decoded.transaction == nil && decoded.bundleId == SimulatorFixture.bundleId)
        #expect(decoded.appAppleId == 987_654_321 && decoded.environment.environment == .sandbox)

        let unknown = try fixture.send("GET", .sandbox, "/inApps/v1/notifications/test/\(UUID().uuidString)_1")
        #expect(unknown.status == 404 && SimulatorFixture.errorCode(unknown) == 4040008)
        #expect(SimulatorFixture.errorCode(try fixture.send("GET", .production, "/inApps/v1/notifications/test/\(token)")) == 4040008)
        #expect(SimulatorFixture.errorCode(try fixture.send("GET", .sandbox, "/inApps/v1/notifications/test/nonsense")) == 4000020)
    }

    @Test("delivery records SUCCESS, UNSUCCESSFUL_HTTP_RESPONSE_CODE and NO_RESPONSE; only failures filter; only loopback http URLs are accepted")
    func delivery() throws {
        let fixture = try SimulatorFixture()
        let sub = try fixture.activeSubscription()
        let failing = try NotificationReceiver(status: 500)
        try fixture.state.setNotificationURL(failing.url)
        let refused = try fixture.state.setAutoRenew(originalTransactionId: sub.transactionId, enabled: false, date: SimulatorFixture.day(-2))
        #expect(refused.record.sendAttempts?.map(\.result) == [.unsuccessfulHTTPResponseCode])
        #expect(failing.bodies == [refused.body])
        let closedPort = failing.server.port
        failing.server.stop()
        try fixture.state.setNotificationURL(URL(string: "http://127.0.0.1:\(closedPort)/gone"))
        let unanswered = try fixture.state.setAutoRenew(originalTransactionId: sub.transactionId, enabled: true, date: SimulatorFixture.day(-1))
        #expect(unanswered.record.sendAttempts?.map(\.result) == [.noResponse])
        let working = try NotificationReceiver()
        try fixture.state.setNotificationURL(working.url)
        let delivered = try fixture.state.increasePrice(originalTransactionId: sub.transactionId, renewalPrice: 9_990, accepted: true, date: SimulatorFixture.now)
        #expect(delivered.record.sendAttempts?.map(\.result) == [.success])
        #expect(working.bodies == [delivered.body])

        let json = try fixture.send("POST", .sandbox, "/inApps/v1/notifications/history",
                                    body: Self.historyBody(extra: ",\"onlyFailures\":true")).json()
        #expect(try json.objects("notificationHistory").map { try $0.string("signedPayload") } == [refused.signedPayload, unanswered.signedPayload])

        for text in ["https://127.0.0.1/x", "http://example.com/x", "http://10.0.0.1/x", "ftp://127.0.0.1/x", "http://0.0.0.0:80/"] {
            #expect(throws: SimulatorError.self, "\(text)") { try fixture.state.setNotificationURL(URL(string: text)) }
        }
        #expect(fixture.state.notificationURL == working.url, "a refused URL leaves the old one")
        try fixture.state.setNotificationURL(nil)
        #expect(fixture.state.notificationURL == nil)
    }
}
