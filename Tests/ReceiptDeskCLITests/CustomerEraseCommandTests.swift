import Foundation
import ReceiptCore
import Testing

/// `receiptdesk customer erase ID --reason TEXT [--yes]`: a preview that writes nothing, then the
/// erasure; the email is nowhere in the database afterwards, the purchase stays, `audit --verify`
/// still passes; bad input is one line.
@Suite("customer erase")
struct CustomerEraseCommandTests {
    @Test func aPreviewThenTheErasureAndTheAuditStillVerifies() throws {
        let workspace = try LedgerWorkspace()
        let receipt = try workspace.receipt("r.b64", [LedgerWorkspace.purchase("5000000101")])
        #expect(try workspace.run(["import", receipt, "--customer", "carol", "--customer-name", "Carol Shaw", "--customer-email", "carol@example.com"]).status == 0)
        #expect(try workspace.run(["customer", "note", "add", "carol", "Carol Shaw asked for her data to be erased"]).status == 0)
        let preview = try workspace.run(["customer", "erase", "carol", "--reason", "GDPR request, ticket 991"])
        #expect(preview.status == 0 && preview.stdout.hasPrefix("erases the personal data of customer carol:\n  fields: display name, email\n"), "\(preview.stdout)\(preview.stderr)")
        #expect(preview.stdout.contains("  raw bytes of 1 receipt (device identifiers): #1\n") && preview.stdout.hasSuffix("nothing written: run it again with --yes to erase\n"))
        #expect(try workspace.count("SELECT count(*) FROM customers WHERE email IS NOT NULL") == 1, "the preview wrote nothing")
        let erased = try workspace.run(["customer", "erase", "carol", "--reason", "GDPR request, ticket 991", "--yes", "--json"]).jsonObject()
        #expect(erased["applied"] as? Bool == true && erased["fields"] as? [String] == ["display name", "email"])
        let everything = try workspace.sql("SELECT * FROM customers; SELECT * FROM customer_notes; SELECT * FROM audit_log; SELECT quote(raw) FROM receipts").joined(separator: "\n")
        #expect(!everything.contains("carol@example.com") && !everything.contains("Carol Shaw"), "\(everything)")
        #expect(try workspace.count("SELECT count(*) FROM transactions WHERE transaction_id = '5000000101' AND customer_id = 'carol'") == 1, "the purchase stays")
        let verify = try workspace.run(["audit", "--verify"])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let show = try workspace.run(["customer", "show", "carol"])
        #expect(show.stdout.contains("  personal data erased ") && show.stdout.contains("tester: (erased)"), "\(show.stdout)")
        expectFailure(try workspace.run(["customer", "erase", "carol", "--reason", "again", "--yes"]), 65, "customer carol holds no personal data to erase")
    }

    @Test func badInputIsOneLine() throws {
        let workspace = try LedgerWorkspace()
        #expect(try workspace.run(["customer", "add", "carol", "--email", "carol@example.com"]).status == 0)
        expectFailure(try workspace.run(["customer", "erase", "carol", "--yes"]), 64, "customer erase needs --reason TEXT")
        expectFailure(try workspace.run(["customer", "erase", "carol", "--reason", " "]), 64, "a reason is required")
        expectFailure(try workspace.run(["customer", "erase", "--reason", "r"]), 64, "customer erase needs ID")
        expectFailure(try workspace.run(["customer", "erase", "carl", "--reason", "r", "--yes"]), 65, "customer carl not found")
        #expect(try workspace.count("SELECT count(*) FROM customers WHERE email IS NOT NULL") == 1)
    }
}
