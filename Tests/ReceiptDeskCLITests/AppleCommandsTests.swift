import Foundation
import Testing

/// The commands that talk to "Apple", run against a demo database whose config points at the
/// built-in simulator (loopback only).
@Suite("demo, reverify, lookup-order, notify, simulator", .serialized)
struct AppleCommandsTests {
    final class Demo {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rd-demo-\(UUID().uuidString)")
        var db: String { folder.appendingPathComponent("purchases.sqlite").path }
        var config: String { folder.appendingPathComponent("config.json").path }
        var common: [String] { ["--db", db, "--config", config] }

        init() throws {
            let output = try CLIRunner.run(["demo", "--db", folder.appendingPathComponent("purchases.sqlite").path, "--customers", "30"])
            guard output.status == 0 else { throw DemoFailure(message: output.stderr) }
        }

        deinit { try? FileManager.default.removeItem(at: folder) }  // best effort: a temporary folder

        /// An Apple order id the simulator issued, and the account (customer) it belongs to.
        func appleOrder() throws -> (order: String, customer: String) {
            let data = try Data(contentsOf: folder.appendingPathComponent("simulator/state.json"))
            let state = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            let transactions = (state?["transactions"] as? [String: [String: Any]]) ?? [:]
            for transaction in transactions.values.sorted(by: { ($0["transactionId"] as? String ?? "") < ($1["transactionId"] as? String ?? "") }) {
                if let order = transaction["orderId"] as? String, let account = transaction["account"] as? String,
                   transaction["environment"] as? String == "Production" {
                    return (order, account)
                }
            }
            throw DemoFailure(message: "no order in the simulator state")
        }
    }

    struct DemoFailure: Error { let message: String }

