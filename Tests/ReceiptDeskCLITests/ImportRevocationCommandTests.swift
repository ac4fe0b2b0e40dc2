import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// `receiptdesk import` and `notify` under the config's `appStore.revocation`: each import says
/// whether its chain was checked, when and by whom; nothing fails open.
@Suite(.serialized) struct ImportRevocationCommandTests {
    static func workspace(mode: String, responder: String) throws -> LedgerWorkspace {
        var config = LedgerWorkspace.configJSON
        config.removeLast(2)  // "\n}"
        config += ",\n  \"appStore\": { \"revocation\": { \"mode\": \"\(mode)\", \"responderURL\": \"\(responder)\", \"timeoutSeconds\": 2 } }\n}"
        return try LedgerWorkspace(config: config)
    }

    static func transactionFile(_ w: LedgerWorkspace, _ id: String) throws -> String {
        let bought = LedgerWorkspace.date("2025-05-01T00:00:00Z")
        let payload = TransactionPayload(transactionId: id, bundleId: "com.example.app", productId: "com.example.pro.lifetime",
                                         type: "Non-Consumable", purchaseDate: bought, signedDate: bought, environment: "Production")
        let path = w.directory.appendingPathComponent("\(id).jws").path
        try Data(try JWSBuilder(authority: w.authority).signedTransaction(payload).utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aGoodChainIsCheckedAndSaidSo() throws {
        let simulator = try AppStoreSimulator(state: SimulatorState(authority: try TestCertificateAuthority.shared()))
        try simulator.start()
        defer { simulator.stop() }
        let w = try Self.workspace(mode: "require", responder: simulator.ocspURL.absoluteString)
        try w.createDatabase()
        let output = try w.run(["import", try Self.transactionFile(w, "2000000000000501"), "--customer", "ada"])
        #expect(output.status == 0, "\(output.stdout) \(output.stderr)")
        #expect(output.stdout.contains("\n  revocation: checked "), "\(output.stdout)")
        #expect(output.stdout.contains("by \(simulator.ocspURL.absoluteString): good"), "\(output.stdout)")
        #expect(simulator.ocsp.requestCount == 2)
    }

    @Test func anUnreachableResponderIsLoudUnderPreferAndRefusedUnderRequire() throws {
        let preferring = try Self.workspace(mode: "prefer", responder: "http://127.0.0.1:9/ocsp")
        try preferring.createDatabase()
        let kept = try preferring.run(["import", try Self.transactionFile(preferring, "2000000000000601"), "--customer", "bo"])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(kept.stdout.contains("\n  ⚠ revocation: could not be checked: "), "\(kept.stdout)")
        let owned = try preferring.run(["customer", "show", "bo"])
        #expect(owned.stdout.contains("pro"), "\(owned.stdout)")

        let requiring = try Self.workspace(mode: "require", responder: "http://127.0.0.1:9/ocsp")
        try requiring.createDatabase()
        let refused = try requiring.run(["import", try Self.transactionFile(requiring, "2000000000000602"), "--customer", "bo"])
        #expect(refused.status == 1, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stdout.contains("unverifiable"), "\(refused.stdout)")
        #expect(refused.stdout.contains("revocation is required but could not be checked"), "\(refused.stdout)")
    }
}
