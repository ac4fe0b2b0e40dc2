import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// `decode --revocation …`: the verdict says whether the chain was checked for revocation, when
/// and by whom, against the simulator's OCSP responder on loopback.
@Suite(.serialized) struct DecodeRevocationTests {
    final class Files {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rd-ocsp-\(UUID().uuidString)")
        let simulator: AppStoreSimulator
        let authority: TestCertificateAuthority
        var jws: String { folder.appendingPathComponent("transaction.jws").path }
        var anchor: String { folder.appendingPathComponent("ec-root.der").path }

        init() throws {
            authority = try TestCertificateAuthority.shared()
            simulator = try AppStoreSimulator(state: SimulatorState(authority: authority))
            try simulator.start()
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let signed = CivilTime(year: 2025, month: 6, day: 1, hour: 12).date
            let payload = TransactionPayload(transactionId: "2000000000000077", originalTransactionId: "2000000000000077",
                                             bundleId: "com.example.game", productId: "pro.monthly", type: "Non-Consumable",
                                             purchaseDate: signed, signedDate: signed, environment: "Production")
            try Data(try JWSBuilder(authority: authority).signedTransaction(payload).utf8).write(to: URL(fileURLWithPath: jws))
            try Data(authority.ecRoot.der).write(to: URL(fileURLWithPath: anchor))
        }

        func decode(_ extra: [String]) throws -> CLIRunner.Output {
            try CLIRunner.run(["decode", jws, "--trust-anchor", anchor] + extra)
        }

        deinit {
            simulator.stop()
            try? FileManager.default.removeItem(at: folder)  // best effort: a temporary folder
        }
    }

    @Test func offByDefaultAsksNobodyAndAddsNothing() throws {
        let files = try Files()
        let output = try files.decode(["--ocsp-url", files.simulator.ocspURL.absoluteString])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(!output.stdout.contains("revocation:"))
        #expect(files.simulator.ocsp.requestCount == 0)
    }

    @Test func requireWithAGoodChainSaysChecked() throws {
        let files = try Files()
        let url = files.simulator.ocspURL.absoluteString
        let output = try files.decode(["--revocation", "require", "--ocsp-url", url])
        #expect(output.status == 0, "\(output.stdout) \(output.stderr)")
        #expect(output.stdout.contains("revocation:   checked "), "\(output.stdout)")
        #expect(output.stdout.contains(" by \(url): good"), "\(output.stdout)")
        let json = try files.decode(["--revocation", "require", "--ocsp-url", url, "--json"])
        let verdict = (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["verdict"] as? [String: Any]
        let revocation = verdict?["revocation"] as? [String: Any]
        #expect(revocation?["checked"] as? Bool == true && revocation?["outcome"] as? String == "good", "\(json.stdout)")
    }

    @Test func revokedLeafFailsVerification() throws {
        let files = try Files()
        files.simulator.ocsp.revoke(files.authority.ecLeaf, at: CivilTime(year: 2025, month: 7, day: 1).date, reason: 1)
        let output = try files.decode(["--revocation", "prefer", "--ocsp-url", files.simulator.ocspURL.absoluteString])
        #expect(output.status == 1)
        #expect(output.stdout.contains("was revoked at 2025-07-01T00:00:00Z (keyCompromise)"), "\(output.stdout)")
    }

    @Test func unreachableResponderIsLoudUnderPreferAndFailsUnderRequire() throws {
        let files = try Files()
        let preferred = try files.decode(["--revocation", "prefer", "--ocsp-url", "http://127.0.0.1:9/ocsp"])
        #expect(preferred.status == 0, "\(preferred.stderr)")
        #expect(preferred.stdout.contains("revocation:   ⚠ could not be checked: "), "\(preferred.stdout)")
        let required = try files.decode(["--revocation", "require", "--ocsp-url", "http://127.0.0.1:9/ocsp"])
        #expect(required.status == 1)
        #expect(required.stdout.contains("UNVERIFIABLE: revocation is required but could not be checked"), "\(required.stdout)")
    }
}
