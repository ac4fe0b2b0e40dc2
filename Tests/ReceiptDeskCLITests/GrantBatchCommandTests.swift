import Foundation
import ReceiptCore
import Testing

/// `receiptdesk grant --customers FILE | --search QUERY …`: a preview that writes nothing, then
/// `--yes` grants in one batch and says who got what; bad input is one line.
@Suite("grant for many")
struct GrantBatchCommandTests {
    @Test func aListIsPreviewedThenGrantedWithWhoGotWhat() throws {
        let workspace = try LedgerWorkspace()
        for id in ["ann", "ben", "cat"] { #expect(try workspace.run(["customer", "add", id]).status == 0) }
        #expect(try workspace.run(["grant", "--customer", "ben", "--entitlement", "pro", "--reason", "earlier"]).status == 0)
        let list = try workspace.write("outage.txt", Data("# outage of 3 June\nann\nben\nzed\ncat\n".utf8))
        let arguments = ["grant", "--customers", list, "--entitlement", "pro", "--days", "30", "--reason", "outage 3 June"]
        let preview = try workspace.run(arguments)
        #expect(preview.status == 0, "\(preview.stderr)")
        #expect(preview.stdout.hasPrefix("preview: would grant pro until ") && preview.stdout.contains("to 2 of 4 customers from \(list)"), "\(preview.stdout)")
        #expect(preview.stdout.contains("\n  + ann\n") && preview.stdout.contains("\n  = ben  already has grant #1 (forever): left as it is\n")
                && preview.stdout.contains("\n  ? zed  not in the ledger: left out\n") && preview.stdout.hasSuffix("nothing written: run it again with --yes to grant\n"),
                "\(preview.stdout)")
        #expect(try workspace.count("SELECT count(*) FROM grants") == 1, "the preview wrote nothing")
        let applied = try workspace.run(arguments + ["--yes", "--json"]).jsonObject()
        #expect(applied["applied"] as? Bool == true)
        let lines = try #require(applied["customers"] as? [[String: Any]])
        #expect(lines.map { $0["outcome"] as? String } == ["granted", "already-granted", "not-found", "granted"])
        #expect(try workspace.count("SELECT count(*) FROM grants WHERE revoked_at IS NULL") == 3)
        #expect(try workspace.count("SELECT count(*) FROM audit_log WHERE action = 'grant-batch'") == 1)
        #expect(try workspace.run(["audit", "--verify"]).status == 0)
        // A search result: every customer whose id starts with "ca".
        let searched = try workspace.run(["grant", "--search", "ca", "--entitlement", "coins", "--reason", "sorry", "--yes"])
        #expect(searched.status == 0 && searched.stdout.contains("granted coins forever to 1 of 1 customers from search ca") && searched.stdout.contains("  + cat  grant #"),
                "\(searched.stdout)\(searched.stderr)")
    }

    @Test func badInputIsOneLine() throws {
        let workspace = try LedgerWorkspace()
        #expect(try workspace.run(["customer", "add", "ann"]).status == 0)
        let list = try workspace.write("list.txt", Data("ann\n".utf8))
        let bad = try workspace.write("bad.txt", Data("ann\nb\u{1b}[2Jen\n".utf8))
        let empty = try workspace.write("empty.txt", Data("# none\n".utf8))
        expectFailure(try workspace.run(["grant", "--customers", list, "--search", "a", "--entitlement", "pro", "--reason", "r"]), 64, "not both")
        expectFailure(try workspace.run(["grant", "--customers", list, "--entitlement", "pro", "--reason", "r", "--days", "0"]), 64, "--days takes a number")
        expectFailure(try workspace.run(["grant", "--customers", list, "--entitlement", "pro", "--reason", "r", "--days", "3", "--for", "P1D"]), 64, "one of --until, --for and --days")
        expectFailure(try workspace.run(["grant", "--customers", bad, "--entitlement", "pro", "--reason", "r"]), 64, "bad.txt line 2: customer id")
        expectFailure(try workspace.run(["grant", "--customers", empty, "--entitlement", "pro", "--reason", "r"]), 64, "names no customer")
        expectFailure(try workspace.run(["grant", "--customers", "/no/such/list", "--entitlement", "pro", "--reason", "r"]), 65, "no such file")
        expectFailure(try workspace.run(["grant", "--customers", list, "--entitlement", "pro", "--yes"]), 64, "a reason is required")
        expectFailure(try workspace.run(["grant", "--search", "zzz", "--entitlement", "pro", "--reason", "r"]), 64, "finds no customer")
        #expect(try workspace.count("SELECT count(*) FROM grants") == 0)
    }
}
