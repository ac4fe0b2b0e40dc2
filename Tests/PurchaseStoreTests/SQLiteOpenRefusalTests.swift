import Foundation
@testable import PurchaseStore
import Testing

/// A file that is not a database is refused when opened, and the refused connection is closed
/// once (by `SQLiteDatabase`'s deinit, which a throwing init runs once every property is set):
/// no descriptor of this process still points at the file, however often it is tried.
@Suite("SQLite: a file that is not a database")
struct SQLiteOpenRefusalTests {
    /// Descriptors of this process whose target is `path` or its `-wal` / `-shm` companions.
    static func descriptors(onto path: String) throws -> [String] {
        let folder = "/proc/self/fd"
        let targets = Set([path, path + "-wal", path + "-shm"])
        return try FileManager.default.contentsOfDirectory(atPath: folder).filter { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + entry)).map(targets.contains) ?? false
        }
    }

    @Test(arguments: [false, true])
    func refusedAndNotLeftOpen(readOnly: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-notadb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort: a temp folder
        let path = folder.appendingPathComponent("purchases.sqlite").path
        try Data(String(repeating: "these are notes, not a database\n", count: 256).utf8).write(to: URL(fileURLWithPath: path))
        for _ in 0..<20 {
            #expect {
                _ = try SQLiteDatabase(path: path, create: false, readOnly: readOnly)
            } throws: { error in
                let message = "\(error)"
                return (error as? StoreError)?.code == .cannotOpen || message.contains("not a database")
            }
        }
        #expect(try Self.descriptors(onto: path).isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == 256 * 32, "the file is left as it was")
    }
}
