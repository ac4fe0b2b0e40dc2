import Foundation
import PurchaseStore
import ReceiptCore
import Testing

/// The entitlement rows a refresh leaves are exactly the computed ones, however the customer got
/// there, and a refresh writes only the rows whose content changed.
@Suite("Entitlement rows written by difference")
struct EntitlementRowsTests {
    /// The customer's rows without `computed_at`, sorted: what the table says they hold.
    func stored(_ f: LedgerFixture, _ customer: String) throws -> [String] {
        try f.database.query("""
            SELECT entitlement, source, transaction_id, grant_id, starts_at, ends_at, units, active, revoked, revoked_by, reason, flags
            FROM entitlements WHERE customer_id = ?
            """, [.text(customer)]).map { row in row.values.map { "\($0)" }.joined(separator: "|") }.sorted()
    }

    /// The rows a from-scratch computation gives at the fixture's `now`, in the same form.
    func computed(_ f: LedgerFixture, _ customer: String) throws -> [String] {
        try f.ledger.entitlements(customer, now: f.now).flatMap { state in
            state.sources.map { source -> String in
                let values: [SQLValue] = [
                    .text(state.name), .text(source.kind.rawValue), .text(source.transactionId), .integer(source.grantId),
                    .date(source.starts), .date(source.ends), .integer(source.units), .bool(source.isActive),
                    .bool(source.flags.contains { $0.hasPrefix("revoked") }),
                    .text(source.flags.first { $0.hasPrefix("revoked by ") }.map { String($0.dropFirst("revoked by ".count)) }),
                    .text(source.reason), .text(source.flags.joined(separator: ", ")),
                ]
                return values.map { "\($0)" }.joined(separator: "|")
            }
        }.sorted()
    }

    func computedAt(_ f: LedgerFixture, _ customer: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try f.database.query("SELECT transaction_id, computed_at FROM entitlements WHERE customer_id = ? AND transaction_id IS NOT NULL",
                                        [.text(customer)]) {
            result[row.string("transaction_id") ?? ""] = row.string("computed_at")
        }
        return result
    }

    @Test func rowsMatchAFullRecomputationThroughImportsGrantsRevocationsAndRestores() throws {
        let f = try LedgerFixture()
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("5001"),
                                                       LedgerFixture.purchase("5002", "com.example.coins.100", expires: nil, type: 1)],
                                                      originalAppVersion: "40"),
                                        customer: "alice", source: "test", operatorName: "mei")
        #expect(try stored(f, "alice") == computed(f, "alice"))
        #expect(try stored(f, "alice").filter { $0.contains("5001") || $0.contains("5002") || $0.contains("legacy-paid") }.count == 3,
                "a row per purchase and one for the paid-to-free rule")

        f.now = LedgerFixture.date("2025-06-02T12:00:00Z")
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("5003", "com.example.coins.100", expires: nil, type: 1)]),
                                        customer: "alice", source: "test", operatorName: "mei")
        #expect(try stored(f, "alice") == computed(f, "alice"))

        let grant = try f.ledger.grant(customer: "alice", entitlement: "pro", until: LedgerFixture.date("2025-09-01T00:00:00Z"),
                                       reason: "goodwill", operatorName: "mei")
        #expect(try stored(f, "alice") == computed(f, "alice"))
        _ = try f.ledger.revoke(customer: "alice", grantId: grant.grantId, reason: "mistake", operatorName: "mei")
        #expect(try stored(f, "alice") == computed(f, "alice"))
        _ = try f.ledger.revoke(customer: "alice", entitlement: "pro", reason: "chargeback", operatorName: "li")
        #expect(try stored(f, "alice") == computed(f, "alice"))

        // Time passes: the subscription expires and the next refresh turns its row inactive.
        f.now = LedgerFixture.date("2025-08-01T00:00:00Z")
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("5004", "com.example.coins.100", expires: nil, type: 1)]),
                                        customer: "alice", source: "test", operatorName: "mei")
        #expect(try stored(f, "alice") == computed(f, "alice"))

        // Ownership moves: the old owner's rows go, the new owner's appear.
        _ = try f.ledger.restore(customer: "bob", fromCustomer: "alice", transactionIds: ["5001"], reason: "new account",
                                 operatorName: "mei")
        #expect(try stored(f, "alice") == computed(f, "alice"))
        #expect(try stored(f, "bob") == computed(f, "bob"))
        #expect(try !stored(f, "alice").contains { $0.contains("5001") })
        #expect(try stored(f, "bob").contains { $0.contains("5001") })
    }

    @Test func aRefreshRewritesOnlyRowsThatChanged() throws {
        let f = try LedgerFixture()
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("6001", expires: "2025-06-15T00:00:00Z"),
                                                       LedgerFixture.purchase("6002", "com.example.coins.100", expires: nil, type: 1)]),
                                        customer: "carol", source: "test", operatorName: "mei")
        let first = try computedAt(f, "carol")
        // Later, while the subscription still holds: the new coin pack is the only row written.
        f.now = LedgerFixture.date("2025-06-10T00:00:00Z")
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("6003", "com.example.coins.100", expires: nil, type: 1)]),
                                        customer: "carol", source: "test", operatorName: "mei")
        let second = try computedAt(f, "carol")
        #expect(second["6001"] == first["6001"] && second["6002"] == first["6002"], "unchanged rows are not rewritten")
        #expect(second["6003"] == StoreDates.format(f.now))
        // After the expiry the subscription's row changes, so it is written again.
        f.now = LedgerFixture.date("2025-07-01T00:00:00Z")
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("6004", "com.example.coins.100", expires: nil, type: 1)]),
                                        customer: "carol", source: "test", operatorName: "mei")
        let third = try computedAt(f, "carol")
        #expect(third["6001"] == StoreDates.format(f.now))
        #expect(third["6002"] == first["6002"])
        #expect(try stored(f, "carol") == computed(f, "carol"))
    }

    @Test func storedDuplicateKeysAreRepairedByARewrite() throws {
        let f = try LedgerFixture()
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("7001")]), customer: "dave", source: "test", operatorName: "mei")
        // A row written twice by hand (an older binary, an operator's SQL): the next refresh cleans it up.
        try f.database.execute("INSERT INTO entitlements SELECT * FROM entitlements WHERE customer_id = 'dave' AND transaction_id = '7001'", [])
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("7002", "com.example.coins.100", expires: nil, type: 1)]),
                                        customer: "dave", source: "test", operatorName: "mei")
        #expect(try stored(f, "dave") == computed(f, "dave"))
    }
}
