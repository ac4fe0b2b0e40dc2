import Foundation
@testable import StoreSimulator
import Testing

@Suite("Simulator state file written a member at a time")
struct SimulatorRecordsFileTests {
    /// Records with something in every member that holds anything.
    static func records() throws -> SimulatorRecords {
        let fixture = try SimulatorFixture()
        let state = fixture.state
        for index in 0..<10 {
            let bought = try state.subscribe(SimulatorFixture.monthly(SimulatorFixture.day(Double(-60 + index))), environment: .production,
                                             account: "account-\(index % 3)")
            let original = try #require(state.snapshot().notifications.last?.transactionId, "\(bought.record.notificationUUID)")
            _ = try state.renewAndNotify(originalTransactionId: original, purchaseDate: SimulatorFixture.day(Double(-30 + index)),
                                         expiresDate: SimulatorFixture.day(Double(index)))
            _ = try state.chargeOneTime(SimulatedPurchase(productId: "coins.100", type: .consumable, purchaseDate: SimulatorFixture.day(Double(-index))),
                                        environment: .sandbox, account: "account-\(index)")
        }
        return state.snapshot()
    }

    /// The file decodes to records that `JSONEncoder` writes byte for byte as it writes the
    /// records the file was written from: every member is there, each with its values.
    @Test func theFileDecodesToTheSameRecords() throws {
        let records = try Self.records()
        #expect(records.transactions.count == 30 && records.notifications.count == 30 && !records.orders.isEmpty && !records.subscriptions.isEmpty)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("records-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("state.json")
        try SimulatorRecordsFile.write(records, to: file)
        try SimulatorRecordsFile.write(records, to: file)  // over an existing file
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        let read = try decoder.decode(SimulatorRecords.self, from: Data(contentsOf: file))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        #expect(try encoder.encode(read) == (try encoder.encode(records)))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let whole = try #require(try JSONSerialization.jsonObject(with: try encoder.encode(records)) as? [String: Any])
        #expect(Set(object.keys) == Set(whole.keys), "every member the synthesized encoding writes")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["state.json"], "no temporary file left")
    }
}
