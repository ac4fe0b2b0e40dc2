import Foundation
import Testing

/// `receiptdesk db bench-worker --from F`, which the bench uses to fill a database before it
/// measures an import into it: the worker's receipts are numbered from F, so the fill and the
/// measured import never bring the same receipt (a repeated one would be counted once and cost
/// less than a new one).
@Suite("db bench-worker")
struct BenchWorkerTests {
    /// Runs one worker on `database` for 3 receipts, told to go at once; its `done` line.
    static func worker(_ database: String, _ extra: [String] = []) throws -> CLIRunner.Output {
        try CLIRunner.run(["db", "bench-worker", "--db", database, "--receipts", "3", "--worker", "0", "--workers", "1", "--batch", "100"] + extra,
                          input: Data("go\n".utf8))
    }

    @Test func receiptsAreNumberedFromFrom() throws {
        let workspace = try LedgerWorkspace()
        try workspace.createDatabase()
        let database = workspace.databasePath
        let first = try Self.worker(database)
        try #require(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("done 9 "), "\(first.stdout)")
        let next = try Self.worker(database, ["--from", "3"])
        try #require(next.status == 0, "\(next.stderr)")
        #expect(next.stdout.contains("done 9 "), "\(next.stdout)")
        // Receipts 0-2 and 3-5: eighteen different transactions. Without --from both runs would
        // bring receipts 0-2 and the database would hold nine.
        #expect(try SQLiteShell.run(database, "SELECT count(*) FROM transactions").trimmingCharacters(in: .whitespacesAndNewlines) == "18")
    }

    @Test(arguments: ["-1", "x", "100000001"])
    func aBadFromIsRefused(value: String) throws {
        let workspace = try LedgerWorkspace()
        try workspace.createDatabase()
        let refused = try Self.worker(workspace.databasePath, ["--from", value])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stderr.contains("--from \(value) is not between 0 and 100000000"), "\(refused.stderr)")
        #expect(try SQLiteShell.run(workspace.databasePath, "SELECT count(*) FROM transactions").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }
}
