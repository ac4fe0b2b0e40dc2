import Foundation
import Testing

/// The smaller things a reliability check found: a large demo, config keys, operator names, a
/// damaged database and paths that are not files.
@Suite("Smaller refusals", .serialized)
struct SmallerRefusalsTests {
    @Test func aDemoOfEightHundredCustomersBuildsAndAFailedOneLeavesNothing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rd-demo-big-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("purchases.sqlite").path
        let built = try CLIRunner.run(["demo", "--db", db, "--customers", "800"])
        #expect(built.status == 0, "\(built.stderr)")
        #expect(built.stdout.contains("800 customers") || built.stdout.contains("customers"), "\(built.stdout)")

        // A demo that cannot finish (its config cannot be written: a folder sits at its name)
        // takes away what it made and leaves what was there.
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("rd-demo-broken-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: broken) }
        try FileManager.default.createDirectory(at: broken.appendingPathComponent("config.json"), withIntermediateDirectories: true)
        let failed = try CLIRunner.run(["demo", "--db", broken.appendingPathComponent("purchases.sqlite").path])
        #expect(failed.status != 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: broken.path).sorted()
        #expect(left == ["config.json"], "left behind: \(left)")
    }

    @Test func configKeysAreWordsAndEachIsSaidOnce() throws {
        let monkey = try LedgerWorkspace(config: #"{"monkey": 1}"#)
        expectFailure(try monkey.run(["customer", "add", "a"]), 64, "monkey: unknown key")
        let secret = try LedgerWorkspace(config: #"{"appStore": {"sharedSecret": "hunter2"}}"#)
        let refused = try secret.run(["customer", "add", "a"])
        expectFailure(refused, 64, "holds an inline secret")
        #expect(!refused.stderr.contains("hunter2"))
        let twice = try LedgerWorkspace(config: "{\"bundleIds\": [\"a\"],\n \"bundleIds\": [\"b\"]}")
        expectFailure(try twice.run(["customer", "add", "a"]), 64, "'bundleIds' again at line 2, column 2")
    }

    @Test(arguments: ["", "   ", "\u{1B}", "apple", "System"])
    func operatorsMustBeSomeoneReal(_ name: String) throws {
        let workspace = try LedgerWorkspace()
        let output = try workspace.run(["customer", "add", "a", "--operator", name])
        #expect(output.status == 64, "'\(name)': \(output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: workspace.databasePath), "a refused operator made a database")
    }

    @Test func aDamagedDatabaseRefusesWritesWithSixtyNine() throws {
        let workspace = try LedgerWorkspace()
        try #require(try workspace.run(["customer", "add", "a"]).status == 0)
        _ = try workspace.sql("PRAGMA wal_checkpoint(TRUNCATE)")
        // Garble pages after the header: SQLite sees a damaged file.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: workspace.databasePath))
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 16_384))
        try handle.close()
        let output = try workspace.run(["customer", "add", "b"])
        #expect(output.status == 69, "\(output.stderr)")
        #expect(output.stderr.contains(workspace.databasePath), "\(output.stderr)")
    }

    @Test(arguments: ["/dev/null", "/tmp"])
    func aPathThatIsNotARegularFileIsRefused(_ path: String) throws {
        let workspace = try LedgerWorkspace()
        for arguments in [["customer", "add", "a"], ["customer", "show", "a"], ["audit", "--verify"]] {
            let output = try CLIRunner.run(arguments + ["--db", path, "--config", workspace.configPath])
            expectFailure(output, 69, "\(path) is not a regular file")
        }
    }
}
