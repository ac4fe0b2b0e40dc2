import Foundation
import Testing

/// Commands that only read take no write lock and change nothing: they are answered while a
/// writer holds the database, they open a file the user may only read, and they never create,
/// migrate or convert a database (nor a SQLite file that is not one).
@Suite("Readers never block and never write")
struct ReadersTests {
    static let readers: [[String]] = [["customer", "show", "jack"], ["audit"], ["audit", "--verify"], ["conflicts"]]

    func populated() throws -> LedgerWorkspace {
        let workspace = try LedgerWorkspace()
        try #require(try workspace.run(["customer", "add", "jack"]).status == 0)
        return workspace
    }

    @Test func readersAreAnsweredWhileAWriterHoldsTheLock() throws {
        let workspace = try populated()
        // The sqlite3 shell holds the write lock (BEGIN IMMEDIATE) for 20 s.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: try #require(SQLiteShell.path))
        holder.arguments = [workspace.databasePath]
        let input = Pipe()
        holder.standardInput = input
        holder.standardOutput = FileHandle.nullDevice
        try holder.run()
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\nINSERT INTO customers (customer_id, is_tester, created_at, updated_at) VALUES ('held', 0, 'x', 'x');\n".utf8))
        defer {
            try? input.fileHandleForWriting.close()
            holder.terminate()
            holder.waitUntilExit()
        }
        // A writer now waits (and would give up after its busy timeout); readers do not wait at all.
        usleep(300_000)
        for arguments in Self.readers {
            let started = Date()
            let output = try workspace.run(arguments)
            #expect(output.status == 0, "\(arguments): \(output.stderr)")
            // Well under the 10 s busy timeout a writer would wait; generous for a loaded machine.
            #expect(Date().timeIntervalSince(started) < 8, "\(arguments) waited for the writer")
        }
        // A writer waits for the lock as long as the code states (10 s), once: not four times over.
        let started = Date()
        let writer = try workspace.run(["customer", "add", "kim"])
        let waited = Date().timeIntervalSince(started)
        #expect(writer.status == 75, "\(writer.stderr)")
        #expect(waited >= 9 && waited < 25, "the writer waited \(waited) s for a 10 s bound")
    }

    @Test func aFileTheUserMayOnlyReadOpensForReading() throws {
        let workspace = try populated()
        let folder = workspace.directory.appendingPathComponent("ro")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent("purchases.sqlite").path
        _ = try workspace.sql("PRAGMA wal_checkpoint(TRUNCATE)")
        try FileManager.default.copyItem(atPath: workspace.databasePath, toPath: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path) }
        for arguments in Self.readers {
            let output = try Self.runWithoutWriteAccess(arguments + ["--db", copy, "--config", workspace.configPath])
            #expect(output.status == 0, "\(arguments): \(output.stderr)")
        }
        // A writer says plainly that it cannot write there.
        let write = try Self.runWithoutWriteAccess(["customer", "add", "kim", "--db", copy, "--config", workspace.configPath])
        #expect(write.status == 69, "\(write.stderr)")
        #expect(write.stderr.contains(copy), "\(write.stderr)")
    }

    /// Runs receiptdesk as a user who may only read the files: ourselves, or `nobody` when the
    /// tests run as root (root may write anything).
    static func runWithoutWriteAccess(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        if getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: ["/usr/sbin/runuser", "/sbin/runuser"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/sbin/runuser")
            process.arguments = ["-u", "nobody", "--", CLIRunner.binary.path] + arguments
        } else {
            process.executableURL = CLIRunner.binary
            process.arguments = arguments
        }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test func anotherSQLiteFileIsRefusedAndLeftUntouched() throws {
        let workspace = try LedgerWorkspace()
        let other = workspace.directory.appendingPathComponent("notes.sqlite").path
        _ = try SQLiteShell.run(other, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('mine');")
        let before = try Data(contentsOf: URL(fileURLWithPath: other))
        for arguments in Self.readers + [["customer", "add", "kim"], ["import", "nothing.b64", "--customer", "kim"]] {
            let output = try CLIRunner.run(arguments + ["--db", other, "--config", workspace.configPath])
            #expect(output.status == 69, "\(arguments): \(output.stdout) \(output.stderr)")
            #expect(output.stderr.contains("is not a receiptdesk database"), "\(arguments): \(output.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == before, "the other file was changed")
        #expect(!FileManager.default.fileExists(atPath: other + "-wal"))
        #expect(try SQLiteShell.run(other, "PRAGMA journal_mode") == "delete\n")
    }

    @Test func readersNeverMigrate() throws {
        let workspace = try populated()
        // As if written by the previous receiptdesk: the last migration not applied yet.
        _ = try workspace.sql("DELETE FROM schema_migrations WHERE position = (SELECT max(position) FROM schema_migrations)")
        let before = try workspace.sql("SELECT count(*) FROM schema_migrations")
        let output = try workspace.run(["customer", "show", "jack"])
        #expect(output.status == 69, "\(output.stderr)")
        #expect(output.stderr.contains("schema is behind") && output.stderr.contains("receiptdesk db migrate"), "\(output.stderr)")
        #expect(try workspace.sql("SELECT count(*) FROM schema_migrations") == before)
    }
}
