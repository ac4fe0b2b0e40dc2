import Foundation
import ReceiptCore
import Testing

/// `receiptdesk customer export ID [--json]`: the case file for a ticket on the command line.
@Suite("customer export")
struct CaseFileCommandTests {
    @Test func aCaseFileIsMarkdownOrJSONAndAnUnknownCustomerIsRefused() throws {
        let workspace = try LedgerWorkspace()
        let receipt = try workspace.receipt("r.b64", [LedgerWorkspace.purchase("5000000101")])
        #expect(try workspace.run(["import", receipt, "--customer", "carol", "--customer-name", "Carol Shaw", "--customer-email", "carol@example.com"]).status == 0)
        let markdown = try workspace.run(["customer", "export", "carol"])
        #expect(markdown.status == 0, "\(markdown.stderr)")
        #expect(markdown.stdout.hasPrefix("# Customer carol\n"), "\(markdown.stdout)")
        #expect(markdown.stdout.contains("Carol Shaw · carol@example.com"))
        #expect(markdown.stdout.contains("| 5000000101 | com.example.pro.monthly | Production |"), "\(markdown.stdout)")
        #expect(markdown.stdout.contains("| import |") || markdown.stdout.contains("| customer-contact |"), "the audit entries are in it")
        let json = try workspace.run(["customer", "export", "carol", "--json"]).jsonObject()
        #expect(json["customerId"] as? String == "carol")
        #expect(json["email"] as? String == "carol@example.com")
        #expect(((json["transactions"] as? [[String: Any]])?.first?["transactionId"] as? String) == "5000000101")
        let unknown = try workspace.run(["customer", "export", "carl"])
        #expect(unknown.status == 65, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("customer carl not found"))
    }
}
