import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// "Every read-then-write holds against a second writer doing the same at the same moment":
/// two `receiptdesk serve` processes on one database (a SQLite file; a PostgreSQL schema) are
/// sent, round after round, at the same moment: the same purchase (same transaction, same
/// merchant order); then the same Apple notification (same notificationUUID) beside another same
/// purchase; then a REFUND that one of them kept unmatched before its purchase arrived, sent
/// again. Each purchase is credited once and bound to its order, each notification applied once
/// (one of the two answers says applied, the other "already applied"), nothing is answered 5xx
/// but a 503 that a retry then gets through, and the audit chain verifies.
@Suite(.serialized) struct ServeRaceTests {
    static let rounds = 32
    static let postgresURL = ProcessInfo.processInfo.environment["RECEIPTDESK_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    @Test func twoServeProcessesOnOneSQLiteFile() async throws {
        let report = await Self.onThread { Result { try Race(postgresURL: nil).run(rounds: Self.rounds) } }
        try Self.expectClean(try report.get())
    }

    @Test(.enabled(if: postgresURL != nil, "RECEIPTDESK_TEST_POSTGRES_URL is unset: the PostgreSQL race is skipped (make test sets it)"))
    func twoServeProcessesOnOnePostgreSQLDatabase() async throws {
        let url = try #require(Self.postgresURL)
        let report = await Self.onThread { Result { try Race(postgresURL: url).run(rounds: Self.rounds) } }
        try Self.expectClean(try report.get())
    }

    static func expectClean(_ report: Race.Report, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(report.problems.isEmpty, "\(report.problems.count) problems, the first: \(report.problems.prefix(8).joined(separator: "\n"))",
                sourceLocation: sourceLocation)
        #expect(report.requests == rounds * 9, "\(report.requests) requests, \(report.retried) of them sent again after a 503", sourceLocation: sourceLocation)
        #expect(report.auditVerify.hasPrefix("audit log intact:"), "\(report.auditVerify)", sourceLocation: sourceLocation)
    }

    /// Runs `body` on a thread of its own (it blocks: processes, sockets, semaphores) and
    /// returns its result without holding a thread of the cooperative pool meanwhile.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// One race: a database, two serve processes on it, the rounds, then the ledger checked.
    final class Race {
        /// What the race found: `problems` is empty when every check held.
        struct Report: Sendable {
            var problems: [String] = []
            var requests = 0
            var retried = 0
            var auditVerify = ""
        }

        let workspace: LedgerWorkspace
        private let schema: String?
        private let postgresURL: String?
        private var report = Report()

