import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// The actions at Apple, end to end: the real binary in tmux over a fresh demo whose Apple is
/// the built-in simulator.
extension EndToEndTests {
    /// The console over a fresh demo in tmux at 160×40; the closure drives it; then q must exit 0.
    /// `notificationURL`, when given, is where the demo's simulator posts its notifications.
    static func withConsole(_ name: String, notificationURL: String? = nil, _ drive: (Tmux, URL, SQLiteDatabase) throws -> Void) throws {
        try #require(tmuxIsInstalled(), "tmux is not installed (/usr/bin/tmux): run make deps")
        let (folder, db) = try demoDatabase(name, customers: 30)
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort
        if let notificationURL {
            let file = folder.appendingPathComponent("config.json")
            var config = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            var appStore = try #require(config["appStore"] as? [String: Any])
            var simulator = try #require(appStore["simulator"] as? [String: Any])
            simulator["notificationURL"] = notificationURL
            appStore["simulator"] = simulator
            config["appStore"] = appStore
            try JSONSerialization.data(withJSONObject: config).write(to: file)
        }
        let database = try SQLiteDatabase(path: db, create: false)
        let tmux = Tmux()
        let command = "env RECEIPTDESK_DB='\(db)' RECEIPTDESK_CONFIG='\(folder.appendingPathComponent("config.json").path)' USER=e2e-operator "
            + "'\(binary.path)'; echo __EXIT=$?; sleep 60"
        try tmux.run(["new-session", "-d", "-s", "e2e", "-x", "160", "-y", "40", command])
        guard tmux.wait(for: "Customers") != nil else {
            Issue.record("the console did not open; the pane shows:\n\(tmux.capture())")
            return
        }
        try drive(tmux, folder, database)
        try tmux.keys("Escape")
        try tmux.keys("q")
        #expect(tmux.wait(for: "__EXIT=0") != nil, "the console did not exit cleanly:\n\(tmux.capture())")
        #expect(try AuditLog.verify(database).isIntact)
    }

    /// Filters the console to `text` (one customer) and waits for the match.
    static func filter(_ tmux: Tmux, _ text: String) throws {
        try tmux.keys("-l", "\\")
        try tmux.keys("/")
        try tmux.keys("-l", text)
        try tmux.keys("Enter")
        #expect(tmux.wait(for: "· 1 match") != nil || tmux.wait(for: "1 customer") != nil, "the search for \(text) was not applied:\n\(tmux.capture())")
    }

