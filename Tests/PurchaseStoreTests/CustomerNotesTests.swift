import Foundation
import PurchaseStore
import ReceiptCore
import Testing

// Run on every backend (TestBackend.available): SQLite always, PostgreSQL when
// RECEIPTDESK_TEST_POSTGRES_URL names a test server (make test starts one).

@Suite("Customer notes on both backends")
struct CustomerNotesTests {
    @Test(arguments: TestBackend.available) func aNoteIsStoredListedAndAuditedAsADigest(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        try f.ledger.addCustomer("alice", isTester: false, operatorName: "mei")
        let text = "called 12 May, promised a refund if Apple declines"
        let note = try f.ledger.addNote(customer: "alice", text: "  " + text + " ", operatorName: "mei")
        #expect(note.text == text && note.writtenBy == "mei" && note.writtenAt == f.now)
        let second = try f.ledger.addNote(customer: "alice", text: "Apple declined; refunded by hand", operatorName: "li")
        #expect(try f.ledger.notes(of: "alice").map(\.noteId) == [note.noteId, second.noteId])
        #expect(try f.ledger.customerSummary("alice").notes.map(\.text) == [text, "Apple declined; refunded by hand"])
        // The audit names the note and proves its text with a keyed digest; the text is not in the chain.
        let entries = try f.database.query("SELECT operator, details FROM audit_log WHERE action = 'customer-note' ORDER BY seq", [])
        #expect(entries.map { $0.string("operator") } == ["mei", "li"])
        let details = entries.first?.string("details") ?? ""
        #expect(!details.contains("refund") && details.contains("\"noteId\":\(note.noteId)") && details.contains(PersonalDigest.prefix), "\(details)")
        let key = try #require(try f.database.queryFirst("SELECT digest_key FROM personal_digest_keys WHERE customer_id = 'alice'", [])?.string("digest_key"))
        let keyBytes = stride(from: 0, to: key.count, by: 2).compactMap { offset -> UInt8? in
            let start = key.index(key.startIndex, offsetBy: offset)
            return UInt8(key[start..<key.index(start, offsetBy: 2)], radix: 16)
        }
        #expect(details.contains(PersonalDigest.digest(text, key: keyBytes)), "the digest is HMAC-SHA256 of the text under alice's key")
        #expect(try AuditLog.verify(f.database).isIntact)
        // In the case file, both ways.
        let file = try CaseFile("alice", ledger: f.ledger, generatedBy: "mei", now: f.now)
        #expect(file.markdown.contains("## Notes") && file.markdown.contains("by mei: \(text)"))
        #expect(file.json.serialized().contains("\"text\":\"\(text)\""))
    }

    @Test(arguments: TestBackend.available) func badNotesAreRefusedInOneLineWithNothingWritten(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        try f.ledger.addCustomer("alice", isTester: false, operatorName: "mei")
        let before = try f.dump()
        let refusals: [(String, String, StoreError.Code, String)] = [
            ("alice", "   ", .invalidInput, "the note is empty"),
            ("alice", "line one\nline two", .invalidInput, "holds"),
            ("alice", "evil \u{202E}txt", .invalidInput, "holds"),
            ("alice", String(repeating: "x", count: 2001), .invalidInput, "longer than 2000 bytes"),
            ("nobody", "hello", .notFound, "customer nobody not found"),
        ]
        for (customer, text, code, words) in refusals {
            do {
                try f.ledger.addNote(customer: customer, text: text, operatorName: "mei")
                Issue.record("accepted \(text.prefix(20))")
            } catch let error as StoreError {
                #expect(error.code == code && error.reason.contains(words) && !error.reason.contains("\n"), "\(error.reason)")
            }
        }
        #expect(try f.dump() == before, "a refused note writes nothing")
    }

    @Test(arguments: TestBackend.available) func twoOperatorsWritingAtOnceEachGetTheirNote(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend)
        let race = try TwoWritersRace(f)
        for round in 0..<20 {
            try f.ledger.addCustomer("c\(round)", isTester: false, operatorName: "mei")
            let outcomes = race.atOnce { ledger, worker in
                try ledger.addNote(customer: "c\(round)", text: "round \(round) by op\(worker)", operatorName: "op\(worker)")
            }
            #expect(outcomes == ["done", "done"], "round \(round): \(outcomes)")
            #expect(Set(try f.ledger.notes(of: "c\(round)").compactMap(\.text)) == ["round \(round) by op0", "round \(round) by op1"])
            #expect(try f.count("SELECT count(*) AS n FROM audit_log WHERE action = 'customer-note' AND target = ?", [.text("customer:c\(round)")]) == 2)
            #expect(try f.count("SELECT count(*) AS n FROM personal_digest_keys WHERE customer_id = ?", [.text("c\(round)")]) == 1,
                    "one key per customer, however many write at once")
        }
        #expect(try AuditLog.verify(f.database).isIntact)
    }
}