    @Test func simulatorMintsArtefactsValidForTheDemoApp() throws {
        let demo = try Demo()
        func mint(_ arguments: [String]) throws -> String {
            let output = try CLIRunner.run(["simulator", "mint"] + arguments + ["--config", demo.config])
            try #require(output.status == 0, "\(arguments): \(output.stderr)")
            #expect(output.stderr.contains("signed by the simulator's test authority (not Apple)"))
            let path = demo.folder.appendingPathComponent("minted-\(UUID().uuidString)").path
            try Data(output.stdout.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        // A unified receipt imports as valid PRODUCTION for the demo's app, grants pro, and re-verifies.
        let unified = try mint(["unified", "--product", "com.example.game.pro.monthly"])
        let imported = try CLIRunner.run(["import", unified, "--customer", "mint-alice", "--json"] + demo.common)
        #expect(imported.status == 0, "\(imported.stderr)")
        let row = try #require(try imported.importedFiles().first)
        let granted = try imported.importGranted()
        #expect(granted.count == 1 && granted.first?["customerId"] as? String == "mint-alice" && granted.first?["entitlement"] as? String == "pro"
                && (granted.first?["until"] as? String)?.isEmpty == false && granted.first?["quantity"] == nil, "\(granted)")
        #expect((row["verdict"] as? [String: Any])?["status"] as? String == "valid" && row["environment"] as? String == "Production", "\(row)")
        let show = try CLIRunner.run(["customer", "show", "mint-alice", "--json"] + demo.common)
        let entitlements = (try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])?["entitlements"] as? [[String: Any]]
        #expect(entitlements?.contains { $0["name"] as? String == "pro" && $0["active"] as? Bool == true } == true, "\(show.stdout)")
        let reverify = try CLIRunner.run(["reverify", "--customer", "mint-alice"] + demo.common)
        #expect(reverify.status == 0 && reverify.stdout.contains("verified"), "\(reverify.stdout) \(reverify.stderr)")
        // decode --config trusts what the config trusts; without it the artefact is not Apple's.
        #expect(try CLIRunner.run(["decode", unified, "--config", demo.config]).status == 0)
        #expect(try CLIRunner.run(["decode", unified]).status == 1)
        // Both legacy signature versions, in either environment.
        for version in ["2", "3"] {
            let legacy = try mint(["legacy", "--legacy-version", version, "--environment", "sandbox", "--product", "com.example.game.removeads"])
            let decoded = try CLIRunner.run(["decode", legacy, "--config", demo.config, "--json"])
            #expect(decoded.status == 0, "\(decoded.stdout)")
            #expect(decoded.stdout.contains("\"environment\":\"Sandbox\""))
        }
        let jws = try mint(["jws", "--product", "com.example.game.coins.1200", "--environment", "sandbox"])
        #expect(try CLIRunner.run(["decode", jws, "--config", demo.config]).stdout.contains("SANDBOX"))
        // A notification about a transaction the simulator knows applies once.
        let decoded = try CLIRunner.run(["decode", unified, "--json"])
        let transaction = try #require(((try JSONSerialization.jsonObject(with: Data(decoded.stdout.utf8)) as? [String: Any])?["purchases"]
            as? [[String: Any]])?.first?["transactionId"] as? String)
        let notification = try mint(["notification", "--transaction", transaction, "--type", "DID_RENEW"])
        #expect(try CLIRunner.run(["notify", notification] + demo.common).status == 0)
        // What it refuses, in one line each.
        let unknown = try CLIRunner.run(["simulator", "mint", "jws", "--product", "nope", "--config", demo.config])
        expectFailure(unknown, 64, "--product nope is not in the config's products")
        let workspace = try LedgerWorkspace()
        let noSimulator = try CLIRunner.run(["simulator", "mint", "unified", "--product", "com.example.pro.monthly", "--config", workspace.configPath])
        expectFailure(noSimulator, 64, "names no simulator")
    }

    @Test func demoBuildsADatabaseThatSaysAppleIsTheSimulator() throws {
        let demo = try Demo()
        let config = try String(contentsOfFile: demo.config, encoding: .utf8)
        #expect(config.contains("\"simulator\""))
        #expect(!config.contains("demo-shared-secret"), "the secret lives in its own file")
        let again = try CLIRunner.run(["demo", "--db", demo.db])
        #expect(again.status == 64, "an existing demo is not overwritten without --force")
        let conflicts = try CLIRunner.run(["conflicts", "--json"] + demo.common)
        #expect(conflicts.status == 0)
        #expect(conflicts.stdout.contains("cust-family-kid"))
        let show = try CLIRunner.run(["customer", "show", "王小明"] + demo.common)
        #expect(show.status == 0)
        #expect(show.stdout.contains("pro"))
    }

    @Test func reverifyAllAgainstTheSimulator() throws {
        let demo = try Demo()
        let output = try CLIRunner.run(["reverify", "--all", "--concurrency", "4", "--json"] + demo.common)
        #expect(output.status == 0, "\(output.stderr)")
        let reports = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
        #expect(!reports.isEmpty)
        #expect(reports.allSatisfy { $0["outcome"] as? String == "verified" })
        #expect(reports.contains { ($0["differences"] as? [String])?.contains { $0.contains("only Apple has it") } == true },
                "renewals Apple knows show as differences")
        // A second run applies nothing new.
        let second = try CLIRunner.run(["reverify", "--all", "--concurrency", "4", "--json"] + demo.common)
        let again = try #require(try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [[String: Any]])
        #expect(again.allSatisfy { ($0["changes"] as? [Any])?.isEmpty == true })
        #expect(try CLIRunner.run(["audit", "--verify"] + demo.common).status == 0)
    }

    @Test func lookupOrderImportsTheOrdersTransactions() throws {
        let demo = try Demo()
        let (order, customer) = try demo.appleOrder()
        let output = try CLIRunner.run(["lookup-order", order, "--customer", customer] + demo.common)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("Apple order \(order)"))
        let unknown = try CLIRunner.run(["lookup-order", "NOSUCHORDER", "--customer", customer] + demo.common)
        #expect(unknown.status == 65, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("does not know order"))
    }

    @Test func simulatorRefusesNonLoopbackAndServes() throws {
        let refused = try CLIRunner.run(["simulator", "--host", "0.0.0.0", "--port", "0"])
        #expect(refused.status == 64)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rd-sim-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort
        let process = Process()
        process.executableURL = CLIRunner.binary
        process.arguments = ["simulator", "--port", "0", "--state", folder.path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let firstLine = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        #expect(firstLine.contains("http://127.0.0.1:"))
        process.interrupt()
        // It stops on Ctrl-C; never let a stuck child hang the suite.
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "the simulator stopped on SIGINT")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("state.json").path))
    }
}
