import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// Acting at Apple from the command line, end to end: the real binary over a demo database whose
/// Apple is the built-in simulator (real HTTP on loopback, JWT checked, answers signed).
@Suite("subscription, refunds, notifications, transaction: acting at Apple", .serialized)
struct AppleActionCommandsTests {
    typealias Demo = AppleCommandsTests.Demo

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    /// The original transaction id of a customer's subscription, and its Apple state.
    static func subscription(_ demo: Demo, _ customer: String) throws -> (original: String, state: [String: Any]) {
        let show = try CLIRunner.run(["customer", "show", customer, "--json"] + demo.common)
        try #require(show.status == 0, "\(show.stderr)")
        let state = try #require((try object(show.stdout)["subscriptions"] as? [[String: Any]])?.first, "\(show.stdout)")
        return (try #require(state["originalTransactionId"] as? String), state)
    }

    static func audit(_ demo: Demo, _ action: String) throws -> String {
        try CLIRunner.run(["audit", "--limit", "500"] + demo.common).stdout.split(separator: "\n").filter { $0.contains(action) }.joined(separator: "\n")
    }

    @Test func statusShowsWhyASubscriptionStoppedAndJSONCarriesIt() throws {
        let demo = try Demo()
        let text = try CLIRunner.run(["customer", "show", "cust-state-expired-billing-retry"] + demo.common)
        #expect(text.stdout.contains("why: expired ") && text.stdout.contains("billing retry failed since") && text.stdout.contains("grace period ended"),
                "\(text.stdout)")
        #expect(text.stdout.contains("paid 4.99 USD (USA)"), "price as money with the storefront: \(text.stdout)")
        let asked = try CLIRunner.run(["subscription", "status", "cust-state-grace-period", "--json"] + demo.common)
        #expect(asked.status == 0, "\(asked.stderr)")
        let state = try #require((try Self.object(asked.stdout)["subscriptions"] as? [[String: Any]])?.first)
        #expect(state["statusName"] as? String == "grace period", "\(state)")
        #expect((state["why"] as? String)?.contains("in the grace period until") == true, "\(state)")
        #expect((state["source"] as? [String: Any])?["signed"] as? Bool == true)
        #expect((state["price"] as? [String: Any])?["formatted"] as? String == "4.99 USD")
        #expect(try Self.audit(demo, "apple-status").contains("cust-state-grace-period"))
        // The case file for the ticket carries Apple's side too.
        let caseFile = try CLIRunner.run(["customer", "export", "cust-state-grace-period"] + demo.common)
        #expect(caseFile.stdout.contains("## Apple's side") && caseFile.stdout.contains("in the grace period until"), "\(caseFile.stdout)")
        let caseJSON = try Self.object(try CLIRunner.run(["customer", "export", "cust-state-refund-request", "--json"] + demo.common).stdout)
        #expect((caseJSON["refundRequests"] as? [[String: Any]])?.first?["status"] as? String == "open", "\(caseJSON)")
    }

