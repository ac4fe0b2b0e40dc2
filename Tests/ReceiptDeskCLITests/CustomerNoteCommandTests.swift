import Foundation
import ReceiptCore
import Testing

/// `receiptdesk customer note add ID TEXT` / `customer note list ID`: the note is in customer
/// show, its JSON and the case file; bad input is one line with exit 64 or 65.
@Suite("customer note")
struct CustomerNoteCommandTests {
    @Test func aNoteIsAddedListedShownAndInTheCaseFile() throws {
        let workspace = try LedgerWorkspace()
        #expect(try workspace.run(["customer", "add", "carol"]).status == 0)
        let text = "called 12 May, promised a refund if Apple declines"
        let added = try workspace.run(["customer", "note", "add", "carol", text])
        #expect(added.status == 0 && added.stdout == "note #1 added to customer carol by tester\n", "\(added.stdout)\(added.stderr)")
        let list = try workspace.run(["customer", "note", "list", "carol", "--json"]).jsonArray()
        #expect(list.first?["text"] as? String == text && list.first?["writtenBy"] as? String == "tester")
        let show = try workspace.run(["customer", "show", "carol"])
        #expect(show.stdout.contains("notes:\n  #1  ") && show.stdout.contains("tester: \(text)"), "\(show.stdout)")
        let json = try workspace.run(["customer", "show", "carol", "--json"]).jsonObject()
        #expect(((json["notes"] as? [[String: Any]])?.first?["text"] as? String) == text)
        let file = try workspace.run(["customer", "export", "carol"])
        #expect(file.stdout.contains("## Notes") && file.stdout.contains("by tester: \(text)") && file.stdout.contains("| customer-note |"))
        #expect(!(try workspace.sql("SELECT details FROM audit_log WHERE action = 'customer-note'").joined().contains("refund")),
                "the audit log holds a digest of the note, not its text")
        #expect(try workspace.run(["audit", "--verify"]).status == 0)
    }

    @Test func badInputIsOneLine() throws {
        let workspace = try LedgerWorkspace()
        #expect(try workspace.run(["customer", "add", "carol"]).status == 0)
        expectFailure(try workspace.run(["customer", "note", "add", "carol"]), 64, "customer note add needs ID and TEXT")
        expectFailure(try workspace.run(["customer", "note", "add", "carol", "  "]), 64, "the note is empty")
        expectFailure(try workspace.run(["customer", "note", "add", "carl", "hello"]), 65, "customer carl not found")
        expectFailure(try workspace.run(["customer", "note", "add", "carol", String(repeating: "é", count: 1001)]), 64, "longer than 2000 bytes")
        expectFailure(try workspace.run(["customer", "note", "delete", "carol"]), 64, "unknown customer note subcommand 'delete'")
        #expect(try workspace.count("SELECT count(*) FROM customer_notes") == 0)
    }
}