        init(postgresURL: String?) throws {
            workspace = try LedgerWorkspace()
            self.postgresURL = postgresURL
            if let postgresURL {
                let name = "rdrace_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
                try PostgresDatabase(url: postgresURL).execute("CREATE SCHEMA \(name)", [])
                schema = name
                workspace.databaseLocation = postgresURL + (postgresURL.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(name)"
            } else {
                schema = nil
            }
        }

        deinit {
            if let schema, let postgresURL {
                _ = try? PostgresDatabase(url: postgresURL).execute("DROP SCHEMA \(schema) CASCADE", [])  // best effort: the server is thrown away
            }
        }

        private func problem(_ text: String) { report.problems.append(text) }

        func run(rounds: Int) throws -> Report {
            let configuration = try StoreConfiguration(json: Array(LedgerWorkspace.configJSON.utf8), source: "test config")
            let ledger = PurchaseLedger(database: try PurchaseDatabase.open(workspace.databaseLocation), configuration: configuration,
                                        verifier: ReceiptVerifier(trust: workspace.authority.trustStore(), configuration: configuration))
            // The merchant's orders, placed before the purchases that pay them.
            for round in 0..<rounds {
                try ledger.createOrder("sub-order-\(round)", customer: "cust-\(round)", product: "com.example.pro.monthly", operatorName: "shop")
                try ledger.createOrder("coin-order-\(round)", customer: "cust-\(round)", product: "com.example.coins.100", operatorName: "shop")
            }
            let artefacts = try Artefacts(authority: workspace.authority, rounds: rounds)
            let tokens = workspace.directory.appendingPathComponent("tokens").path
            let added = try CLIRunner.run(["serve", "token", "add", "app", "--tokens", tokens])
            guard added.status == 0 else { throw ServeProcessTests.CLIRunnerFailure("serve token add: \(added.stderr)") }
            let token = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

            let first = try ServeProcessTests.Served.start(workspace, tokens)
            let second: (CLIRunner.Running, Int)
            do { second = try ServeProcessTests.Served.start(workspace, tokens) } catch {
                first.0.kill(SIGTERM)
                _ = first.0.wait()
                throw error
            }
            let servers = [first, second]
            defer {
                for (process, _) in servers where process.isRunning { process.kill(SIGKILL) }
            }
            let ports = servers.map(\.1)
            for port in ports { try Self.waitUntilReady(port) }

            for round in 0..<rounds {
                // The subscription's purchase, to both at once; beside it, to the first alone, Apple's
                // REFUND of a pack of coins not bought yet (kept unmatched).
                let subscription = ports.map { purchase($0, token, round, "sub-order-\(round)", artefacts.subscriptions[round]) }
                let early = RequestsAtOnce.send(subscription + [notify(ports[0], artefacts.refunds[round])])
                checkPurchases(Array(early.prefix(2)), round: round, order: "sub-order-\(round)", transaction: artefacts.subscriptionIds[round])
                checkUnmatched(early[2], round: round)
                // The renewal told by Apple and the pack of coins bought, each to both at once.
                let coins = ports.map { purchase($0, token, round, "coin-order-\(round)", artefacts.coins[round]) }
                let answers = RequestsAtOnce.send(ports.map { notify($0, artefacts.renewals[round]) } + coins)
                checkNotifications(Array(answers.prefix(2)), round: round, uuid: artefacts.renewals[round].record.notificationUUID)
                checkPurchases(Array(answers.suffix(2)), round: round, order: "coin-order-\(round)", transaction: artefacts.coinIds[round])
                // The REFUND again, now about a transaction the ledger holds, to both at once.
                let refunds = RequestsAtOnce.send(ports.map { notify($0, artefacts.refunds[round]) })
                checkNotifications(refunds, round: round, uuid: artefacts.refunds[round].record.notificationUUID)
            }

            for (index, (process, _)) in servers.enumerated() {
                process.kill(SIGTERM)
                let ended = process.wait()
                if ended.status != 0 || ended.terminatedBySignal { problem("serve \(index + 1) ended with \(ended.status): \(ended.stderr)") }
            }
            try checkLedger(ledger, artefacts, rounds: rounds)
            let verified = try workspace.run(["audit", "--verify"])
            report.auditVerify = verified.stdout + verified.stderr
            if verified.status != 0 { problem("audit --verify: exit \(verified.status): \(verified.stdout) \(verified.stderr)") }
            return report
        }

        private func purchase(_ port: Int, _ token: String, _ round: Int, _ order: String, _ jws: String) -> LoopbackHTTP.Request {
            let body = "{\"customer\":\"cust-\(round)\",\"orderId\":\"\(order)\",\"signedTransactions\":[\"\(jws)\"]}"
            return LoopbackHTTP.Request(port: port, method: "POST", path: "/v1/purchases",
                                        headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                        body: Array(body.utf8))
        }

        private func notify(_ port: Int, _ notification: MintedNotification) -> LoopbackHTTP.Request {
            LoopbackHTTP.Request(port: port, method: "POST", path: "/v1/apple/notifications",
                                 headers: [("Content-Type", "application/json")], body: Array(notification.body.utf8))
        }

        /// A notification about a transaction nobody owns yet: answered 200, kept unmatched.
        private func checkUnmatched(_ outcome: RequestsAtOnce.Outcome, round: Int) {
            let bodies = answered([outcome], "round \(round) early REFUND")
            if let body = bodies.first, body["applied"] as? Bool != true || (body["outcome"] as? String)?.hasPrefix("unmatched") != true {
                problem("round \(round) early REFUND: wanted it kept unmatched, got \(body)")
            }
        }

        /// Each answered 200 in the end (a 503 only before a retry that got through).
        private func answered(_ outcomes: [RequestsAtOnce.Outcome], _ what: String) -> [[String: Any]] {
            var bodies: [[String: Any]] = []
            for (index, outcome) in outcomes.enumerated() {
                report.requests += 1
                if outcome.statuses.count > 1 { report.retried += 1 }
                if let failure = outcome.failure { problem("\(what), serve \(index + 1): no answer: \(failure)") }
                if outcome.statuses.dropLast().contains(where: { $0 != 503 }) {
                    problem("\(what), serve \(index + 1): retried after \(outcome.statuses), which is not the retryable 503")
                }
                guard let response = outcome.response else { continue }
                guard response.status == 200, let json = response.json else {
                    problem("\(what), serve \(index + 1): \(outcome.statuses): \(response.text)")
                    continue
                }
                bodies.append(json)
            }
            return bodies
        }

        /// One of the two recorded the transaction, bound to the order; the other saw a duplicate.
        private func checkPurchases(_ outcomes: [RequestsAtOnce.Outcome], round: Int, order: String, transaction: String) {
            let what = "round \(round) purchase for \(order)"
            let reports = answered(outcomes, what).map { body -> [String: Any] in
                let results = body["results"] as? [[String: Any]]
                return (results?.first?["transactions"] as? [[String: Any]])?.first ?? ["missing": "\(body)"]
            }
            guard reports.count == 2 else { return }
            let recorded = reports.filter { $0["outcome"] as? String == "recorded" }
            let duplicates = reports.filter { $0["outcome"] as? String == "duplicate" }
            if recorded.count != 1 || duplicates.count != 1 { problem("\(what): wanted one recorded and one duplicate, got \(reports)") }
            if let winner = recorded.first,
               winner["transactionId"] as? String != transaction || winner["binding"] as? String != "explicit" || winner["orderId"] as? String != order {
                problem("\(what): recorded as \(winner), wanted \(transaction) bound explicitly to \(order)")
            }
        }

        /// One of the two applied the notification; the other said it was already applied.
        private func checkNotifications(_ outcomes: [RequestsAtOnce.Outcome], round: Int, uuid: String) {
            let what = "round \(round) notification \(uuid)"
            let bodies = answered(outcomes, what)
            guard bodies.count == 2 else { return }
            let applied = bodies.filter { $0["applied"] as? Bool == true }
            if applied.count != 1 || bodies.contains(where: { $0["notificationUUID"] as? String != uuid }) {
                problem("\(what): wanted exactly one applied, got \(bodies)")
            }
            if let winner = applied.first, winner["customerId"] as? String != "cust-\(round)" {
                problem("\(what): applied to \(winner["customerId"] ?? "nobody"), wanted cust-\(round)")
            }
        }

        /// Afterwards, in the database: each transaction once, each order paid once, each
        /// notification audited once, each purchase audited once and its repeat traced once,
        /// each customer credited one pack of coins.
        private func checkLedger(_ ledger: PurchaseLedger, _ artefacts: Artefacts, rounds: Int) throws {
            let database = ledger.database
            func count(_ sql: String) throws -> Int64 { try database.queryFirst(sql, [])?.int("n") ?? -1 }
            let expected: [(String, Int64)] = [
                ("SELECT count(*) AS n FROM transactions", Int64(3 * rounds)),
                ("SELECT count(DISTINCT transaction_id) AS n FROM orders", Int64(2 * rounds)),
                ("SELECT count(*) AS n FROM orders WHERE status = 'paid'", Int64(rounds)),  // the subscriptions'
                ("SELECT count(*) AS n FROM orders WHERE status = 'refunded'", Int64(rounds)),  // the coins'
                ("SELECT count(*) AS n FROM orders WHERE transaction_id IS NULL", 0),
                ("SELECT count(*) AS n FROM notifications WHERE outcome <> 'unmatched'", Int64(2 * rounds)),
                ("SELECT count(*) AS n FROM transactions WHERE revocation_date IS NOT NULL", Int64(rounds)),
                ("SELECT count(*) AS n FROM audit_log WHERE action = 'import'", Int64(2 * rounds)),
                // Each renewal once; each refund twice: kept unmatched, then applied.
                ("SELECT count(*) AS n FROM audit_log WHERE action = 'notify'", Int64(3 * rounds)),
                ("SELECT count(*) AS n FROM arrivals", Int64(2 * rounds)),
                ("SELECT count(*) AS n FROM conflicts", 0),
            ]
            for (sql, wanted) in expected {
                let found = try count(sql)
                if found != wanted { problem("\(sql): \(found), wanted \(wanted)") }
            }
            let notified = try database.query("SELECT details FROM audit_log WHERE action = 'notify'", []).compactMap { row -> String? in
                let details = try? JSONSerialization.jsonObject(with: Data((row.string("details") ?? "").utf8)) as? [String: Any]
                return details?["notificationUUID"] as? String
            }
            let minted = (artefacts.renewals + artefacts.refunds + artefacts.refunds).map(\.record.notificationUUID)
            if notified.sorted() != minted.sorted() { problem("audited notificationUUIDs differ from those sent: \(Set(notified).symmetricDifference(minted).sorted())") }
            for round in 0..<rounds {
                // The pack was credited once and refunded once.
                let coins = try ledger.entitlements("cust-\(round)", now: Date()).first { $0.name == "coins" }
                if coins?.balance != 0 || coins?.isActive != false {
                    problem("cust-\(round) holds \(String(describing: coins)), wanted a refunded pack of coins")
                }
            }
        }

        /// Polls /readyz (at most 200 times, 50 ms apart) until the server says ready.
        static func waitUntilReady(_ port: Int) throws {
            var last = "no answer"
            for _ in 0..<200 {
                do {
                    let answer = try LoopbackHTTP.send(LoopbackHTTP.Request(port: port, method: "GET", path: "/readyz"))
                    if answer.status == 200 { return }
                    last = "\(answer.status) \(answer.text)"
                } catch {
                    last = "\(error)"
                }
                usleep(50_000)
            }
            throw ServeProcessTests.CLIRunnerFailure("serve on port \(port) never became ready: \(last)")
        }
    }