    @Test func extendOneSubscriptionThenTheRulesRefuseAThird() throws {
        let demo = try Demo()
        let (original, before) = try Self.subscription(demo, "cust-state-active")
        let oldExpiry = try #require((before["expiresDate"] as? String).flatMap(RFC3339.parse))
        let dry = try CLIRunner.run(["subscription", "extend", original, "--days", "10", "--reason-code", "outage", "--dry-run"] + demo.common)
        #expect(dry.status == 0 && dry.stdout.contains("by 10 days") && dry.stdout.contains("extensions in the last 365 days: 0 of 2"), "\(dry.stdout)")
        let noReason = try CLIRunner.run(["subscription", "extend", original, "--days", "10", "--reason-code", "outage"] + demo.common)
        expectFailure(noReason, 64, "needs --reason TEXT")
        expectFailure(try CLIRunner.run(["subscription", "extend", original, "--days", "91", "--reason-code", "outage", "--reason", "x"] + demo.common),
                      64, "1–90 days")
        let done = try CLIRunner.run(["subscription", "extend", original, "--days", "10", "--reason-code", "outage",
                                      "--reason", "outage on 2026-11-30", "--json", "--operator", "mei"] + demo.common)
        #expect(done.status == 0, "\(done.stderr)")
        let answer = try Self.object(done.stdout)
        let effective = try #require((answer["effectiveDate"] as? String).flatMap(RFC3339.parse), "\(answer)")
        #expect(abs(effective.timeIntervalSince(oldExpiry) - 10 * 86_400) < 1, "Apple moved the expiry by 10 days")
        let (_, after) = try Self.subscription(demo, "cust-state-active")
        #expect((after["expiresDate"] as? String).flatMap(RFC3339.parse) == effective, "the ledger reads the signed new expiry back: \(after)")
        #expect(try Self.audit(demo, "apple-extend").contains("mei"))
        _ = try CLIRunner.run(["subscription", "extend", original, "--days", "5", "--reason-code", "satisfaction", "--reason", "again"] + demo.common)
        let third = try CLIRunner.run(["subscription", "extend", original, "--days", "5", "--reason-code", "satisfaction", "--reason", "third"] + demo.common)
        expectFailure(third, 65, "already extended twice in the last 365 days")
        // An expired subscription is refused before Apple is asked.
        let (lapsed, _) = try Self.subscription(demo, "cust-state-expired-voluntary")
        expectFailure(try CLIRunner.run(["subscription", "extend", lapsed, "--days", "5", "--reason-code", "other", "--reason", "x"] + demo.common),
                      65, "Apple extends only active subscriptions")
    }

    @Test func massExtensionIsFollowedUntilApplesaysComplete() throws {
        let demo = try Demo()
        let run = try CLIRunner.run(["subscription", "mass-extend", "com.example.game.pro.monthly", "--days", "3", "--reason-code", "outage",
                                     "--reason", "outage 2026-11-30", "--poll-seconds", "0", "--max-polls", "10"] + demo.common)
        #expect(run.status == 0, "\(run.stderr)")
        let progress = run.stdout.split(separator: "\n").filter { $0.hasPrefix("progress: ") }
        #expect(progress.count >= 2, "each poll prints its progress: \(run.stdout)")
        #expect(progress.last?.hasPrefix("progress: complete: ") == true, "\(run.stdout)")
        let list = try CLIRunner.run(["subscription", "mass-status"] + demo.common)
        #expect(list.stdout.contains("com.example.game.pro.monthly  +3 days  production  complete: "), "\(list.stdout)")
        #expect(try Self.audit(demo, "apple-mass-extend-done").contains("com.example.game.pro.monthly"))
        expectFailure(try CLIRunner.run(["subscription", "mass-extend", "com.example.game.coins.1200", "--days", "3", "--reason-code", "outage",
                                         "--reason", "x"] + demo.common), 64, "not an auto-renewable subscription")
    }

