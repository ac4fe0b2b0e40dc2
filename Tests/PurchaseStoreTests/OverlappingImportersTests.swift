import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// Importers of overlapping receipts never end busy: 50 rounds of 8 `receiptdesk import`
/// processes at once, each importing 12 of 24 shared receipts (in its own order) for its own
/// customer, with a grant beside them. Every run exits 0; each transaction belongs to the first
/// import that committed it; every later claim is one recorded conflict.
@Suite("Importers of overlapping receipts, 50 rounds of 8 processes")
struct OverlappingImportersTests {
    static let rounds = 50
    static let importers = 8
    static let receipts = 24
    static let perImporter = 12

    static var canRun: Bool { FileManager.default.isExecutableFile(atPath: PostgresProcessTests.binary.path) }

    @Test(.enabled(if: OverlappingImportersTests.canRun, "needs the receiptdesk binary beside the tests"), arguments: TestBackend.available)
    func importersOfOverlappingReceiptsNeverEndBusy(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-overlap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort: a leftover temp folder is harmless
        let options = ["--db", f.scratch.location] + (try PostgresProcessTests.processOptions(f, in: folder))
        var busyExits = 0, otherFailures: [String] = []
        for round in 0..<Self.rounds {
            let files = try (0..<Self.receipts).map { index -> String in
                let path = folder.appendingPathComponent("r\(round)-\(index).b64")
                let purchases = [LedgerFixture.purchase("ov-\(round)-\(index)-a", "com.example.coins.100", expires: nil, type: 1),
                                 LedgerFixture.purchase("ov-\(round)-\(index)-b", "com.example.pro.lifetime", expires: nil, type: 0)]
                try Data(try f.receipt(purchases)).write(to: path)
                return path.path
            }
            try f.ledger.addCustomer("granted-\(round)", isTester: false, operatorName: "mei")
            // Importer k: 12 of the 24, in an order of its own (7 is prime to 24, so all distinct).
            var running = try (0..<Self.importers).map { k in
                let mine = (0..<Self.perImporter).map { files[(k * 5 + $0 * 7) % Self.receipts] }
                return try PostgresProcessTests.start(["import", "--customer", "imp-\(round)-\(k)", "--operator", "op\(k)"] + mine + options, in: folder)
            }
            running.append(try PostgresProcessTests.start(["grant", "--customer", "granted-\(round)", "--entitlement", "pro",
                                                           "--reason", "beside the imports"] + options, in: folder))
            for result in running.map({ $0.wait() }) where result.status != 0 {
                if result.status == 75 { busyExits += 1 } else { otherFailures.append("exit \(result.status): \(result.stderr)") }
            }
            try checkOwnership(f, round: round)
        }
        #expect(busyExits == 0, "\(busyExits) of \(Self.rounds * Self.importers) imports ended busy (exit 75)")
        #expect(otherFailures.isEmpty, "\(otherFailures.prefix(3))")
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    /// Each transaction of the round has one owner, the customer whose import recorded it first
    /// in the audit chain (appends are in commit order); every other importer that presented it
    /// has exactly one conflict about it, opened by a later import.
    func checkOwnership(_ f: BackendLedgerFixture, round: Int) throws {
        let imports = try f.database.query("SELECT seq, target, details FROM audit_log WHERE action = 'import' AND target LIKE ?",
                                           [.text("customer:imp-\(round)-%")])
        var recordedAt: [String: (seq: Int64, customer: String)] = [:]
        var claimedAt: [String: [(seq: Int64, customer: String)]] = [:]
        for row in imports {
            let customer = String((row.string("target") ?? "").dropFirst("customer:".count))
            guard let seq = row.int("seq"), let details = row.string("details"),
                  let object = try JSONSerialization.jsonObject(with: Data(details.utf8)) as? [String: Any] else { continue }
            for recorded in object["recorded"] as? [[String: Any]] ?? [] {
                if let id = recorded["transactionId"] as? String { recordedAt[id] = (seq, customer) }
            }
            for conflict in object["conflicts"] as? [[String: Any]] ?? [] {
                if let id = conflict["transactionId"] as? String { claimedAt[id, default: []].append((seq, customer)) }
            }
        }
        let stored = try f.database.query("SELECT transaction_id, customer_id FROM transactions WHERE transaction_id LIKE ?", [.text("ov-\(round)-%")])
        #expect(stored.count == Self.receipts * 2, "round \(round): every transaction recorded once")
        for row in stored {
            let id = row.string("transaction_id") ?? "", owner = row.string("customer_id") ?? ""
            let first = try #require(recordedAt[id], "round \(round): \(id) has no import entry that recorded it")
            #expect(first.customer == owner, "round \(round): \(id) belongs to \(owner), recorded by \(first.customer)")
            let claims = claimedAt[id] ?? []
            #expect(claims.allSatisfy { $0.seq > first.seq && $0.customer != owner }, "round \(round): \(id) claims \(claims)")
            let conflicts = try f.database.query("SELECT claimant_customer_id FROM conflicts WHERE transaction_id = ?", [.text(id)])
                .compactMap { $0.string("claimant_customer_id") }
            #expect(conflicts.sorted() == claims.map(\.customer).sorted(), "round \(round): \(id): one conflict per later claimant")
        }
    }
}
