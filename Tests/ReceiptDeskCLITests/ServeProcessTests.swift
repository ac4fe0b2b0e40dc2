import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ReceiptCore
import StoreSimulator
import Testing

/// `receiptdesk serve` as a process: curl and the product's own HTTP client talk to it over
/// loopback; SIGTERM stops it gracefully; SIGKILL under load loses no answered request.
@Suite(.serialized) struct ServeProcessTests {
    /// A served workspace: the database, a client token, the running process and its port.
    final class Served: @unchecked Sendable {  // its process and port change only between the clients' runs
        let workspace: LedgerWorkspace
        let token: String
        let tokens: String
        var process: CLIRunner.Running
        var port: Int

        /// `more`: serve's further options (`--trust-proxy 127.0.0.1`).
        init(config: String = LedgerWorkspace.configJSON, more: [String] = []) throws {
            workspace = try LedgerWorkspace(config: config)
            try workspace.createDatabase()
            tokens = workspace.directory.appendingPathComponent("tokens").path
            let added = try CLIRunner.run(["serve", "token", "add", "app", "--tokens", tokens])
            try #require(added.status == 0, "\(added.stderr)")
            token = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            (process, port) = try Self.start(workspace, tokens, more)
        }

        static func start(_ workspace: LedgerWorkspace, _ tokens: String, _ more: [String] = []) throws -> (CLIRunner.Running, Int) {
            let process = try workspace.start(["serve", "--listen", "127.0.0.1:0", "--tokens", tokens] + more)
            // Waits for the line naming the port (bounded: a server that never starts fails the test).
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                let printed = process.stdoutSoFar
                if let range = printed.range(of: "listening on http://127.0.0.1:"),
                   let port = Int(printed[range.upperBound...].prefix { $0.isNumber }) {
                    return (process, port)
                }
                guard process.isRunning else { break }
                usleep(20_000)
            }
            let output = process.wait()
            throw CLIRunnerFailure("serve did not start: \(output.stdout) \(output.stderr)")
        }

        func jws(_ id: String) throws -> String {
            let bought = LedgerWorkspace.date("2025-05-01T00:00:00Z")
            let payload = TransactionPayload(transactionId: id, bundleId: "com.example.app", productId: "com.example.coins.100",
                                             type: "Consumable", purchaseDate: bought, signedDate: bought, environment: "Production")
            return try JWSBuilder(authority: workspace.authority).signedTransaction(payload)
        }

        /// POST /v1/purchases through URLSession; the status, or nil when no answer came.
        func purchase(customer: String, jws: String) -> Int? {
            guard let url = URL(string: "http://127.0.0.1:\(port)/v1/purchases") else { return nil }
            var request = URLRequest(url: url, timeoutInterval: 30)
            request.httpMethod = "POST"
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            request.httpBody = Data("{\"customer\":\"\(customer)\",\"signedTransactions\":[\"\(jws)\"]}".utf8)
            let done = DispatchSemaphore(value: 0)
            let status = StatusBox()
            URLSession.shared.dataTask(with: request) { _, response, _ in
                status.value = (response as? HTTPURLResponse)?.statusCode
                done.signal()
            }.resume()
            done.wait()
            return status.value
        }

