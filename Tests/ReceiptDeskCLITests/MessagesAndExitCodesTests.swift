import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// Exit codes and messages a script or an operator relies on: a readable but invalid artefact
/// exits 1 everywhere, JSON problems are named as JSON in receiptdesk's words, and loopback
/// endpoints are described as loopback.
@Suite("Messages and exit codes")
struct MessagesAndExitCodesTests {
    static func notification(_ authority: TestCertificateAuthority) throws -> Data {
        let payload = NotificationPayload(notificationType: "TEST", notificationUUID: UUID().uuidString,
                                          signedDate: Date(timeIntervalSince1970: 1_750_000_000),
                                          data: NotificationData(bundleId: "com.example.app", environment: "Production"))
        return Data(try JWSBuilder(authority: authority).notificationBody(payload).utf8)
    }

    @Test func notifyExitsOneForAReadableNotificationThatDoesNotVerify() throws {
        let workspace = try LedgerWorkspace()
        let forged = try workspace.write("forged.json", try Self.notification(try TestCertificateAuthority.shared(.impostor)))
        let refused = try workspace.run(["notify", forged])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("notification not applied: invalid"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count <= 2)  // the line, and the pointer to help
        // Garbage is bad input (65), a good notification is applied (0): 1 is kept for "read, but not valid".
        #expect(try workspace.run(["notify", try workspace.write("garbage.json", Data("{\"signedPayload\": \"x.y\"}".utf8))]).status == 65)
        let good = try workspace.run(["notify", try workspace.write("good.json", try Self.notification(workspace.authority))])
        #expect(good.status == 0, "\(good.stderr)")
    }

    @Test(arguments: [("[1, 2]", "input is JSON, an array: receiptdesk reads a JSON object"),
                      ("\"eyJhbGciOiJFUzI1NiJ9.e30.c2ln\"", "input is JSON, a string: receiptdesk reads a JSON object"),
                      ("{\"signedPayload\": tru}", "JSON input: not valid JSON: unexpected '}' at line 1, column 22 (byte 21)"),
                      ("{\n  \"status\": 0,\n  \"receipt\": {\"in_app\": [}\n}", "JSON input: not valid JSON: expected a value, found '}' at line 3, column 26 (byte 42)"),
                      ("{\"a\": \"line\nbreak\"}", "not valid JSON: a control character (byte 0xa) inside a string at line 1, column 12")])
    func jsonProblemsAreNamedAsJSONInOurWords(_ input: String, _ expected: String) throws {
        let output = try CLIRunner.run(["decode", "-"], input: Data(input.utf8))
        #expect(output.status == 65)
        #expect(output.stderr.contains(expected), "\(output.stderr)")
        #expect(!output.stderr.contains("NSCocoaErrorDomain") && !output.stderr.contains("not base64"), "\(output.stderr)")
    }

    @Test func configJSONErrorsSayWhereInOurWords() throws {
        let workspace = try LedgerWorkspace(config: "{\n  \"bundleIds\": [\"com.example.app\",]\n  \"products\": {}\n}")
        let output = try workspace.run(["customer", "show", "nobody"])
        #expect(output.status == 64)
        #expect(output.stderr.contains("not valid JSON: expected a value, found ']' at line 2, column 35 (byte 36)"), "\(output.stderr)")
        #expect(!output.stderr.contains("NSCocoaErrorDomain"))
    }

    @Test func anIPv6LoopbackEndpointIsRefusedAtConfigLoadSayingWhatToUse() throws {
        let config = LedgerWorkspace.configJSON.replacingOccurrences(of: "\"sandbox\":", with: """
            "appStore": {"verifyReceipt": {"productionURL": "http://[::1]:8443/verifyReceipt"}},
              "sandbox":
            """)
        let workspace = try LedgerWorkspace(config: config)
        let output = try workspace.run(["reverify", "--all"])
        #expect(output.status == 64)
        #expect(output.stderr.contains("names an IPv6 address, which this platform's URL loader cannot reach; use http://127.0.0.1:PORT"),
                "\(output.stderr)")
    }
}

/// Only commands that write may create a database; a reader given a path with nothing there
/// refuses (69, naming the path) instead of answering from an empty database made on the spot.
@Suite("A missing database")
struct MissingDatabaseTests {
    @Test(arguments: [["audit", "--verify"], ["audit"], ["customer", "show", "alice"], ["conflicts"],
                      ["revoke", "--customer", "alice", "--entitlement", "pro", "--reason", "r"], ["reverify", "--all"],
                      ["order", "fail", "o-1", "--reason", "declined"]])
    func readersRefuseAMissingDatabase(_ arguments: [String]) throws {
        let workspace = try LedgerWorkspace()
        let typo = workspace.directory.appendingPathComponent("typo.sqlite").path
        let output = try CLIRunner.run(arguments + ["--db", typo, "--config", workspace.configPath])
        #expect(output.status == 69, "\(arguments): exit \(output.status) \(output.stdout) \(output.stderr)")
        #expect(output.stderr.contains("no database at \(typo)"), "\(output.stderr)")
        #expect(!output.stdout.contains("intact"))
        #expect(!FileManager.default.fileExists(atPath: typo), "\(arguments) created the database")
    }

    @Test(arguments: [["customer", "add", "alice"], ["import", "RECEIPT", "--customer", "alice"],
                      ["order", "create", "--customer", "alice", "--order", "o-1", "--product", "com.example.pro.monthly"]])
    func writersCreateItAndSaySo(_ arguments: [String]) throws {
        let workspace = try LedgerWorkspace()
        let receipt = try workspace.receipt("r.b64", [LedgerWorkspace.purchase("5000000001")])
        let output = try workspace.run(arguments.map { $0 == "RECEIPT" ? receipt : $0 })
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr == "receiptdesk: created a new purchase database at \(workspace.databasePath)\n")
        #expect(FileManager.default.fileExists(atPath: workspace.databasePath))
        #expect(try workspace.run(["audit", "--verify"]).status == 0)
        // Once it exists, nothing more is said.
        #expect(try workspace.run(["customer", "add", "bob"]).stderr.isEmpty)
    }

    @Test func dbInitCreatesOnceThenSaysItIsUpToDate() throws {
        let workspace = try LedgerWorkspace()
        let first = try CLIRunner.run(["db", "init", "--db", workspace.databasePath])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("created a new purchase database at \(workspace.databasePath): schema up to date ("), "\(first.stdout)")
        let second = try CLIRunner.run(["db", "init", "--db", workspace.databasePath])
        #expect(second.stdout.hasPrefix("database \(workspace.databasePath): schema up to date ("), "\(second.stdout)")
        #expect(try workspace.run(["audit", "--verify"]).stdout.hasPrefix("audit log intact: 0 entries verified\n"))
    }
}
