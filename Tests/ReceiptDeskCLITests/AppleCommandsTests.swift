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
        #expect(unknown.status == 65)
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
