import Foundation
import ReceiptCore
import StoreSimulator
import Testing

@Suite("receiptdesk decode")
struct DecodeCommandTests {
    @Test func validReceiptExitsZeroWithTreeAndVerdict() throws {
        let output = try CLIRunner.run(["decode", CLIRunner.sample("unified-sandbox-sha256-g5.b64")])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("environment:  SANDBOX (receipt type (field 0): ProductionSandbox, signed)"))
        #expect(output.stdout.contains("verdict:      VALID"))
        #expect(output.stdout.contains("chain:        Mac App Store and iTunes Store Receipt Signing ← Apple Worldwide Developer Relations Certification Authority ← Apple Root CA"))
        #expect(output.stdout.contains("bundle_id (2): \"dev.bonzer.weeka.app\""))
        #expect(output.stdout.contains("transaction_id (1703): \"2000001092148094\""))
    }

    @Test func jsonFromStandardInput() throws {
        let jws = try Data(contentsOf: URL(fileURLWithPath: CLIRunner.sample("real-transaction-sandbox.jws")))
        let output = try CLIRunner.run(["decode", "-", "--json"], input: jws)
        #expect(output.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        #expect(object["format"] as? String == "jws-transaction")
        #expect(object["environment"] as? String == "Sandbox")
        let verdict = try #require(object["verdict"] as? [String: Any])
        #expect(verdict["status"] as? String == "valid")
        #expect(verdict["validationTime"] as? String == "2025-10-01T07:08:38.835Z")
        let purchases = try #require(object["purchases"] as? [[String: Any]])
        #expect(purchases.first?["transactionId"] as? String == "2000001024998954")
        #expect(purchases.first?["purchaseDate"] as? String == "2025-10-01T07:09:12Z")
        #expect(object["notificationType"] is NSNull)
    }

    @Test func notValidExitsOneAndUndecodableExitsSixtyFive() throws {
        let unsigned = try CLIRunner.run(["decode", CLIRunner.sample("legacy-synthetic-minimal.b64")])
        #expect(unsigned.status == 1)
        #expect(unsigned.stdout.contains("UNSIGNED"))
        let garbage = try CLIRunner.run(["decode", "-"], input: Data("MIIT%%%".utf8))
        #expect(garbage.status == 65)
        #expect(garbage.stderr.split(separator: "\n").count == 1, "one line: \(garbage.stderr)")
        #expect(garbage.stderr.contains("standard input"))
        let missing = try CLIRunner.run(["decode", "/nonexistent/receipt.b64"])
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("no such file"))
    }

    @Test func usageErrorsExitSixtyFour() throws {
        #expect(try CLIRunner.run(["decode", "--bogus"]).status == 64)
        #expect(try CLIRunner.run(["decode", "--device-id", "not-a-uuid", CLIRunner.sample("unified-sandbox-sha256-g5.b64")]).status == 64)
        #expect(try CLIRunner.run(["frobnicate"]).status == 64)
        #expect(try CLIRunner.run(["decode", "--trust-anchor", "/nonexistent.der", CLIRunner.sample("legacy-ios6-sandbox.b64")]).status == 64)
    }

    @Test func deviceIdAndExtraAnchor() throws {
        let receipt = CLIRunner.sample("unified-sandbox-sha256-g5.b64")
        #expect(try CLIRunner.run(["decode", receipt, "--device-id", "956328D9-CC6A-47F4-BE40-6953FB0AB6C7"]).status == 0)
        let wrong = try CLIRunner.run(["decode", receipt, "--device-id", "00000000-0000-0000-0000-000000000000"])
        #expect(wrong.status == 1)
        #expect(wrong.stdout.contains("device hash"))
        let notification = CLIRunner.sample("testca-testNotification.jws")
        #expect(try CLIRunner.run(["decode", notification]).status == 1)
        let anchored = try CLIRunner.run(["decode", notification, "--trust-anchor", CLIRunner.sample("AppStoreServerLibraryTestCA.der")])
        #expect(anchored.status == 0)
        #expect(anchored.stdout.contains("anchor:"))
    }

    @Test func forgedReceiptsAreInvalid() throws {
        let date = try #require(RFC3339.parse("2025-03-01T10:00:00Z"))
        let builder = UnifiedReceiptBuilder(bundleId: "com.example.app", appVersion: "1", creationDate: date,
                                            purchases: [ReceiptPurchase(productId: "coins", transactionId: "9", purchaseDate: date)])
        let impostor = try builder.build(signedBy: try TestCertificateAuthority.shared(.impostor)).base64
        let output = try CLIRunner.run(["decode", "-"], input: Data(impostor.utf8))
        #expect(output.status == 1)
        #expect(output.stdout.contains("INVALID"))
    }

    @Test func noArgumentOnATerminalPrintsUsage() throws {
        // `script` gives the command a pseudo-terminal for standard input.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "\(CLIRunner.binary.path) decode", "/dev/null"]
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text.contains("usage: receiptdesk"))
        #expect(process.terminationStatus == 64)
    }

    @Test func samplesCommandDecodesEverySample() throws {
        let output = try CLIRunner.run(["samples"])
        #expect(output.status == 0)
        #expect(output.stdout.contains("23 samples: 5 invalid, 5 unsigned, 5 unverifiable, 8 valid"), "\(output.stdout.suffix(200))")
    }
}
