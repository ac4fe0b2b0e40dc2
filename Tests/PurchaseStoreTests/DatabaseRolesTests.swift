import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// Who may do what is the database's to enforce: the schema changes only in db init and db
/// migrate, `db roles` makes least-privilege roles (a login of each is tried through the real
/// binary), the audit log is append-only for all but the owner, and every entry names the
/// database user that wrote it.
@Suite("The database enforces who may do what")
struct DatabaseRolesTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-roles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func run(_ arguments: [String], in folder: URL) throws -> (status: Int32, stdout: String, stderr: String) {
        try PostgresProcessTests.start(arguments, in: folder).wait()
    }

    @Test(.enabled(if: OverlappingImportersTests.canRun, "needs the receiptdesk binary beside the tests"), arguments: TestBackend.available)
    func aWritingCommandNeverMigratesItSaysRunDbMigrate(_ backend: TestBackend) throws {
        let scratch = try ScratchDatabase(backend)
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort: a leftover temp folder is harmless
        // A database one migration behind this receiptdesk, as an older one left it.
        let older: SQLDatabase = backend == .postgres ? try PostgresDatabase(url: scratch.location) : try SQLiteDatabase(path: scratch.location)
        try MigrationRunner.migrate(older, Array(PurchaseSchema.migrations.dropLast()))
        let behind = Int64(PurchaseSchema.migrations.count - 1)
        let db = ["--db", scratch.location]
        let refused = try Self.run(["customer", "add", "kim"] + db, in: folder)
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(refused.stderr.contains("schema is behind") && refused.stderr.contains("run `receiptdesk db migrate`"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "one line: \(refused.stderr)")
        #expect(try older.queryFirst("SELECT count(*) AS n FROM schema_migrations", [])?.int("n") == behind, "nothing migrated")
        #expect(try older.queryFirst("SELECT count(*) AS n FROM customers", [])?.int("n") == 0)
        let migrated = try Self.run(["db", "migrate"] + db, in: folder)
        #expect(migrated.status == 0 && migrated.stdout.contains("1 applied now"), "\(migrated.stdout) \(migrated.stderr)")
        #expect(try Self.run(["customer", "add", "kim"] + db, in: folder).status == 0)
        let again = try Self.run(["db", "migrate"] + db, in: folder)
        #expect(again.status == 0 && again.stdout.contains("nothing to apply"), "\(again.stdout)")
    }

    @Test(.enabled(if: PostgresTestServer.canRunProcesses, "needs RECEIPTDESK_TEST_POSTGRES_URL and the receiptdesk binary"))
    func eachRoleDoesWhatItMayAndNothingMore() throws {
        let f = try BackendLedgerFixture(.postgres)
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort: a leftover temp folder is harmless
        let options = try PostgresProcessTests.processOptions(f, in: folder)
        let prefix = "rd" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(10)
        let roles = try DatabaseRoles(prefix: prefix)
        let made = try Self.run(["db", "roles", "--db", f.scratch.location, "--prefix", prefix], in: folder)
        try #require(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains("created role \(roles.operatorRole)") && made.stdout.contains("append-only"), "\(made.stdout)")
        // A login of each kind, as a team would make them.
        let logins = [("ann", roles.reader), ("bob", roles.operatorRole), ("svc", roles.service), ("own", roles.owner)]
        for (login, group) in logins { try f.database.execute("CREATE ROLE \(prefix)_\(login) LOGIN IN ROLE \(group)", []) }
        defer {
            // Best effort: the roles are the server's, not the schema's.
            for role in logins.map({ "\(prefix)_\($0.0)" }) + roles.all {
                _ = try? f.database.execute("DROP OWNED BY \(role)", [])
                _ = try? f.database.execute("DROP ROLE \(role)", [])
            }
        }
        func url(_ login: String) -> String {
            f.scratch.location.replacingOccurrences(of: "://postgres@", with: "://\(prefix)_\(login)@")
        }
        func run(_ login: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            try Self.run(arguments + ["--db", url(login)] + options, in: folder)
        }
        try f.ledger.addCustomer("kim", isTester: false, operatorName: "mei")
        let receipt = folder.appendingPathComponent("r.b64")
        try Data(try f.receipt([LedgerFixture.purchase("roles-1", "com.example.pro.lifetime", expires: nil, type: 0)])).write(to: receipt)
        let grant = ["grant", "--customer", "kim", "--entitlement", "pro", "--reason", "ticket 7"]

        // reader: looks, changes nothing.
        #expect(try run("ann", ["customer", "show", "kim"]).status == 0)
        let readerGrant = try run("ann", grant)
        #expect(readerGrant.status != 0 && readerGrant.stderr.contains("permission denied"), "\(readerGrant.stderr)")
        // service: imports, but never grants by hand.
        let imported = try run("svc", ["import", receipt.path, "--customer", "imp"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let serviceGrant = try run("svc", grant)
        #expect(serviceGrant.status != 0 && serviceGrant.stderr.contains("permission denied"), "\(serviceGrant.stderr)")
        // operator: the changing actions, on a schema it may not change (no migration ran).
        let granted = try run("bob", grant + ["--operator", "bob"])
        #expect(granted.status == 0, "\(granted.stderr)")
        let entry = try #require(try f.database.queryFirst("SELECT operator, db_user FROM audit_log WHERE action = 'grant' ORDER BY seq DESC LIMIT 1", []))
        #expect(entry.string("operator") == "bob" && entry.string("db_user") == "pg:\(prefix)_bob", "the login is recorded beside the name")
        let operatorMigrate = try Self.run(["db", "migrate", "--db", url("bob")], in: folder)
        #expect(operatorMigrate.status == 65 && operatorMigrate.stderr.contains("permission denied"), "\(operatorMigrate.stderr)")
        let bob = try PostgresDatabase(url: url("bob"))
        #expect(throws: StoreError.self) { try bob.execute("UPDATE audit_log SET operator = 'mallory'", []) }
        #expect(throws: StoreError.self) { try bob.execute("DELETE FROM audit_log", []) }
        #expect(throws: StoreError.self) { try bob.execute("TRUNCATE audit_log", []) }
        // A grant made by mistake later does not open the log: the trigger still refuses.
        try f.database.execute("GRANT UPDATE, DELETE ON audit_log TO \(roles.operatorRole)", [])
        do {
            try bob.execute("UPDATE audit_log SET operator = 'mallory'", [])
            Issue.record("an operator changed an audit entry")
        } catch let error as StoreError {
            #expect(error.reason.contains("append-only"), "\(error.reason)")
        }
        // owner: migrates, and alone may change the log.
        let ownerMigrate = try Self.run(["db", "migrate", "--db", url("own")], in: folder)
        #expect(ownerMigrate.status == 0, "\(ownerMigrate.stderr)")
        #expect(try PostgresDatabase(url: url("own")).execute("UPDATE audit_log SET details = details WHERE seq = 1", []) == 1)
        #expect(try AuditLog.verify(f.database).isIntact)
    }

    /// With `operators` in the config, a login writes under its own name only.
    @Test(.enabled(if: PostgresTestServer.canRunProcesses, "needs RECEIPTDESK_TEST_POSTGRES_URL and the receiptdesk binary"))
    func aLoginCannotBorrowAnotherOperatorsName() throws {
        let f = try BackendLedgerFixture(.postgres)
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort: a leftover temp folder is harmless
        let login = "rdalice" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(8)
        try f.database.execute("CREATE ROLE \(login) LOGIN SUPERUSER", [])
        defer { _ = try? f.database.execute("DROP ROLE \(login)", []) }  // best effort: the server is thrown away
        let config = folder.appendingPathComponent("config.json")
        try Data("""
            {"bundleIds": ["com.example.app"], "products": {"com.example.pro.lifetime": {"entitlement": "pro", "type": "non-consumable"}},
             "operators": {"\(login)": "alice"}}
            """.utf8).write(to: config)
        try f.ledger.addCustomer("kim", isTester: false, operatorName: "mei")
        let db = ["--db", f.scratch.location.replacingOccurrences(of: "://postgres@", with: "://\(login)@"), "--config", config.path]
        let grant = ["grant", "--customer", "kim", "--entitlement", "pro", "--reason", "ticket 9"]
        let borrowed = try Self.run(grant + ["--operator", "bob"] + db, in: folder)
        #expect(borrowed.status == 64 && borrowed.stderr.contains("a name cannot be borrowed"), "\(borrowed.stderr)")
        let own = try Self.run(grant + db, in: folder)
        #expect(own.status == 0, "\(own.stderr)")
        let entry = try #require(try f.database.queryFirst("SELECT operator, db_user FROM audit_log WHERE action = 'grant'", []))
        #expect(entry.string("operator") == "alice" && entry.string("db_user") == "pg:\(login)")
        // The superuser of the fixture is not in the map: it may not write through this config.
        let unlisted = try Self.run(grant + ["--db", f.scratch.location, "--config", config.path], in: folder)
        #expect(unlisted.status == 64 && unlisted.stderr.contains("is not listed in the config's operators"), "\(unlisted.stderr)")
    }
}
