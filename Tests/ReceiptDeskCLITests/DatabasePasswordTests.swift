import Foundation
import PurchaseStore
import Testing

/// A PostgreSQL password given on the command line: a password in `--db` is warned about (it
/// shows in `ps`), `--db-password-file` hands one to libpq, and neither is ever printed.
@Suite("Database password: --db warning and --db-password-file")
struct DatabasePasswordTests {
    static let serverURL = ProcessInfo.processInfo.environment["RECEIPTDESK_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// A folder for password files, removed afterwards.
    final class Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-password-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }  // best effort: a leftover temp folder is harmless

        /// Writes `text` to `name` and returns its path.
        func file(_ name: String, _ text: String) throws -> String {
            let path = url.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    // Nothing listens on port 1: the command fails to connect at once, after parsing its options.
    @Test func aPasswordInTheDatabaseURLIsWarnedAboutAndNeverPrinted() throws {
        let with = try CLIRunner.run(["customer", "show", "alice", "--operator", "mei",
                                      "--db", "postgresql://mei:s3cret-pw@127.0.0.1:1/receipts"])
        #expect(with.status == 69, "\(with.stderr)")
        let warnings = with.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings.count == 1, "\(with.stderr)")
        #expect(warnings.first?.contains("`ps`") == true && warnings.first?.contains("--db-password-file") == true
                && warnings.first?.contains("pgpass") == true, "\(with.stderr)")
        #expect(!(with.stdout + with.stderr).contains("s3cret-pw"))
        #expect(with.stderr.contains("127.0.0.1:1/receipts"), "the failure names host:port/db: \(with.stderr)")

        let query = try CLIRunner.run(["customer", "show", "alice", "--operator", "mei",
                                       "--db", "postgresql://mei@127.0.0.1:1/receipts?password=s3cret-pw"])
        #expect(query.stderr.contains("warning: the password in --db"), "\(query.stderr)")
        #expect(!(query.stdout + query.stderr).contains("s3cret-pw"))

        let without = try CLIRunner.run(["customer", "show", "alice", "--operator", "mei", "--db", "postgresql://mei@127.0.0.1:1/receipts"])
        #expect(without.status == 69)
        #expect(!without.stderr.contains("warning"), "\(without.stderr)")
    }

    @Test func aMissingOrEmptyPasswordFileIsRefusedWithItsName() throws {
        let folder = try Folder()
        let missing = folder.url.appendingPathComponent("nowhere").path
        let empty = try folder.file("empty", "")
        let blank = try folder.file("blank", "\nsecond line\n")
        for (file, why) in [(missing, "no such file"), (empty, "is empty"), (blank, "is empty"), (folder.url.path, "cannot be read")] {
            for command in [["customer", "show", "alice", "--operator", "mei"], ["db", "init"]] {
                let output = try CLIRunner.run(command + ["--db", "postgresql://mei@127.0.0.1:1/receipts", "--db-password-file", file])
                #expect(output.status == 64, "\(command) \(file): \(output.stderr)")
                // One line says what is wrong; the next is the hint every usage error ends with.
                let lines = output.stderr.split(separator: "\n")
                #expect(lines.first?.contains("--db-password-file \(file): \(why)") == true, "\(output.stderr)")
                #expect(lines.dropFirst().count == 1 && lines.last?.hasPrefix("try 'receiptdesk ") == true, "\(output.stderr)")
            }
        }
        let sqlite = try CLIRunner.run(["customer", "show", "alice", "--operator", "mei", "--db", folder.url.appendingPathComponent("p.sqlite").path,
                                        "--db-password-file", try folder.file("password", "pw\n")])
        #expect(sqlite.status == 64 && sqlite.stderr.contains("only a PostgreSQL database"), "\(sqlite.stderr)")
    }

    /// The test server trusts every local connection except members of the role
    /// `receiptdesk_password_login` (scripts/postgres-test-server.sh puts a scram-sha-256 line
    /// for them first in pg_hba.conf): this test's role is one, so it connects only when the
    /// password from the file reaches the server, and a wrong one is refused.
    @Test(.enabled(if: serverURL != nil, "RECEIPTDESK_TEST_POSTGRES_URL is unset"))
    func thePasswordFileConnectsARoleThatMustGiveItsPassword() throws {
        let base = try #require(Self.serverURL)
        let admin = try PostgresDatabase(url: base)
        let rule = try admin.queryFirst("""
            SELECT count(*) AS n FROM pg_hba_file_rules WHERE '+receiptdesk_password_login' = ANY (user_name) AND auth_method = 'scram-sha-256'
            """, [])?.int("n")
        try #require(rule == 1, "the test server must ask receiptdesk_password_login's members for a password: start it with scripts/postgres-test-server.sh")
        let role = "rd_pw_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12)
        let password = "pw-\(UUID().uuidString)"
        try admin.execute("""
            DO $$ BEGIN CREATE ROLE receiptdesk_password_login NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$
            """, [])
        try admin.execute("CREATE ROLE \(role) LOGIN PASSWORD '\(password)' IN ROLE receiptdesk_password_login", [])
        try admin.execute("CREATE SCHEMA \(role) AUTHORIZATION \(role)", [])
        defer {
            _ = try? admin.execute("DROP SCHEMA \(role) CASCADE", [])  // best effort: the server is thrown away
            _ = try? admin.execute("DROP ROLE \(role)", [])
        }
        let port = try #require(base.split(separator: ":").last?.prefix { $0.isNumber })
        let url = "postgresql://\(role)@127.0.0.1:\(port)/postgres?options=-csearch_path%3D\(role)"
        let folder = try Folder()
        let right = try folder.file("right", password + "\n")
        let wrong = try folder.file("wrong", "not-the-password\n")
        let noPassFile = ["PGPASSFILE": folder.url.appendingPathComponent("no-pgpass").path, "PGPASSWORD": ""]
        let created = try CLIRunner.start(["db", "init", "--db", url, "--db-password-file", right], outputDirectory: folder.url,
                                          environment: noPassFile).wait()
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("127.0.0.1:\(port)/postgres"), "\(created.stdout)")
        let added = try CLIRunner.start(["customer", "add", "alice", "--operator", "mei", "--db", url, "--db-password-file", right],
                                        outputDirectory: folder.url, environment: noPassFile).wait()
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try admin.queryFirst("SELECT count(*) AS n FROM \(role).customers", [])?.int("n") == 1)
        let migrated = try CLIRunner.start(["db", "migrate", "--db", url, "--db-password-file", right], outputDirectory: folder.url,
                                           environment: noPassFile).wait()
        #expect(migrated.status == 0 && migrated.stdout.contains("nothing to apply"), "\(migrated.stdout) \(migrated.stderr)")
        let notMigrated = try CLIRunner.start(["db", "migrate", "--db", url, "--db-password-file", wrong], outputDirectory: folder.url,
                                              environment: noPassFile).wait()
        #expect(notMigrated.status == 69, "\(notMigrated.stderr)")

        for file in [wrong, nil] {
            let refused = try CLIRunner.start(["customer", "show", "alice", "--operator", "mei", "--db", url] + (file.map { ["--db-password-file", $0] } ?? []),
                                              outputDirectory: folder.url, environment: noPassFile).wait()
            #expect(refused.status == 69, "\(file ?? "no file"): \(refused.stderr)")
            #expect(refused.stderr.contains("127.0.0.1:\(port)/postgres") && refused.stderr.contains("password"), "\(refused.stderr)")
        }
        for output in [created, added] {
            #expect(!(output.stdout + output.stderr).contains(password))
        }
    }
}
