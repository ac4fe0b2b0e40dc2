import Foundation
import ReceiptCore
import Testing

/// `receiptdesk simulator mint` processes started at the same moment over one simulator state
/// directory: each mints from what the others saved, under the directory's lock.
@Suite("simulator mint from several processes at once")
struct SimulatorMintConcurrencyTests {
    static let config = """
    {
      "bundleIds": ["com.example.app"],
      "products": { "com.example.coins.100": { "entitlement": "coins", "type": "consumable", "units": 100 } },
      "appStore": { "simulator": { "stateDirectory": "simulator" } }
    }
    """

    /// The transaction id and the signing certificate (x5c[0]) of a minted StoreKit 2 transaction.
    static func minted(_ jws: String) throws -> (id: String, leaf: String) {
        let parts = jws.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").map(String.init)
        try #require(parts.count == 3, "not a compact JWS: \(jws.prefix(80))")
        let header = try JSONSerialization.jsonObject(with: Data(try Base64.decodeURL(parts[0], "JWS header"))) as? [String: Any]
        let payload = try JSONSerialization.jsonObject(with: Data(try Base64.decodeURL(parts[1], "JWS payload"))) as? [String: Any]
        let id = try #require(payload?["transactionId"] as? String)
        let leaf = try #require((header?["x5c"] as? [String])?.first)
        return (id, leaf)
    }

    @Test("4 mint processes at once, 20 rounds over one new state directory: 80 distinct ids, all in state.json, one authority")
    func mintAtOnce() throws {
        let workspace = try LedgerWorkspace(config: Self.config)
        let arguments = ["simulator", "mint", "jws", "--product", "com.example.coins.100", "--environment", "sandbox",
                         "--config", workspace.configPath]
        var ids: [String] = []
        var leaves: Set<String> = []
        for round in 0..<20 {
            // Gated starts: every shell waits until all are started, then the binaries run together.
            let running = try (0..<4).map { _ in
                try CLIRunner.start(arguments, outputDirectory: workspace.directory, gated: true)
            }
            for process in running { process.open() }
            for output in running.map({ $0.wait() }) {
                try #require(output.status == 0, "round \(round): \(output.stderr)")
                let (id, leaf) = try Self.minted(output.stdout)
                ids.append(id)
                leaves.insert(leaf)
            }
        }
        #expect(Set(ids).count == 80, "repeated ids: \(Dictionary(grouping: ids) { $0 }.filter { $0.value.count > 1 }.keys.sorted())")
        let stateFile = workspace.directory.appendingPathComponent("simulator/state.json")
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: stateFile)) as? [String: Any]
        let saved = Set(((state?["transactions"] as? [String: Any]) ?? [:]).keys)
        #expect(saved == Set(ids), "minted but not saved: \(Set(ids).subtracting(saved).sorted())")
        // The processes of the first round found no authority: one made it, the others used it.
        #expect(leaves.count == 1, "\(leaves.count) different signing certificates")
    }
}
