import Foundation
import Testing

/// `receiptdesk import` with more files than one batch holds: read and decoded ahead of the
/// writer, written in batches of 100, every file reported once, in the order given.
@Suite("receiptdesk import of many files")
struct ImportManyFilesTests {
    @Test func everyFileIsReportedInOrderAcrossBatchesAndBadOnesFailAlone() throws {
        let workspace = try LedgerWorkspace()
        var files = try workspace.forgeCoinReceipts(count: 230, firstTransaction: 3_000_000_000, folder: "many")
        let garbage = try workspace.write("many/garbage.b64", Data("not a receipt".utf8))
        files.insert(workspace.directory.appendingPathComponent("many/missing.b64").path, at: 50)
        files.insert(garbage, at: 150)
        files.append(files[0])  // the first again, in the last batch: a duplicate

        let run = try workspace.run(["import", "--customer", "bob", "--json"] + files)
        #expect(run.status == 65, "a file that failed makes the run exit 65: \(run.stderr)")
        let entries = try run.importedFiles()
        #expect(entries.map { $0["file"] as? String } == files.map { $0 })
        #expect(entries.indices.filter { entries[$0]["error"] != nil } == [50, 150])
        #expect((entries[50]["error"] as? String)?.contains("no such file") == true, "\(entries[50])")
        #expect(entries.last?["changed"] as? Bool == false, "the repeat of the first file is a duplicate")
        #expect(entries.filter { $0["changed"] as? Bool == true }.count == 230)

        #expect(try workspace.count("SELECT count(*) FROM receipts") == 230)
        #expect(try workspace.count("SELECT count(*) FROM transactions") == 690)
        #expect(try workspace.count("SELECT count(*) FROM entitlements WHERE customer_id = 'bob' AND source = 'purchase'") == 690)
        #expect(try workspace.count("SELECT count(*) FROM audit_log WHERE action = 'import'") == 230)
        let audit = try workspace.run(["audit", "--verify"])
        #expect(audit.status == 0, "\(audit.stdout) \(audit.stderr)")
    }
}
