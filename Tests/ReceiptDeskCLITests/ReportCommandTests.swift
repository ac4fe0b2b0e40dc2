import Foundation
import ReceiptCore
import Testing

/// `receiptdesk report [--week | --month] [--json]`: both periods by default, one when named,
/// read only; bad options are one line.
@Suite("report")
struct ReportCommandTests {
    @Test func bothPeriodsOrOneAsTextOrJSON() throws {
        let workspace = try LedgerWorkspace()
        let receipt = try workspace.receipt("r.b64", [LedgerWorkspace.purchase("5000000101")])
        #expect(try workspace.run(["import", receipt, "--customer", "carol"]).status == 0)
        #expect(try workspace.run(["grant", "--customer", "carol", "--entitlement", "coins", "--reason", "sorry"]).status == 0)
        let text = try workspace.run(["report"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.hasPrefix("This week: ") && text.stdout.contains("\n\nThis month: "), "\(text.stdout)")
        #expect(text.stdout.contains("      tester  1 grant, 0 revokes"), "\(text.stdout)")
        let json = try workspace.run(["report", "--week", "--json"]).jsonObject()
        let week = try #require(json["week"] as? [String: Any])
        #expect(json["month"] == nil)
        #expect((week["arrivals"] as? [String: Any])?["total"] as? Int == 1, "the import happened today: \(week)")
        #expect((week["grants"] as? [String: Any])?["total"] as? Int == 1)
        let before = try workspace.sql("SELECT count(*) FROM audit_log")
        #expect(try workspace.run(["report", "--month"]).stdout.hasPrefix("This month: "))
        #expect(try workspace.sql("SELECT count(*) FROM audit_log") == before, "a report writes nothing")
        expectFailure(try workspace.run(["report", "--week", "--month"]), 64, "name --week or --month, not both")
        expectFailure(try workspace.run(["report", "--year"]), 64, "unknown option --year")
    }
}
