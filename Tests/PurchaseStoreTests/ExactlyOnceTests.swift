import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// Every read-then-write of the ledger, done by two operators at the same moment, 50 times on
/// each backend: one of them changes the ledger, the other is refused with nothing written, and
/// the stored rows and the audit log tell the same story every time.
@Suite("Two operators, one change: exactly once, both backends")
struct ExactlyOnceTests {
    static let rounds = 50

    /// Outcomes of a round, sorted, so the test does not care who won.
    static func sorted(_ outcomes: [String]) -> [String] { outcomes.sorted() }

    static func auditCount(_ f: BackendLedgerFixture, _ action: String, target: String) throws -> Int64 {
        try f.count("SELECT count(*) AS n FROM audit_log WHERE action = ? AND target = ?", [.text(action), .text(target)])
    }

    @Test(arguments: TestBackend.available)
    func twoRevokesOfOneGrantRevokeItOnce(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let race = try TwoWritersRace(f)
        for round in 0..<Self.rounds {
            let customer = "rev-\(round)"
            try f.ledger.addCustomer(customer, isTester: false, operatorName: "mei")
            let grant = try f.ledger.grant(customer: customer, entitlement: "pro", until: nil, reason: "goodwill", operatorName: "mei")
            let outcomes = race.atOnce { ledger, worker in
                try ledger.revoke(customer: customer, grantId: grant.grantId, reason: "chargeback \(worker)", operatorName: "op\(worker)")
            }
            #expect(Self.sorted(outcomes) == ["alreadyExists", "done"], "round \(round): \(outcomes)")
            let winner = outcomes.firstIndex(of: "done").map { "op\($0)" }
            let row = try #require(try f.database.queryFirst("SELECT revoked_by, revoke_reason FROM grants WHERE grant_id = ?", [.integer(grant.grantId)]))
            #expect(row.string("revoked_by") == winner, "round \(round): the row names the operator whose revoke was audited")
            #expect(try Self.auditCount(f, "revoke", target: "customer:\(customer)") == 1, "round \(round)")
            let audited = try f.database.queryFirst("SELECT operator FROM audit_log WHERE action = 'revoke' AND target = ?", [.text("customer:\(customer)")])
            #expect(audited?.string("operator") == winner, "round \(round)")
        }
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    @Test(arguments: TestBackend.available)
    func twoRevokesOfOneEntitlementRevokeItOnce(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let race = try TwoWritersRace(f)
        for round in 0..<Self.rounds {
            let customer = "ent-\(round)"
            _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("ent-tx-\(round)", "com.example.pro.lifetime", expires: nil, type: 0)]),
                                            customer: customer, source: "test", operatorName: "mei")
            let outcomes = race.atOnce { ledger, worker in
                try ledger.revoke(customer: customer, entitlement: "pro", reason: "chargeback \(worker)", operatorName: "op\(worker)")
            }
            #expect(Self.sorted(outcomes) == ["done", "invalidRequest"], "round \(round): \(outcomes)")
            #expect(try f.count("SELECT count(*) AS n FROM revocations WHERE customer_id = ?", [.text(customer)]) == 1, "round \(round)")
            #expect(try Self.auditCount(f, "revoke", target: "customer:\(customer)") == 1, "round \(round)")
        }
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    /// The worst case: the two operators name different owners.
    @Test(arguments: TestBackend.available)
    func twoResolutionsOfOneConflictResolveItOnce(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let race = try TwoWritersRace(f)
        for round in 0..<Self.rounds {
            let transaction = "conf-tx-\(round)", owner = "owner-\(round)", claimant = "claimant-\(round)"
            let receipt = try f.receipt([LedgerFixture.purchase(transaction, "com.example.pro.lifetime", expires: nil, type: 0)])
            _ = try f.ledger.importArtefact(receipt, customer: owner, source: "test", operatorName: "mei")
            _ = try f.ledger.importArtefact(receipt, customer: claimant, source: "test", operatorName: "mei")
            let conflict = try #require(try f.ledger.conflicts().first { $0.transactionId == transaction })
            let outcomes = race.atOnce { ledger, worker in
                try ledger.resolveConflict(conflict.conflictId, owner: worker == 0 ? claimant : owner, reason: "ticket \(worker)",
                                           operatorName: "op\(worker)")
            }
            #expect(Self.sorted(outcomes) == ["alreadyExists", "done"], "round \(round): \(outcomes)")
            let row = try #require(try f.database.queryFirst("SELECT status, resolved_owner, resolved_by FROM conflicts WHERE conflict_id = ?",
                                                             [.integer(conflict.conflictId)]))
            let stored = try #require(try f.ledger.transaction(transaction))
            #expect(row.string("status") == "resolved" && row.string("resolved_owner") == stored.customerId,
                    "round \(round): the conflict names the owner the transaction has (\(row.string("resolved_owner") ?? "?") vs \(stored.customerId))")
            let entitlementOwners = try f.database.query("SELECT customer_id FROM entitlements WHERE transaction_id = ?", [.text(transaction)])
                .compactMap { $0.string("customer_id") }
            #expect(entitlementOwners == [stored.customerId], "round \(round): \(entitlementOwners)")
            #expect(try Self.auditCount(f, "conflict-resolve", target: "transaction:\(transaction)") == 1, "round \(round)")
            let audited = try f.database.queryFirst("SELECT operator FROM audit_log WHERE action = 'conflict-resolve' AND target = ?",
                                                    [.text("transaction:\(transaction)")])
            #expect(audited?.string("operator") == row.string("resolved_by"), "round \(round)")
        }
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    /// Two new accounts restoring the same old account's purchases at once: one gets them.
    @Test(arguments: TestBackend.available)
    func twoRestoresFromOneCustomerMoveEachPurchaseOnce(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let race = try TwoWritersRace(f)
        for round in 0..<Self.rounds {
            let old = "old-\(round)"
            let ids = ["rst-\(round)-a", "rst-\(round)-b"]
            _ = try f.ledger.importArtefact(try f.receipt(ids.map { LedgerFixture.purchase($0, "com.example.pro.lifetime", expires: nil, type: 0) }),
                                            customer: old, source: "test", operatorName: "mei")
            let outcomes = race.atOnce { ledger, worker in
                _ = try ledger.restore(customer: "new-\(round)-\(worker)", fromCustomer: old, reason: "new phone \(worker)", operatorName: "op\(worker)")
            }
            #expect(Self.sorted(outcomes) == ["done", "invalidRequest"], "round \(round): \(outcomes)")
            let winner = try #require(outcomes.firstIndex(of: "done"))
            for id in ids {
                #expect(try f.ledger.transaction(id)?.customerId == "new-\(round)-\(winner)", "round \(round)")
                #expect(try f.count("SELECT count(*) AS n FROM transfers WHERE transaction_id = ?", [.text(id)]) == 1, "round \(round)")
            }
            #expect(try Self.auditCount(f, "transfer-out", target: "customer:\(old)") == 1, "round \(round)")
        }
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    @Test(arguments: TestBackend.available)
    func twoFailedPaymentsOfOneOrderAreRecordedOnce(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let race = try TwoWritersRace(f)
        for round in 0..<Self.rounds {
            let order = "ord-\(round)"
            try f.ledger.createOrder(order, customer: "buyer-\(round)", product: "com.example.pro.monthly", operatorName: "mei")
            let outcomes = race.atOnce { ledger, worker in
                _ = try ledger.recordFailedPayment(order, reason: "card declined \(worker)", operatorName: "op\(worker)")
            }
            #expect(Self.sorted(outcomes) == ["alreadyExists", "done"], "round \(round): \(outcomes)")
            let winner = try #require(outcomes.firstIndex(of: "done"))
            #expect(try f.ledger.order(order)?.failureReason == "card declined \(winner)", "round \(round)")
            #expect(try Self.auditCount(f, "order-fail", target: "order:\(order)") == 1, "round \(round)")
        }
        #expect(try AuditLog.verify(f.database).isIntact)
    }
}