    /// What the simulator minted for the race, as Apple and StoreKit would hand it out: per round
    /// a subscription (signed transaction), its renewal's DID_RENEW, a consumable purchase and
    /// its REFUND.
    struct Artefacts {
        let subscriptions: [String]
        let subscriptionIds: [String]
        let renewals: [MintedNotification]
        let coins: [String]
        let coinIds: [String]
        let refunds: [MintedNotification]

        init(authority: TestCertificateAuthority, rounds: Int) throws {
            let state = SimulatorState(authority: authority, bundleId: "com.example.app")
            func day(_ n: Double) -> Date { (RFC3339.parse("2025-01-01T00:00:00Z") ?? Date()).addingTimeInterval(n * 86_400) }
            var subscriptions: [String] = [], subscriptionIds: [String] = [], renewals: [MintedNotification] = []
            var coins: [String] = [], coinIds: [String] = [], refunds: [MintedNotification] = []
            for round in 0..<rounds {
                let bought = try state.mintSignedTransaction(environment: .production, purchase: SimulatedPurchase(
                    productId: "com.example.pro.monthly", type: .autoRenewable, purchaseDate: day(0), expiresDate: day(30)),
                    account: "account-\(round)", signedDate: day(0))
                subscriptions.append(bought.jws)
                subscriptionIds.append(bought.transaction.transactionId)
                renewals.append(try state.renewAndNotify(originalTransactionId: bought.transaction.originalTransactionId,
                                                         purchaseDate: day(30), expiresDate: day(60)))
                let pack = try state.mintSignedTransaction(environment: .production, purchase: SimulatedPurchase(
                    productId: "com.example.coins.100", type: .consumable, purchaseDate: day(1)), account: "account-\(round)", signedDate: day(1))
                coins.append(pack.jws)
                coinIds.append(pack.transaction.transactionId)
                refunds.append(try state.refundAndNotify(transactionId: pack.transaction.transactionId, date: day(2)))
            }
            (self.subscriptions, self.subscriptionIds, self.renewals) = (subscriptions, subscriptionIds, renewals)
            (self.coins, self.coinIds, self.refunds) = (coins, coinIds, refunds)
        }
    }
}
