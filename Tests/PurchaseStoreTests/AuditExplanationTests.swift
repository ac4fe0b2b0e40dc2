import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

// Run on every backend (TestBackend.available): SQLite always, PostgreSQL when
// RECEIPTDESK_TEST_POSTGRES_URL names a test server (make test starts one).

/// Every grant, conflict and entitlement row receiptdesk writes is explained by the audit log;
/// rows written or edited past it are named.
@Suite("Audit: rows the log explains, on both backends")
struct AuditExplanationTests {
    /// kim: a grant revoked, one that ran out (closed as `ended` by the next), one in force;
    /// henry's purchase claimed by irene and the conflict resolved; jack with nothing.
    func populated(_ backend: TestBackend) throws -> BackendLedgerFixture {
        let f = try BackendLedgerFixture(backend, now: "2025-06-01T12:00:00Z")
        try f.ledger.addCustomer("jack", isTester: false, operatorName: "mei")
        try f.ledger.addCustomer("kim", isTester: false, operatorName: "mei")
        let first = try f.ledger.grant(customer: "kim", entitlement: "pro", until: nil, reason: "beta", operatorName: "mei")
        try f.ledger.revoke(customer: "kim", grantId: first.grantId, reason: "beta over", operatorName: "mei")
        _ = try f.ledger.grant(customer: "kim", entitlement: "pro", until: f.now.addingTimeInterval(86_400), reason: "a day", operatorName: "mei")
        f.now = f.now.addingTimeInterval(2 * 86_400)
        _ = try f.ledger.grant(customer: "kim", entitlement: "pro", until: nil, reason: "again", operatorName: "mei")
        let receipt = try f.receipt([LedgerFixture.purchase("8001")])
        _ = try f.ledger.importArtefact(receipt, customer: "henry", source: "test", operatorName: "mei")
        _ = try f.ledger.importArtefact(receipt, customer: "irene", source: "test", operatorName: "mei")
        try f.ledger.resolveConflict(1, owner: "irene", reason: "Apple ID moved", operatorName: "mei")
        return f
    }

    func problems(_ f: BackendLedgerFixture) throws -> [String] {
        try AuditExplanation.grantsAndConflicts(f.database).problems + f.ledger.recheckEntitlements(now: f.now).problems
    }

    @Test(arguments: TestBackend.available) func whatReceiptdeskWritesIsExplained(_ backend: TestBackend) throws {
        let f = try populated(backend)
        let rows = try AuditExplanation.grantsAndConflicts(f.database)
        #expect(rows.problems == [])
        #expect(rows.checked["grants"] == 3 && rows.checked["conflicts"] == 1)
        let entitlements = try f.ledger.recheckEntitlements(now: f.now)
        #expect(entitlements.problems == [])
        #expect((entitlements.checked["entitlements"] ?? 0) >= 4)
        // Later, with subscriptions and grants run out since their last refresh: still explained.
        #expect(try f.ledger.recheckEntitlements(now: f.now.addingTimeInterval(20 * 365 * 86_400)).problems == [])
    }

    @Test(arguments: TestBackend.available) func grantRowsWrittenOrEditedPastTheLogAreNamed(_ backend: TestBackend) throws {
        let f = try populated(backend)
        _ = try f.database.execute("""
            INSERT INTO grants (customer_id, entitlement, starts_at, ends_at, reason, granted_by, granted_at)
            VALUES ('jack', 'pro', '2025-01-01T00:00:00.000Z', NULL, 'friend', 'mallory', '2025-01-01T00:00:00.000Z')
            """, [])
        // The grant in force closed, the revoked one put back in force.
        _ = try f.database.execute("UPDATE grants SET revoked_at = '2025-06-02T00:00:00.000Z', revoked_by = 'mallory', revoke_reason = 'x' WHERE grant_id = 3", [])
        _ = try f.database.execute("UPDATE grants SET revoked_at = NULL, revoked_by = NULL, revoke_reason = NULL WHERE grant_id = 1", [])
        let found = try problems(f)
        #expect(found.contains("grant #4 (customer jack, pro) has no `grant` audit entry: it was written outside receiptdesk"), "\(found)")
        #expect(found.contains { $0.hasPrefix("grant #1 (customer kim, pro) is in force, but audit entry ") && $0.hasSuffix(" revoked it: the row was edited") },
                "\(found)")
        #expect(found.contains("grant #3 (customer kim, pro) is revoked, but no `revoke` audit entry names it: the row was edited"), "\(found)")
        #expect(found.contains("entitlement row (customer jack, pro via grant #4) is missing: the ledger holds its source, so a row was deleted or the source was written outside receiptdesk"),
                "\(found)")
        _ = try f.database.execute("DELETE FROM grants WHERE grant_id = 3", [])
        #expect(try AuditExplanation.grantsAndConflicts(f.database).problems.contains {
            $0.hasSuffix("granted #3 (customer kim, pro), which the grants table no longer holds: the row was deleted")
        })
    }

    @Test(arguments: TestBackend.available) func conflictRowsWrittenOrEditedPastTheLogAreNamed(_ backend: TestBackend) throws {
        let f = try populated(backend)
        _ = try f.database.execute("""
            INSERT INTO conflicts (transaction_id, owner_customer_id, claimant_customer_id, opened_at, status)
            VALUES ('8001', 'irene', 'jack', '2025-06-01T00:00:00.000Z', 'open')
            """, [])
        _ = try f.database.execute("UPDATE conflicts SET status = 'open' WHERE conflict_id = 1", [])
        let found = try AuditExplanation.grantsAndConflicts(f.database).problems
        #expect(found.contains { $0.hasPrefix("conflict #") && $0.contains("(transaction 8001 claimed by jack) has no `import` audit entry of jack that opened it") },
                "\(found)")
        #expect(found.contains { $0.hasPrefix("conflict #1 (transaction 8001 claimed by irene) is open, but audit entry ") }, "\(found)")
    }

    @Test(arguments: TestBackend.available) func anEditedEntitlementRowIsNamed(_ backend: TestBackend) throws {
        let f = try populated(backend)
        #expect(try f.count("SELECT COUNT(*) AS n FROM entitlements WHERE customer_id = 'kim' AND grant_id = 1 AND active = 0") == 1)
        _ = try f.database.execute("UPDATE entitlements SET active = 1 WHERE customer_id = 'kim' AND grant_id = 1", [])
        let found = try f.ledger.recheckEntitlements(now: f.now).problems
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.hasPrefix("entitlement row (customer kim, pro via grant #1) differs from its recomputation (stored: active, ") == true,
                "\(found)")
    }
}
