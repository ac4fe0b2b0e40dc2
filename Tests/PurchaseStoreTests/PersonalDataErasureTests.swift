import Foundation
import PurchaseStore
import ReceiptCore
import Testing

// Run on every backend (TestBackend.available): SQLite always, PostgreSQL when
// RECEIPTDESK_TEST_POSTGRES_URL names a test server (make test starts one).

/// Erasing a customer's personal data on request: name, email, notes' text, receipts' bytes and
/// the digest key go; money facts stay; the audit chain still verifies and never held the values.
@Suite("Personal data erasure on both backends")
struct PersonalDataErasureTests {
    static let email = "alice.martin@example.com"

    /// alice with a name, an email, a note, a receipt and a grant.
    static func alice(_ f: BackendLedgerFixture) throws {
        try f.ledger.addCustomer("alice", isTester: false, contact: CustomerContact(displayName: "Alice Martin", email: email), operatorName: "mei")
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase("t1")]), customer: "alice", source: "app", operatorName: "mei")
        try f.ledger.addNote(customer: "alice", text: "Alice Martin called from +33 6 12 34 56 78", operatorName: "mei")
        try f.ledger.grant(customer: "alice", entitlement: "coins", until: nil, reason: "sorry", operatorName: "li")
    }

    static func moneyFacts(_ f: BackendLedgerFixture) throws -> String {
        try ["transactions", "orders", "grants", "entitlements", "conflicts"].map { table in
            try f.database.query("SELECT * FROM \(table) ORDER BY 1", []).map { row in
                row.columns.indices.filter { row.columns[$0] != "computed_at" }.map { "\(row.columns[$0])=\(row.values[$0])" }.joined(separator: "|")
            }.joined(separator: "\n")
        }.joined(separator: "\n==\n")
    }

    @Test(arguments: TestBackend.available) func personalDataGoesMoneyFactsStayAndTheChainVerifies(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        try Self.alice(f)
        let audit = try f.database.query("SELECT details FROM audit_log", []).compactMap { $0.string("details") }.joined()
        #expect(!audit.contains(Self.email) && !audit.contains("Alice Martin"), "the chain holds keyed digests, never the values")
        // Apple's stored answer about alice's receipt, as a re-verification keeps it.
        let receiptId = try #require(try f.database.queryFirst("SELECT receipt_id FROM receipts WHERE customer_id = 'alice'", [])?.int("receipt_id"))
        try f.database.writeTransaction {
            try f.database.execute("""
                INSERT INTO reverifications (receipt_id, verified_at, operator, outcome, summary, differences, applied, raw_answer)
                VALUES (?, ?, 'mei', 'verified', 'status 0', '[]', '[]', '{"receipt":{"unique_vendor_identifier":"5E3A-DEVICE"}}')
                """, [.integer(receiptId), .date(f.now)])
        }
        let before = try f.dump()
        let money = try Self.moneyFacts(f)
        let preview = try f.ledger.planErasure(customer: "alice")
        #expect(try f.dump() == before, "a preview writes nothing")
        #expect(preview.fields == ["display name", "email"] && preview.notes == 1 && preview.receipts.count == 1 && preview.digestKey && !preview.applied)
        #expect(preview.clearAuditEntries.isEmpty && preview.appleAnswers == 1)
        let erased = try f.ledger.erasePersonalData(customer: "alice", reason: "GDPR request, ticket 991", operatorName: "mei")
        #expect(erased.applied && erased.fields == preview.fields && erased.receipts == preview.receipts)
        let after = try f.dump()
        #expect(!after.contains(Self.email) && !after.contains("Alice Martin") && !after.contains("+33 6") && !after.contains("5E3A-DEVICE"),
                "no value is left in any table")
        #expect(try f.count("SELECT count(*) AS n FROM reverifications WHERE summary = 'status 0'") == 1, "the answer's outcome stays")
        #expect(try Self.moneyFacts(f) == money, "transactions, prices, dates, grants and entitlements are untouched")
        #expect(try f.count("SELECT count(*) AS n FROM personal_digest_keys") == 0)
        #expect(try f.count("SELECT count(*) AS n FROM receipts WHERE customer_id = 'alice' AND erased_at IS NOT NULL") == 1)
        let summary = try f.ledger.customerSummary("alice")
        #expect(summary.displayName == nil && summary.email == nil && summary.erasedAt == f.now && summary.erasedBy == "mei")
        #expect(summary.notes.count == 1 && summary.notes.first?.text == nil && summary.notes.first?.writtenBy == "mei", "the note's author and date stay")
        #expect(try Browser(f.database).page(.customers, filter: try BrowseFilter(parsing: "martin"), cursor: .first, limit: 10).rows.isEmpty,
                "search no longer finds them by name")
        #expect(try f.ledger.receiptIds(customer: "alice").isEmpty && f.ledger.receiptIds(customer: nil).isEmpty,
                "re-verification leaves erased receipts alone")
        #expect(try AuditLog.verify(f.database).isIntact, "nothing hashed was rewritten")
        #expect(try AuditExplanation.grantsAndConflicts(f.database).isExplained)
        let entry = try #require(try f.database.queryFirst("SELECT details FROM audit_log WHERE action = 'customer-erase'", [])?.string("details"))
        #expect(entry.contains("GDPR request, ticket 991") && entry.contains("\"fields\":[\"display name\",\"email\"]"), "\(entry)")
        let file = try CaseFile("alice", ledger: f.ledger, generatedBy: "mei", now: f.now)
        #expect(file.markdown.contains("Personal data erased") && file.markdown.contains("(erased with the customer's personal data)"))
        // Nothing left: a second erasure is refused with nothing written.
        let done = try f.dump()
        #expect(throws: StoreError(.alreadyExists, "")) { try f.ledger.erasePersonalData(customer: "alice", reason: "again", operatorName: "li") }
        #expect(try f.dump() == done)
    }

    @Test(arguments: TestBackend.available) func entriesFromBeforeDigestsAreNamedNotRewritten(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        try f.ledger.addCustomer("bob", isTester: false, operatorName: "mei")
        // An entry as receiptdesk wrote them before migration 0014: the email in clear.
        let old = try f.database.writeTransaction {
            try AuditLog.append(f.database, at: f.now, operatorName: "mei", action: "customer-contact", target: "customer:bob",
                                details: .object([("displayName", .null), ("email", .string("bob@example.com"))]))
        }
        try f.ledger.setContact("bob", CustomerContact(email: "bob@example.com"), operatorName: "mei")
        let plan = try f.ledger.planErasure(customer: "bob")
        #expect(plan.clearAuditEntries == [old.seq], "the newer entry holds a digest; only the old one quotes the email")
        #expect(plan.lines.contains { $0.contains("#\(old.seq)") && $0.contains("the append-only chain keeps them") })
        try f.ledger.erasePersonalData(customer: "bob", reason: "request", operatorName: "mei")
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    @Test(arguments: TestBackend.available) func badRequestsAreRefusedInOneLine(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        try Self.alice(f)
        let before = try f.dump()
        #expect(throws: StoreError(.invalidInput, "")) { try f.ledger.erasePersonalData(customer: "alice", reason: "  ", operatorName: "mei") }
        #expect(throws: StoreError(.notFound, "")) { try f.ledger.erasePersonalData(customer: "nobody", reason: "request", operatorName: "mei") }
        #expect(throws: StoreError(.notFound, "")) { try f.ledger.planErasure(customer: "nobody") }
        #expect(try f.dump() == before)
    }

    @Test(arguments: TestBackend.available) func twoOperatorsErasingAtOnceEraseOnce(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let race = try TwoWritersRace(f)
        for round in 0..<15 {
            let id = "c\(round)"
            try f.ledger.addCustomer(id, isTester: false, contact: CustomerContact(displayName: "Person \(round)", email: "p\(round)@example.com"),
                                     operatorName: "mei")
            try f.ledger.addNote(customer: id, text: "note \(round)", operatorName: "mei")
            let outcomes = race.atOnce { ledger, worker in
                try ledger.erasePersonalData(customer: id, reason: "request \(round)", operatorName: "op\(worker)")
            }
            #expect(outcomes.sorted() == ["alreadyExists", "done"], "round \(round): \(outcomes)")
            #expect(try f.count("SELECT count(*) AS n FROM audit_log WHERE action = 'customer-erase' AND target = ?", [.text("customer:\(id)")]) == 1)
            #expect(try f.ledger.customerSummary(id).email == nil)
        }
        #expect(try AuditLog.verify(f.database).isIntact)
    }
}