        /// Which of `ids` the ledger holds (read with the sqlite3 shell, as an operator would).
        func recorded(_ ids: [String]) throws -> Set<String> {
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            shell.arguments = [workspace.databasePath, "SELECT transaction_id FROM transactions"]
            let out = Pipe()
            shell.standardOutput = out
            try shell.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            shell.waitUntilExit()
            let present = Set(text.split(separator: "\n").map(String.init))
            return Set(ids.filter { present.contains($0) })
        }
    }

    final class StatusBox: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Int?
        var value: Int? {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    struct CLIRunnerFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test func curlPostsAPurchaseAndSIGTERMStopsGracefully() throws {
        let served = try Served()
        let body = "{\"customer\":\"ada\",\"signedTransactions\":[\"\(try served.jws("2000000000000801"))\"]}"
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Authorization: Bearer \(served.token)",
                          "--data-binary", body, "http://127.0.0.1:\(served.port)/v1/purchases"]
        let out = Pipe()
        curl.standardOutput = out
        try curl.run()
        curl.waitUntilExit()
        #expect(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "200")
        served.process.kill(SIGTERM)
        let ended = served.process.wait()
        #expect(ended.status == 0 && !ended.terminatedBySignal, "\(ended.stderr)")
        #expect(ended.stderr.contains("stopped; every answered request is committed"), "\(ended.stderr)")
        let shown = try served.workspace.run(["customer", "show", "ada"])
        #expect(shown.stdout.contains("2000000000000801"), "\(shown.stdout)")
    }

    @Test func sigkillUnderLoadLosesNoAnsweredRequest() throws {
        let served = try Served()
        let clients = 8, each = 30
        let ids = (0..<clients * each).map { String(2_000_000_000_010_000 + $0) }
        let bodies = try ids.map { try served.jws($0) }
        let answered = Answered()
        let group = DispatchGroup()
        for client in 0..<clients {
            DispatchQueue.global().async(group: group) {
                for index in stride(from: client, to: ids.count, by: clients) {
                    guard served.purchase(customer: "c\(client)", jws: bodies[index]) == 200 else { return }  // killed: stop
                    answered.add(ids[index])
                }
            }
        }
        // Killed once at least 40 were answered (a count, not a time: the same on a loaded machine).
        let deadline = Date().addingTimeInterval(120)
        while answered.count < 40 && Date() < deadline { usleep(5_000) }
        served.process.kill(SIGKILL)
        group.wait()
        _ = served.process.wait()
        let confirmed = answered.all
        #expect(confirmed.count >= 40)
        let kept = try served.recorded(ids)
        #expect(Set(confirmed).isSubset(of: kept), "answered 200 but not in the ledger: \(Set(confirmed).subtracting(kept).sorted())")
        // The clients send everything again to a new process: each transaction counts once.
        (served.process, served.port) = try Served.start(served.workspace, served.tokens)
        defer { served.process.kill(SIGTERM); _ = served.process.wait() }
        for index in ids.indices { #expect(served.purchase(customer: "c\(index % clients)", jws: bodies[index]) == 200) }
        #expect(try served.recorded(ids) == Set(ids))
        let audit = try served.workspace.run(["audit", "--verify", "--skip-entitlements"])
        #expect(audit.status == 0, "\(audit.stdout) \(audit.stderr)")
    }

    @Test func theSimulatorPostsWhatItMintsToServeAsAppleWould() throws {
        let config = """
        {
          "bundleIds": ["com.example.app"],
          "products": { "com.example.pro.monthly": { "entitlement": "pro", "type": "auto-renewable" } },
          "appStore": { "simulator": { "stateDirectory": "simulator" } }
        }
        """
        let served = try Served(config: config)
        let minted = try CLIRunner.run(["simulator", "mint", "unified", "--product", "com.example.pro.monthly", "--config", served.workspace.configPath])
        try #require(minted.status == 0, "\(minted.stderr)")
        let receipt = served.workspace.directory.appendingPathComponent("receipt.b64")
        try Data(minted.stdout.utf8).write(to: receipt)
        let imported = try served.workspace.run(["import", receipt.path, "--customer", "eva", "--json"])
        let object: [[String: Any]]? = try imported.importedFiles()
        let transaction = try #require(((object?.first?["transactions"] as? [[String: Any]])?.first?["transactionId"]) as? String, "\(imported.stdout)")
        // serve started before the simulator made its authority: restarted, it trusts it (as a
        // merchant restarts serve after changing its trust anchors).
        served.process.kill(SIGTERM)
        _ = served.process.wait()
        (served.process, served.port) = try Served.start(served.workspace, served.tokens)
        // Now the config names serve as the simulator's notification URL (serve read its config at start).
        let url = "http://127.0.0.1:\(served.port)/v1/apple/notifications"
        try Data(config.replacingOccurrences(of: "\"stateDirectory\": \"simulator\"", with: "\"stateDirectory\": \"simulator\", \"notificationURL\": \"\(url)\"").utf8)
            .write(to: URL(fileURLWithPath: served.workspace.configPath))
        let told = try CLIRunner.run(["simulator", "mint", "notification", "--transaction", transaction, "--type", "DID_CHANGE_RENEWAL_STATUS",
                                      "--subtype", "AUTO_RENEW_DISABLED", "--config", served.workspace.configPath])
        #expect(told.status == 0 && told.stderr.contains("posted to \(url): SUCCESS"), "\(told.stderr)")
        served.process.kill(SIGTERM)
        #expect(served.process.wait().status == 0)
        let audit = try served.workspace.run(["audit", "--limit", "1"])
        #expect(audit.stdout.contains("apple") && audit.stdout.contains("notify") && audit.stdout.contains("customer:eva")
                && audit.stdout.contains("DID_CHANGE_RENEWAL_STATUS"), "\(audit.stdout)")
    }

    final class Answered: @unchecked Sendable {
        private let lock = NSLock()
        private var ids: [String] = []
        func add(_ id: String) { lock.withLock { ids.append(id) } }
        var count: Int { lock.withLock { ids.count } }
        var all: [String] { lock.withLock { ids } }
    }
}