    /// A demo customer with an auto-renewable production subscription (active when `active`).
    static func subscriber(_ database: SQLiteDatabase, active: Bool) throws -> String {
        try #require(try database.queryFirst("""
            SELECT customer_id FROM transactions WHERE customer_id LIKE 'cust-%' AND product_type = 'auto-renewable'
            AND environment = 'Production' AND revocation_date IS NULL \(active ? "AND expires_date > ?" : "")
            ORDER BY customer_id LIMIT 1
            """, active ? [.date(Date())] : [])?.string("customer_id"), "the demo has no such subscriber")
    }

    /// Against the demo's simulator as it is today: a asks Apple's status (recorded, shown in the
    /// customer view), H reads Apple's transaction history in the pager with owners, O looks up
    /// an Apple order from the invoice email and imports it for its customer.
    @Test func appleStatusHistoryAndOrderLookUpAgainstTheDemo() throws {
        try Self.withConsole("console-apple-read") { tmux, folder, database in
            let customer = try Self.subscriber(database, active: false)
            try Self.filter(tmux, customer)
            try tmux.keys("a")
            #expect(tmux.wait(for: "Apple's status of \(customer)", seconds: 120) != nil, "no status from Apple:\n\(tmux.capture())")
            try tmux.keys("Enter")
            #expect(tmux.wait(for: "Subscriptions (Apple)") != nil, "the customer view has no Apple section:\n\(tmux.capture())")
            try tmux.keys("3")
            #expect(tmux.wait(for: "┌ Transactions") != nil)
            try tmux.keys("H")
            #expect(tmux.wait(for: "Apple's transaction history around", seconds: 120) != nil, "no history:\n\(tmux.capture())")
            #expect(tmux.wait(for: "(ledger: \(customer))") != nil, "the history does not mark the owner:\n\(tmux.capture())")
            try tmux.keys("Escape")
            // An order id from the customer's invoice email (the simulator's state names its account).
            let data = try Data(contentsOf: folder.appendingPathComponent("simulator/state.json"))
            let state = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            let transactions = (state?["transactions"] as? [String: [String: Any]]) ?? [:]
            let order = try #require(transactions.values.compactMap { t -> (String, String)? in
                guard let order = t["orderId"] as? String, let account = t["account"] as? String, t["environment"] as? String == "Production",
                      account.hasPrefix("cust-") else { return nil }
                return (order, account)
            }.sorted { $0.0 < $1.0 }.first, "no Apple order in the simulator's state")
            try tmux.keys("1")
            try Self.filter(tmux, order.1)
            try tmux.keys("O")
            #expect(tmux.wait(for: "Look up an Apple order for \(order.1)") != nil, "no look-up form:\n\(tmux.capture())")
            try tmux.keys("-l", order.0)
            try tmux.keys("Enter")
            #expect(tmux.wait(for: "Look up order: preview") != nil, "no preview:\n\(tmux.capture())")
            try tmux.keys("y")
            #expect(tmux.wait(for: "Apple order \(order.0):", seconds: 120) != nil, "the order was not looked up:\n\(tmux.capture())")
        }
        // (The audit is checked in withConsole; the status is recorded as "apple-status".)
    }

    // The acting endpoints against the demo's simulator, one test each. NOTE: they need the
    // simulator's acting endpoints (extend, mass extend and its status, consumption, notification
    // history, test notification and its status, set token) and, for the refund request, the
    // demo's pending CONSUMPTION_REQUEST (issue #14, being added to StoreSimulator in parallel);
    // until those land each fails at its request to Apple, saying what Apple answered.

    /// The outcome the ledger recorded for the newest extension.
    static func lastExtension(_ database: SQLiteDatabase) throws -> String? {
        try database.queryFirst("SELECT outcome FROM renewal_extensions ORDER BY extension_id DESC LIMIT 1", [])?.string("outcome")
    }

    static func audited(_ database: SQLiteDatabase, _ action: String) throws -> Bool {
        try database.queryFirst("SELECT 1 AS found FROM audit_log WHERE action = ? LIMIT 1", [.text(action)]) != nil
    }

    /// E: extend the customer's first subscription by 7 days; the view shows the new state.
    @Test func extendAgainstTheDemo() throws {
        try Self.withConsole("console-apple-extend") { tmux, _, database in
            let customer = try Self.subscriber(database, active: true)
            try Self.filter(tmux, customer)
            try tmux.keys("E")
            try #require(tmux.wait(for: "Extend a subscription of \(customer) at Apple") != nil, "no extend form:\n\(tmux.capture())")
            try tmux.keys("Tab")
            try tmux.keys("-l", "7")
            try tmux.keys("Tab")
            try tmux.keys("Tab")
            try tmux.keys("-l", "e2e goodwill")
            try tmux.keys("Enter")
            try #require(tmux.wait(for: "Extend at Apple: preview") != nil, "no preview:\n\(tmux.capture())")
            try tmux.keys("y")
            #expect(tmux.wait(for: "✓ extended \(Self.original(database, customer)) by 7 days", seconds: 120) != nil, "not extended:\n\(tmux.capture())")
            #expect(try Self.lastExtension(database) == "extended")
            #expect(try Self.audited(database, "apple-extend"))
        }
    }

    /// The original transaction id of the customer's first subscription.
    static func original(_ database: SQLiteDatabase, _ customer: String) -> String {
        let row = try? database.queryFirst("""
            SELECT original_transaction_id FROM subscription_states WHERE customer_id = ? ORDER BY subscription_group, product_id, original_transaction_id LIMIT 1
            """, [.text(customer)])  // no state yet: the transactions say
        if let id = row?.string("original_transaction_id") { return id }
        return (try? database.queryFirst("""
            SELECT COALESCE(original_transaction_id, transaction_id) AS id FROM transactions WHERE customer_id = ? AND product_type = 'auto-renewable'
            ORDER BY id LIMIT 1
            """, [.text(customer)])?.string("id")) ?? "?"  // unreadable: the wait fails saying what it looked for
    }

    /// T: set the app account token of the customer's purchase (the Transactions tab's first row).
    @Test func setTokenAgainstTheDemo() throws {
        try Self.withConsole("console-apple-token") { tmux, _, database in
            let customer = try Self.subscriber(database, active: true)
            try Self.filter(tmux, customer)
            try tmux.keys("3")
            try tmux.keys("T")
            try #require(tmux.wait(for: "Set the app account token of") != nil, "no token form:\n\(tmux.capture())")
            let token = UUID().uuidString.lowercased()
            try tmux.keys("-l", token)
            try tmux.keys("Tab")
            try tmux.keys("-l", "e2e order mix-up")
            try tmux.keys("Enter")
            try #require(tmux.wait(for: "Set app account token: preview") != nil, "no preview:\n\(tmux.capture())")
            try tmux.keys("y")
            #expect(tmux.wait(for: "set at Apple and in the ledger", seconds: 120) != nil, "token not set:\n\(tmux.capture())")
            #expect(try database.queryFirst("SELECT 1 AS found FROM transactions WHERE app_account_token = ?", [.text(token)]) != nil)
        }
    }

    /// $: the demo's pending refund request: consent, reason, send.
    @Test func refundRequestAgainstTheDemo() throws {
        try Self.withConsole("console-apple-refund") { tmux, _, database in
            try tmux.keys("-l", "$")
            try #require(tmux.wait(for: "Refund requests") != nil)
            try #require(tmux.wait(for: "deadline") != nil, "no pending refund request in the demo:\n\(tmux.capture())")
            try tmux.keys("Enter")
            try #require(tmux.wait(for: "consumption information for Apple") != nil, "no consumption form:\n\(tmux.capture())")
            try tmux.keys("Right")
            for _ in 0..<11 { try tmux.keys("Tab") }
            try tmux.keys("-l", "e2e: customer agreed")
            try tmux.keys("Enter")
            try #require(tmux.wait(for: "Send consumption information: review") != nil, "no review:\n\(tmux.capture())")
            try tmux.keys("y")
            #expect(tmux.wait(for: "sent to Apple: refund request", seconds: 120) != nil, "not sent:\n\(tmux.capture())")
            #expect(try Self.audited(database, "apple-consumption"))
        }
    }

    /// M: a mass extension of the first subscription product, polled until complete.
    @Test func massExtensionAgainstTheDemo() throws {
        try Self.withConsole("console-apple-mass") { tmux, _, database in
            try tmux.keys("M")
            try #require(tmux.wait(for: "Extend every subscriber of a product at Apple") != nil, "no form:\n\(tmux.capture())")
            try tmux.keys("Tab")
            try tmux.keys("-l", "3")
            for _ in 0..<4 { try tmux.keys("Tab") }
            try tmux.keys("-l", "e2e outage")
            try tmux.keys("Enter")
            try #require(tmux.wait(for: "Mass extension: preview") != nil, "no preview:\n\(tmux.capture())")
            try tmux.keys("y")
            // The finished action's line (✓ … by N days: complete), not a poll's progress.
            #expect(tmux.wait(for: "✓ mass extension of ", seconds: 180) != nil && tmux.capture().contains(": complete: "),
                    "the mass extension did not complete:\n\(tmux.capture())")
            #expect(try database.queryFirst("SELECT status FROM mass_extensions LIMIT 1", [])?.string("status") == "complete")
        }
    }

    /// N: the notification history of the last 30 days ("N read, M new"), then a test
    /// notification and its delivery.
    @Test func notificationsAgainstTheDemo() throws {
        // The merchant's notification endpoint: a receiver on loopback.
        let received = ReceivedBodies()
        let receiver = try HTTPServer { request in
            received.add(request.body)
            return .text(200, "ok")
        }
        try receiver.start()
        defer { receiver.stop() }
        try Self.withConsole("console-apple-notifications", notificationURL: "http://127.0.0.1:\(receiver.port)/notifications") { tmux, _, database in
            try tmux.keys("N")
            try #require(tmux.wait(for: "Apple's notifications") != nil, "no form:\n\(tmux.capture())")
            try tmux.keys("Tab")
            try tmux.keys("-l", String(RFC3339.format(Date().addingTimeInterval(-30 * 86_400)).prefix(10)))
            try tmux.keys("Tab")
            try tmux.keys("Tab")
            try tmux.keys("Enter")
            try #require(tmux.wait(for: "Notification history: preview") != nil, "no preview:\n\(tmux.capture())")
            try tmux.keys("y")
            // The finished fetch's line (✓), not a page's progress ("page 1, 3 read, 3 new"), which
            // shows while the fetch still runs and the console still refuses a new action.
            #expect(tmux.wait(for: "✓ notification history ", seconds: 120) != nil && tmux.capture().contains(" read, "), "no history:\n\(tmux.capture())")
            #expect(try Self.audited(database, "apple-notification-history"))
            try tmux.keys("N")
            try #require(tmux.wait(for: "Apple's notifications") != nil)
            try tmux.keys("Right")
            for _ in 0..<3 { try tmux.keys("Tab") }
            try tmux.keys("Enter")
            try #require(tmux.wait(for: "Test notification: preview") != nil, "no preview:\n\(tmux.capture())")
            try tmux.keys("y")
            #expect(tmux.wait(for: "✓ test notification ", seconds: 120) != nil, "no delivered test notification:\n\(tmux.capture())")
            #expect(received.count == 1, "the TEST notification reached the merchant's endpoint")
        }
    }
}

/// Bodies a loopback receiver got.
final class ReceivedBodies: @unchecked Sendable {
    // `bodies` is guarded by `lock`.
    private let lock = NSLock()
    private var bodies: [[UInt8]] = []
    func add(_ body: [UInt8]) { lock.lock(); bodies.append(body); lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return bodies.count }
}
