import Foundation
import PurchaseStore
import ReceiptCore
import Testing

// Run on every backend (TestBackend.available): SQLite always, PostgreSQL when
// RECEIPTDESK_TEST_POSTGRES_URL names a test server (make test starts one).

/// Goodwill for many: a preview that writes nothing, then one audited batch; customers already
/// holding a grant, or unknown, are left out and named; two batches at once grant each customer once.
@Suite("Goodwill batches on both backends")
struct GrantBatchTests {
    static func customers(_ f: BackendLedgerFixture, _ ids: [String]) throws {
        for id in ids { try f.ledger.addCustomer(id, isTester: false, operatorName: "mei") }
    }

    @Test(arguments: TestBackend.available) func aPreviewThenOneAuditedBatchWithWhoGotWhat(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        try Self.customers(f, ["a", "b", "c"])
        let held = try f.ledger.grant(customer: "b", entitlement: "pro", until: nil, reason: "earlier", operatorName: "li")
        let until = LedgerFixture.date("2025-07-01T00:00:00Z")
        let before = try f.dump()
        let preview = try f.ledger.planGrantBatch(customers: ["a", "b", "zed", "c", "a"], entitlement: "pro", until: until, reason: "outage 3 June")
        #expect(try f.dump() == before, "a preview writes nothing")
        #expect(!preview.applied)
        #expect(preview.lines == [GrantBatch.Line(customerId: "a", outcome: .granted(grantId: nil)),
                                  GrantBatch.Line(customerId: "b", outcome: .alreadyGranted(grantId: held.grantId, endsAt: nil)),
                                  GrantBatch.Line(customerId: "zed", outcome: .notFound),
                                  GrantBatch.Line(customerId: "c", outcome: .granted(grantId: nil))], "a repeated id counts once")
        let batch = try f.ledger.grantBatch(customers: ["a", "b", "zed", "c"], entitlement: "pro", until: until, reason: "outage 3 June", operatorName: "mei")
        #expect(batch.applied && batch.granted.map(\.customerId) == ["a", "c"] && batch.skipped.map(\.customerId) == ["b", "zed"])
        for id in ["a", "c"] {
            let state = try f.ledger.entitlements(id, now: f.now).first { $0.name == "pro" }
            #expect(state?.isActive == true && state?.ends == until, "\(id)")
        }
        // One grant entry per grant, naming the batch; one batch entry with who got what.
        let grants = try f.database.query("SELECT target, details FROM audit_log WHERE action = 'grant' AND operator = 'mei' ORDER BY seq", [])
        #expect(grants.map { $0.string("target") } == ["customer:a", "customer:c"])
        #expect(grants.allSatisfy { ($0.string("details") ?? "").contains("\"batch\":\"\(batch.batchId)\"") })
        let entry = try #require(try f.database.queryFirst("SELECT target, details FROM audit_log WHERE action = 'grant-batch'", []))
        #expect(entry.string("target") == "batch:\(batch.batchId)")
        #expect(entry.string("details")?.contains("\"granted\":[\"a\",\"c\"],\"skipped\":[\"b\",\"zed\"]") == true, "\(entry.string("details") ?? "")")
        #expect(try AuditLog.verify(f.database).isIntact)
        #expect(try AuditExplanation.grantsAndConflicts(f.database).isExplained, "every grant is explained by its entry")
        // Again: everyone now holds it; nothing is granted twice.
        let again = try f.ledger.grantBatch(customers: ["a", "c"], entitlement: "pro", until: until, reason: "outage 3 June", operatorName: "mei")
        #expect(again.granted.isEmpty && again.skipped.count == 2)
    }

    @Test(arguments: TestBackend.available) func badBatchesAreRefusedInOneLineWithNothingWritten(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        try Self.customers(f, ["a"])
        let before = try f.dump()
        func refused(_ words: String, _ body: () throws -> Void) {
            do { try body(); Issue.record("accepted: \(words)") } catch let error as StoreError {
                #expect(error.reason.contains(words) && !error.reason.contains("\n"), "\(error.reason)")
            } catch { Issue.record("\(error)") }
        }
        refused("a reason is required") { _ = try f.ledger.grantBatch(customers: ["a"], entitlement: "pro", until: nil, reason: " ", operatorName: "mei") }
        refused("not in the catalogue") { _ = try f.ledger.grantBatch(customers: ["a"], entitlement: "gold", until: nil, reason: "r", operatorName: "mei") }
        refused("names no customer") { _ = try f.ledger.grantBatch(customers: [], entitlement: "pro", until: nil, reason: "r", operatorName: "mei") }
        refused("more than 5000") {
            _ = try f.ledger.grantBatch(customers: (0...5000).map { "c\($0)" }, entitlement: "pro", until: nil, reason: "r", operatorName: "mei")
        }
        refused("not in the future") {
            _ = try f.ledger.grantBatch(customers: ["a"], entitlement: "pro", until: LedgerFixture.date("2020-01-01T00:00:00Z"), reason: "r", operatorName: "mei")
        }
        refused("customer id 'bad") { _ = try f.ledger.grantBatch(customers: ["bad\u{1b}[2J"], entitlement: "pro", until: nil, reason: "r", operatorName: "mei") }
        #expect(try f.dump() == before)
        // List files: comments and blanks skipped, repeats dropped; a bad line named by number.
        #expect(try GrantBatch.customers(fromList: "# outage list\na\n\n  b  \r\na\n", source: "list.txt") == ["a", "b"])
        refused("list.txt line 2: customer id") { _ = try GrantBatch.customers(fromList: "a\nb\u{202E}c\n", source: "list.txt") }
        refused("list.txt names no customer") { _ = try GrantBatch.customers(fromList: "# nobody\n\n", source: "list.txt") }
        refused("more than 5000 customers (line 5001)") {
            _ = try GrantBatch.customers(fromList: (0...5000).map { "c\($0)" }.joined(separator: "\n"), source: "list.txt")
        }
    }

    @Test(arguments: TestBackend.available) func twoBatchesAtOnceGrantEachCustomerOnce(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let race = try TwoWritersRace(f)
        for round in 0..<12 {
            let ids = (0..<5).map { "r\(round)-\($0)" }
            try Self.customers(f, ids)
            // The two lists overlap on three customers, named in opposite orders.
            let lists = [Array(ids[0..<4]), Array(ids[1..<5].reversed())]
            let results = BatchSlots()
            let outcomes = race.atOnce { ledger, worker in
                results.set(worker, try ledger.grantBatch(customers: lists[worker], entitlement: "pro", until: nil, reason: "outage \(round)",
                                                          operatorName: "op\(worker)"))
            }
            #expect(outcomes == ["done", "done"], "round \(round): \(outcomes)")
            let granted = results.values.flatMap { $0?.granted.map(\.customerId) ?? [] }
            #expect(granted.sorted() == ids, "round \(round): each customer granted once: \(granted)")
            for id in ids {
                #expect(try f.count("SELECT count(*) AS n FROM grants WHERE customer_id = ? AND revoked_at IS NULL", [.text(id)]) == 1, "round \(round) \(id)")
                #expect(try f.count("SELECT count(*) AS n FROM audit_log WHERE action = 'grant' AND target = ?", [.text("customer:\(id)")]) == 1)
            }
        }
        #expect(try f.count("SELECT count(*) AS n FROM audit_log WHERE action = 'grant-batch'") == 24)
        #expect(try AuditLog.verify(f.database).isIntact)
        #expect(try AuditExplanation.grantsAndConflicts(f.database).isExplained)
    }
}

/// Each worker's batch, written from its thread.
final class BatchSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Int: GrantBatch] = [:]
    func set(_ index: Int, _ batch: GrantBatch) { lock.lock(); slots[index] = batch; lock.unlock() }
    var values: [GrantBatch?] { lock.lock(); defer { lock.unlock() }; return [slots[0], slots[1]] }
}
