import Foundation
import PurchaseStore
import ReceiptCore
import Testing

/// A genuine iOS 6 sandbox receipt whose unsigned envelope was edited to look like production
/// (its `environment` line deleted, or set to Production) is still a sandbox purchase for the
/// ledger: it grants nothing to a customer who is not a tester while allowSandbox is off.
@Suite("Ledger: an edited legacy envelope never makes a sandbox purchase paid")
struct LegacyEnvironmentImportTests {
    static let configuration = StoreConfiguration(
        bundleIds: ["com.mindmobapp.MindMob"],
        products: ["com.mindmobapp.download": CatalogueProduct(entitlement: "download", type: .nonConsumable)])

    /// The real sandbox receipt in Assets/Samples with its envelope edited.
    static func edited(_ edit: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Assets/Samples/legacy-ios6-sandbox.b64")
        let envelope = String(decoding: try Base64.decode(try String(contentsOf: url, encoding: .utf8), "sample"), as: UTF8.self)
        let changed: String
        switch edit {
        case "deleted": changed = envelope.replacingOccurrences(of: "\t\"environment\" = \"Sandbox\";\n", with: "")
        case "Production": changed = envelope.replacingOccurrences(of: "\"Sandbox\"", with: "\"Production\"")
        default: changed = envelope
        }
        #expect(edit == "genuine" || changed != envelope)
        return Array(Data(changed.utf8).base64EncodedString().utf8)
    }

    @Test(arguments: TestBackend.available, ["deleted", "Production", "genuine"])
    func editedSandboxReceiptGrantsNothingToANonTester(_ backend: TestBackend, _ edit: String) throws {
        let f = try BackendLedgerFixture(backend, configuration: Self.configuration, trust: try TrustStore.apple())
        let bytes = try Self.edited(edit)
        let result = try f.ledger.importArtefact(bytes, customer: "alice", source: "test", operatorName: "mei")
        #expect(result.verdict.status == .valid, "\(result.verdict.reason)")
        #expect(result.environment == .sandbox)
        #expect(try f.count("SELECT count(*) AS n FROM transactions WHERE environment = 'Production'") == 0)
        #expect(try f.count("SELECT count(*) AS n FROM receipts WHERE environment = 'Sandbox'") == 1)
        #expect(try f.ledger.entitlements("alice", now: f.now).allSatisfy { !$0.isActive })
        // The same purchase does grant to a tester: the refusal above is the environment's doing.
        try f.ledger.addCustomer("alice", isTester: true, operatorName: "mei")
        #expect(try f.ledger.entitlements("alice", now: f.now).first { $0.name == "download" }?.isActive == true)
    }
}
