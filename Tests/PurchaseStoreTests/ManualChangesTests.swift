import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

// Run on every backend (TestBackend.available): SQLite always, PostgreSQL when
// RECEIPTDESK_TEST_POSTGRES_URL names a test server (make test starts one).

@Suite("Grants, revocations, restores and conflict resolution on both backends")
struct ManualChangesTests {
    func active(_ f: BackendLedgerFixture, _ customer: String, _ name: String) throws -> Bool {
        try f.ledger.entitlements(customer, now: f.now).first { $0.name == name }?.isActive ?? false
    }

    @Test(arguments: TestBackend.available) func grantIsIdempotentAndNeedsAReason(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        try f.ledger.addCustomer("alice", isTester: false, operatorName: "mei")
        #expect(throws: StoreError(.invalidInput, "")) {
            try f.ledger.grant(customer: "alice", entitlement: "pro", until: nil, reason: "  ", operatorName: "mei")
        }
        #expect(throws: StoreError(.notFound, "")) {
            try f.ledger.grant(customer: "nobody", entitlement: "pro", until: nil, reason: "goodwill", operatorName: "mei")
        }
        #expect(throws: StoreError(.invalidInput, "")) {
            try f.ledger.grant(customer: "alice", entitlement: "gold", until: nil, reason: "not in catalogue", operatorName: "mei")
        }
        let grant = try f.ledger.grant(customer: "alice", entitlement: "pro", until: LedgerFixture.date("2025-07-01T00:00:00Z"),
                                       reason: "outage goodwill", operatorName: "mei")
        #expect(try active(f, "alice", "pro"))
        let reason = try f.ledger.entitlements("alice", now: f.now).first { $0.name == "pro" }?.reason ?? ""
        #expect(reason.contains("manual grant #\(grant.grantId) by mei"))
        let before = try f.dump()
        #expect(throws: StoreError(.alreadyExists, "")) {
            try f.ledger.grant(customer: "alice", entitlement: "pro", until: nil, reason: "again", operatorName: "li")
        }
        #expect(try f.dump() == before)
        // After it ran out, a new grant is possible.
        f.now = LedgerFixture.date("2025-08-01T00:00:00Z")
        #expect(try !active(f, "alice", "pro"))
        let renewed = try f.ledger.grant(customer: "alice", entitlement: "pro", until: nil, reason: "second goodwill", operatorName: "mei")
        #expect(renewed.grantId != grant.grantId)
        #expect(try active(f, "alice", "pro"))
    }

    @Test(arguments: TestBackend.available) func twoConnectionsGrantingAtOnceMakeOneGrant(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        try f.ledger.addCustomer("alice", isTester: false, operatorName: "mei")
        let outcomes = Outcomes()
        let group = DispatchGroup()
        let location = f.scratch.location
        let trust = f.authority.trustStore()
        for index in 0..<2 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let database = try PurchaseDatabase.open(location)
                    let ledger = PurchaseLedger(database: database, configuration: LedgerFixture.configuration,
                                                verifier: ReceiptVerifier(trust: trust))
                    _ = try ledger.grant(customer: "alice", entitlement: "pro", until: nil, reason: "race \(index)", operatorName: "op\(index)")
                    outcomes.add("granted")
                } catch let error as StoreError {
                    outcomes.add(error.code.rawValue)
                } catch {
                    outcomes.add("other: \(error)")
                }
            }
        }
        group.wait()
        #expect(outcomes.values.sorted() == ["alreadyExists", "granted"])
        #expect(try f.count("SELECT count(*) AS n FROM grants") == 1)
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    @Test(arguments: TestBackend.available) func revokeAGrantOrAPurchasedEntitlement(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("8001", "com.example.pro.lifetime", expires: nil, type: 0)]),
                                        customer: "alice", source: "test", operatorName: "mei")
        #expect(try active(f, "alice", "pro"))
        #expect(throws: StoreError(.invalidInput, "")) {
            try f.ledger.revoke(customer: "alice", entitlement: "pro", reason: "", operatorName: "mei")
        }
        try f.ledger.revoke(customer: "alice", entitlement: "pro", reason: "chargeback fraud", operatorName: "mei")
        #expect(try !active(f, "alice", "pro"))
        #expect(throws: StoreError(.invalidRequest, "")) {
            try f.ledger.revoke(customer: "alice", entitlement: "pro", reason: "again", operatorName: "mei")
        }
        // A manual grant afterwards holds; revoking that grant ends it.
        let grant = try f.ledger.grant(customer: "alice", entitlement: "pro", until: nil, reason: "appeal upheld", operatorName: "li")
        #expect(try active(f, "alice", "pro"))
        try f.ledger.revoke(customer: "alice", grantId: grant.grantId, reason: "appeal reversed", operatorName: "li")
        #expect(try !active(f, "alice", "pro"))
        #expect(throws: StoreError(.alreadyExists, "")) {
            try f.ledger.revoke(customer: "alice", grantId: grant.grantId, reason: "twice", operatorName: "li")
        }
    }

    @Test(arguments: TestBackend.available) func restoreFromAnotherCustomerMovesOwnershipWithBothInTheAudit(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("8101", "com.example.pro.lifetime", expires: nil, type: 0)]),
                                        customer: "old-account", source: "test", operatorName: "mei")
        let preview = try f.ledger.restore(customer: "new-account", fromCustomer: "old-account", reason: "new phone",
                                           operatorName: "mei", dryRun: true)
        #expect(preview.movedTransactions.map(\.transactionId) == ["8101"])
        #expect(try f.ledger.transaction("8101")?.customerId == "old-account", "a dry run changes nothing")
        _ = try f.ledger.restore(customer: "new-account", fromCustomer: "old-account", reason: "new phone", operatorName: "mei")
        #expect(try f.ledger.transaction("8101")?.customerId == "new-account")
        #expect(try active(f, "new-account", "pro"))
        #expect(try !active(f, "old-account", "pro"))
        let actions = try AuditLog.entries(f.database, limit: 2).map { "\($0.action) \($0.target)" }
        #expect(actions == ["restore customer:new-account", "transfer-out customer:old-account"])
    }

    @Test(arguments: TestBackend.available) func restoreFromAReceiptSettlesTheConflict(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let bytes = try f.receipt([LedgerFixture.purchase("8201", "com.example.pro.lifetime", expires: nil, type: 0)])
        _ = try f.ledger.importArtefact(bytes, customer: "old-account", source: "test", operatorName: "mei")
        _ = try f.ledger.importArtefact(bytes, customer: "new-account", source: "test", operatorName: "mei")
        #expect(try f.ledger.conflicts().count == 1)
        let result = try f.ledger.restore(customer: "new-account", receipt: bytes, reason: "restore purchases", operatorName: "mei")
        #expect(result.movedTransactions.map(\.fromCustomer) == ["old-account"])
        #expect(try f.ledger.conflicts().isEmpty)
        #expect(try active(f, "new-account", "pro"))
    }

    @Test(arguments: TestBackend.available) func resolvingAConflictForTheClaimantMovesTheTransaction(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let bytes = try f.receipt([LedgerFixture.purchase("8301", "com.example.pro.lifetime", expires: nil, type: 0)])
        _ = try f.ledger.importArtefact(bytes, customer: "alice", source: "test", operatorName: "mei")
        _ = try f.ledger.importArtefact(bytes, customer: "bob", source: "test", operatorName: "mei")
        let conflict = try #require(try f.ledger.conflicts().first)
        #expect(throws: StoreError(.invalidInput, "")) {
            try f.ledger.resolveConflict(conflict.conflictId, owner: "carol", reason: "x", operatorName: "mei")
        }
        try f.ledger.resolveConflict(conflict.conflictId, owner: "bob", reason: "bob showed the bank statement", operatorName: "mei")
        #expect(try f.ledger.transaction("8301")?.customerId == "bob")
        #expect(try active(f, "bob", "pro"))
        #expect(try !active(f, "alice", "pro"))
        #expect(throws: StoreError(.alreadyExists, "")) {
            try f.ledger.resolveConflict(conflict.conflictId, owner: "alice", reason: "y", operatorName: "mei")
        }
    }
}

/// Thread-safe collection of outcomes from racing threads.
final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ value: String) { lock.lock(); items.append(value); lock.unlock() }
    /// Adds `value` and returns how many values there are now (the count, read under the same lock).
    func addCounting(_ value: String) -> Int { lock.lock(); defer { lock.unlock() }; items.append(value); return items.count }
    var values: [String] { lock.lock(); defer { lock.unlock() }; return items }
}
