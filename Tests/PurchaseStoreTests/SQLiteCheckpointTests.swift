import Foundation
@testable import PurchaseStore
import Testing

/// The write-ahead log is copied back into the database file by a thread of its own; the log
/// stays bounded however long a writer keeps committing, and the last close folds it away.
@Suite("SQLite checkpoints in the background")
struct SQLiteCheckpointTests {
    static let pageBytes = 4_096 + 24  // a WAL frame: the page and its header

    @Test func theLogStaysBoundedWhileAWriterKeepsCommittingAndNothingIsLost() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-checkpoint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort: a leftover temp folder is harmless
        let path = folder.appendingPathComponent("log.sqlite").path
        var largestLog = 0
        do {
            let database = try SQLiteDatabase(path: path)
            database.replaceCheckpointer(backgroundPages: 64, inlinePages: 256)
            try database.execute("CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)", [])
            for batch in 0..<300 {
                try database.writeTransaction {
                    for item in 0..<4 {
                        try database.execute("INSERT INTO blobs (id, body) VALUES (?, ?)",
                                             [.integer(Int64(batch * 4 + item)), .blob([UInt8](repeating: UInt8(item), count: 3_000))])
                    }
                }
                let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
                largestLog = max(largestLog, log)
            }
            #expect((database.checkpointer?.backgroundProgress.runs ?? 0) >= 1, "the background thread never ran")
            #expect(try database.queryFirst("SELECT count(*) AS n, sum(length(body)) AS bytes FROM blobs", [])?.int("n") == 1_200)
            #expect(try database.integrityCheck() == ["ok"])
        }
        // ~3,600 pages were written in all; the log never held more than the inline limit and a commit.
        #expect(largestLog > 0 && largestLog <= 32 + (256 + 8) * Self.pageBytes, "the log grew to \(largestLog) bytes")
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the last close folds the log into the file")
        let reopened = try SQLiteDatabase(path: path, create: false, readOnly: true)
        #expect(try reopened.queryFirst("SELECT count(*) AS n FROM blobs", [])?.int("n") == 1_200)
    }

    /// The thread's own connection copies the log into the file: it must know the file is in
    /// WAL mode, which a connection learns only when it first reads (before, its checkpoints did
    /// nothing, and only the writer's copy at `inlinePages` kept the log bounded, at 263 MB).
    @Test func theThreadCopiesTheLogIntoTheFileWithoutTheWriter() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-checkpoint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort: a leftover temp folder is harmless
        let path = folder.appendingPathComponent("copy.sqlite").path
        let database = try SQLiteDatabase(path: path)
        // The writer never copies by itself before the thread has run: it copies only the last
        // quarter after a background copy, or at the inline limit, which is out of reach here.
        database.replaceCheckpointer(backgroundPages: 64, inlinePages: 1_000_000)
        let checkpointer = try #require(database.checkpointer)
        try database.execute("CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)", [])
        let fileBefore = try Self.size(path)
        for item in 0..<40 {  // ~80 pages: past backgroundPages, so the thread is asked to copy
            _ = try database.writeTransaction {
                try database.execute("INSERT INTO blobs (id, body) VALUES (?, ?)", [.integer(Int64(item)), .blob([UInt8](repeating: 3, count: 8_000))])
            }
        }
        // Nothing is written while the thread works; it runs within moments, 60 s even on a loaded machine.
        let deadline = Date().addingTimeInterval(60)
        while checkpointer.backgroundProgress.runs == 0 && Date() < deadline { usleep(5_000) }
        let progress = checkpointer.backgroundProgress
        #expect(progress.runs >= 1, "the background thread never ran")
        #expect(progress.frames >= 64, "the background thread copied \(progress.frames) frames of the log")
        let fileAfter = try Self.size(path)
        // Each commit wrote new pages (a row of 8,000 bytes spans two): 64 frames hold at least 16.
        #expect(fileAfter >= fileBefore + 16 * 4_096, "the database file grew from \(fileBefore) to \(fileAfter) bytes only")
        #expect(try database.queryFirst("SELECT count(*) AS n FROM blobs", [])?.int("n") == 40)
    }

    static func size(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    @Test func closingWhileTheThreadCopiesWaitsForItAndLosesNothing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-checkpoint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort: a leftover temp folder is harmless
        let path = folder.appendingPathComponent("close.sqlite").path
        for round in 0..<5 {
            let database = try SQLiteDatabase(path: path)
            database.replaceCheckpointer(backgroundPages: 16, inlinePages: 100_000)
            try database.execute("CREATE TABLE IF NOT EXISTS blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)", [])
            for item in 0..<40 {
                _ = try database.writeTransaction {
                    try database.execute("INSERT INTO blobs (id, body) VALUES (?, ?)",
                                         [.integer(Int64(round * 40 + item)), .blob([UInt8](repeating: 7, count: 8_000))])
                }
            }
        }  // each database is released (closed) here, most likely with a copy under way
        let reopened = try SQLiteDatabase(path: path, create: false)
        #expect(try reopened.queryFirst("SELECT count(*) AS n FROM blobs", [])?.int("n") == 200)
        #expect(try reopened.integrityCheck() == ["ok"])
    }
}