    @Test func refundRequestQueueThenConsumptionInformationSent() throws {
        let demo = try Demo()
        let queue = try CLIRunner.run(["refunds"] + demo.common)
        let line = try #require(queue.stdout.split(separator: "\n").first { $0.contains("cust-state-refund-request") }, "\(queue.stdout)")
        #expect(line.contains("due in "), "the deadline is ahead: \(line)")
        let number = String(try #require(line.split(separator: " ").first).dropFirst())
        let noConsent = try CLIRunner.run(["refunds", "send", number, "--reason", "ticket 42"] + demo.common)
        expectFailure(noConsent, 64, "not consented", "--consented")
        let dry = try CLIRunner.run(["refunds", "send", number, "--consented", "--refund-preference", "decline", "--dry-run"] + demo.common)
        #expect(dry.status == 0 && dry.stdout.contains("refundPreference 2 decline the refund") && dry.stdout.contains("deliveryStatus 0"), "\(dry.stdout)")
        let prorated = try CLIRunner.run(["refunds", "send", number, "--consented", "--refund-preference", "prorated",
                                          "--consumption-percentage", "40", "--dry-run"] + demo.common)
        #expect(prorated.status == 0 && prorated.stdout.contains("refundPreference 4 grant a prorated refund")
                && prorated.stdout.contains("consumptionPercentage 40000 40 %") && prorated.stdout.contains("version 2"), "\(prorated.stdout)")
        expectFailure(try CLIRunner.run(["refunds", "send", number, "--consented", "--consumption-percentage", "140", "--dry-run"] + demo.common),
                      64, "0–100")
        let sent = try CLIRunner.run(["refunds", "send", number, "--consented", "--refund-preference", "decline", "--consumption-percentage", "12.5",
                                      "--reason", "used the gems (ticket 42)", "--operator", "mei"] + demo.common)
        #expect(sent.status == 0 && sent.stdout.contains("is sent"), "\(sent.stdout) \(sent.stderr)")
        let all = try CLIRunner.run(["refunds", "--all", "--json"] + demo.common)
        let request = try #require((try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(request["status"] as? String == "sent" && request["sentBy"] as? String == "mei", "\(request)")
        // The simulator holds what Apple received.
        let state = try String(contentsOf: demo.folder.appendingPathComponent("simulator/state.json"), encoding: .utf8)
        #expect(state.contains("\"refundPreferenceName\":\"DECLINE\"") && state.contains("\"consumptionPercentage\":12500")
                && state.contains("\"version\":2"), "Apple got version 2 of the information")
        expectFailure(try CLIRunner.run(["refunds", "send", number, "--consented", "--reason", "twice"] + demo.common), 64, "is sent, not open")
        #expect(try Self.audit(demo, "apple-consumption").contains("mei"))
    }

    @Test func notificationHistoryAppliesEachOnceAndATestNotificationIsDelivered() throws {
        let demo = try Demo()
        let since = RFC3339.format(Date().addingTimeInterval(-60 * 86_400))
        let first = try CLIRunner.run(["notifications", "fetch", "--since", since, "--json"] + demo.common)
        #expect(first.status == 0, "\(first.stderr)")
        let report = try Self.object(first.stdout)
        let seen = try #require(report["seen"] as? Int)
        #expect(seen > 20 && report["status"] as? String == "done", "\(report)")
        #expect((report["applied"] as? Int ?? -1) >= 0)
        let again = try Self.object(try CLIRunner.run(["notifications", "fetch", "--since", since, "--json"] + demo.common).stdout)
        #expect(again["seen"] as? Int == seen && again["applied"] as? Int == 0, "each notificationUUID applies once: \(again)")
        // No notification URL configured: Apple's own refusal, in one line.
        expectFailure(try CLIRunner.run(["notifications", "test"] + demo.common), 65, "Apple refused", "4040007")
        // With one (a loopback receiver), the TEST notification arrives and its status says so.
        let received = Received()
        let receiver = try HTTPServer { request in
            received.add(request.body)
            return .text(200, "ok")
        }
        try receiver.start()
        defer { receiver.stop() }
        var config = try Self.object(try String(contentsOfFile: demo.config, encoding: .utf8))
        var appStore = try #require(config["appStore"] as? [String: Any])
        var simulator = try #require(appStore["simulator"] as? [String: Any])
        simulator["notificationURL"] = "http://127.0.0.1:\(receiver.port)/notifications"
        appStore["simulator"] = simulator
        config["appStore"] = appStore
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: demo.config))
        let test = try CLIRunner.run(["notifications", "test", "--json"] + demo.common)
        #expect(test.status == 0, "\(test.stderr)")
        let status = try Self.object(test.stdout)
        #expect(status["lastResult"] as? String == "SUCCESS", "\(status)")
        let token = try #require(status["token"] as? String)
        #expect(try CLIRunner.run(["notifications", "test-status", token] + demo.common).stdout.contains("SUCCESS"))
        let body = try #require(received.bodies.first)
        let notification = try ServerNotification(compactJWS: try #require(try Self.object(String(decoding: body, as: UTF8.self))["signedPayload"] as? String))
        #expect(notification.notificationType == "TEST")
    }

    @Test func transactionHistoryAndSetTokenAtAppleAndInTheLedger() throws {
        let demo = try Demo()
        let (original, _) = try Self.subscription(demo, "cust-state-active")
        let history = try CLIRunner.run(["transaction", "history", original] + demo.common)
        #expect(history.status == 0 && history.stdout.contains("(ledger: cust-state-active)") && history.stdout.contains("4.99 USD"), "\(history.stdout)")
        let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        expectFailure(try CLIRunner.run(["transaction", "set-token", original, "--token", "not-a-uuid", "--reason", "x"] + demo.common), 64, "not a UUID")
        let set = try CLIRunner.run(["transaction", "set-token", original, "--token", token.uppercased(), "--reason", "order mix-up, ticket 7",
                                     "--operator", "mei"] + demo.common)
        #expect(set.status == 0 && set.stdout.contains("carries \(token)"), "\(set.stdout) \(set.stderr)")
        let show = try Self.object(try CLIRunner.run(["customer", "show", "cust-state-active", "--json"] + demo.common).stdout)
        let transactions = try #require(show["transactions"] as? [[String: Any]])
        #expect(transactions.contains { $0["appAccountToken"] as? String == token }, "\(transactions)")
        // Apple's later signed data carries it.
        let again = try CLIRunner.run(["transaction", "history", original, "--json"] + demo.common)
        let listed = try #require(try Self.object(again.stdout)["transactions"] as? [[String: Any]])
        #expect(listed.allSatisfy { $0["appAccountToken"] as? String == token }, "\(listed)")
        #expect(try Self.audit(demo, "apple-set-token").contains("mei"))
    }

    @Test func transactionAppInfoGivesTheAppDownloadFromAnyOfItsIds() throws {
        let demo = try Demo()
        let (original, _) = try Self.subscription(demo, "cust-state-active")
        let info = try Self.object(try CLIRunner.run(["transaction", "app-info", original, "--json"] + demo.common).stdout)
        let appTransactionId = try #require(info["appTransactionId"] as? String)
        #expect(appTransactionId.count == 18, "\(info)")
        let again = try CLIRunner.run(["transaction", "app-info", appTransactionId] + demo.common)
        #expect(again.status == 0 && again.stdout.contains("app transaction id  \(appTransactionId)"), "\(again.stdout) \(again.stderr)")
        expectFailure(try CLIRunner.run(["transaction", "app-info"] + demo.common), 64, "needs TRANSACTION_ID")
        // Transaction history from the app transaction id too (anyTransactionId).
        let history = try CLIRunner.run(["transaction", "history", appTransactionId, "--json"] + demo.common)
        #expect(history.status == 0 && history.stdout.contains(original), "\(history.stderr)")
    }

    /// A transaction of `customer` picked from `customer show --json`.
    static func transaction(_ demo: Demo, _ customer: String, where pick: ([String: Any]) -> Bool) throws -> String {
        let show = try Self.object(try CLIRunner.run(["customer", "show", customer, "--json"] + demo.common).stdout)
        let transactions = try #require(show["transactions"] as? [[String: Any]], "\(show)")
        return try #require(transactions.first(where: pick)?["transactionId"] as? String, "\(transactions)")
    }

    /// How many Finish Transaction requests the simulator got for `id` (nil: none).
    static func finishRequests(_ demo: Demo, _ id: String) throws -> Int? {
        let state = try Self.object(try String(contentsOf: demo.folder.appendingPathComponent("simulator/state.json"), encoding: .utf8))
        return ((state["finishedTransactions"] as? [String: Any])?[id] as? [String: Any])?["requests"] as? Int
    }

    @Test func transactionFinishTellsAppleOnceThenSaysWhenAndByWhom() throws {
        let demo = try Demo()
        // 佐藤さくら's gems, bought for an order of hers (paid).
        let id = try Self.transaction(demo, "佐藤さくら") { $0["productId"] as? String == "com.example.game.coins.1200" && $0["orderId"] is String }
        let before = try CLIRunner.run(["transaction", "show", id] + demo.common)
        #expect(before.status == 0 && before.stdout.contains("not finished at Apple"), "\(before.stdout) \(before.stderr)")
        expectFailure(try CLIRunner.run(["transaction", "finish", id] + demo.common), 64, "needs --reason")
        let dry = try CLIRunner.run(["transaction", "finish", id, "--dry-run"] + demo.common)
        #expect(dry.status == 0 && dry.stdout.contains("delivered for order ") && dry.stdout.contains("dry run: nothing asked of Apple"), "\(dry.stdout)")
        #expect(try Self.finishRequests(demo, id) == nil)
        let done = try CLIRunner.run(["transaction", "finish", id, "--reason", "gems delivered (ticket 88)", "--operator", "mei", "--json"] + demo.common)
        #expect(done.status == 0, "\(done.stderr)")
        let answer = try Self.object(done.stdout)
        #expect(answer["askedApple"] as? Bool == true && answer["finishedBy"] as? String == "mei", "\(answer)")
        let at = try #require(answer["finishedAtApple"] as? String)
        #expect(try Self.finishRequests(demo, id) == 1, "Apple (the simulator) was told once")
        // Again, by someone else: the ledger answers, Apple is not asked.
        let again = try CLIRunner.run(["transaction", "finish", id, "--reason", "again", "--operator", "li"] + demo.common)
        #expect(again.status == 0 && again.stdout == "\(id) already finished at \(at) by mei: Apple was not asked again\n", "\(again.stdout)")
        #expect(try Self.finishRequests(demo, id) == 1)
        let after = try CLIRunner.run(["transaction", "show", id] + demo.common)
        #expect(after.stdout.contains("finished at Apple \(at) by mei"), "\(after.stdout)")
        #expect(try Self.object(try CLIRunner.run(["transaction", "show", id, "--json"] + demo.common).stdout)["finishedAtApple"] as? String == at)
        #expect(try CLIRunner.run(["customer", "show", "佐藤さくら"] + demo.common).stdout.contains("finished at Apple \(at)"))
        #expect(try CLIRunner.run(["customer", "export", "佐藤さくら"] + demo.common).stdout.contains("| \(at) by mei |"))
        let audit = try Self.audit(demo, "apple-finish-transaction")
        #expect(audit.contains("mei") && audit.contains("gems delivered (ticket 88)") && !audit.contains("again"), "one entry: \(audit)")
        // Refunded, and unknown: refused, Apple not asked.
        let refunded = try Self.transaction(demo, "李娜") { $0["revocationDate"] is String || $0["cancellationDate"] is String }
        expectFailure(try CLIRunner.run(["transaction", "finish", refunded, "--reason", "x"] + demo.common), 65, "is not delivered: it was", "nothing was asked of Apple")
        #expect(try Self.finishRequests(demo, refunded) == nil)
        expectFailure(try CLIRunner.run(["transaction", "finish", "2000000199999999", "--reason", "x"] + demo.common), 65, "is not in the ledger")
        expectFailure(try CLIRunner.run(["transaction", "show", "2000000199999999"] + demo.common), 65, "is not in the ledger")
    }

    @Test func aWinBackOfferIsSignedOnceAndAuditedWithoutItsToken() throws {
        let demo = try Demo()
        let (original, state) = try Self.subscription(demo, "cust-state-active")
        let product = try #require(state["productId"] as? String)
        expectFailure(try CLIRunner.run(["subscription", "offer", "cust-state-active", "--product", product, "--offer", "WINBACK50"] + demo.common),
                      64, "needs --reason")
        let signed = try CLIRunner.run(["subscription", "offer", "cust-state-active", "--product", product, "--offer", "WINBACK50",
                                        "--reason", "come back (ticket 77)", "--json", "--operator", "mei"] + demo.common)
        #expect(signed.status == 0, "\(signed.stderr)")
        let answer = try Self.object(signed.stdout)
        let token = try #require(answer["signature"] as? String)
        #expect(token.split(separator: ".").count == 3 && answer["transactionId"] as? String == original, "\(answer)")
        let audit = try Self.audit(demo, "apple-offer-signature")
        #expect(audit.contains("WINBACK50") && audit.contains("tokenSHA256") && audit.contains("mei"), "\(audit)")
        #expect(!audit.contains(token), "the token itself is never kept")
    }
}

/// Bodies a loopback receiver got.
final class Received: @unchecked Sendable {
    // `list` is guarded by `lock`.
    private let lock = NSLock()
    private var list: [[UInt8]] = []
    func add(_ body: [UInt8]) { lock.lock(); list.append(body); lock.unlock() }
    var bodies: [[UInt8]] { lock.lock(); defer { lock.unlock() }; return list }
}
