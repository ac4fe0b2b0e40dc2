import Foundation
import Testing
@testable import PurchaseStore

/// `SQLiteLockWaits`: the time a writer sleeps in the busy handler behind another writer's
/// lock is counted (the bench's lock-wait share on SQLite rests on it). SQLite only: on
/// PostgreSQL the bench samples pg_stat_activity instead.
@Suite("SQLite lock waits")
struct SQLiteLockWaitsTests {
    @Test func aWriterWaitingForAnothersLockIsCounted() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-lockwaits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort: a temporary folder
        let path = folder.appendingPathComponent("purchases.sqlite").path
        let connections = Connections(holder: try PurchaseDatabase.open(path), waiter: try PurchaseDatabase.open(path))
        let before = SQLiteLockWaits.seconds
        let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        let box = Outcome()
        Thread.detachNewThread {
            do {
                try connections.holder.writeTransaction {
                    inside.signal()
                    release.wait()
                }
            } catch { box.set("holder: \(error)") }
        }
        inside.wait()
        Thread.detachNewThread {
            do {
                try connections.waiter.writeTransaction { _ = try connections.waiter.execute("UPDATE customers SET version = version WHERE 0", []) }
            } catch { box.set("waiter: \(error)") }
            finished.signal()
        }
        // The waiter cannot get the lock while the holder keeps it: it sleeps in the busy
        // handler until released (well within its 10 s timeout; the loop gives up before it).
        let deadline = Date().addingTimeInterval(9)
        while SQLiteLockWaits.seconds == before && Date() < deadline { usleep(1_000) }
        release.signal()
        finished.wait()
        #expect(box.failure == nil, "\(box.failure ?? "")")
        #expect(SQLiteLockWaits.seconds > before)
    }

    @Test func theTimeAWriteTransactionHoldsTheLockIsCounted() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-lockheld-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }  // best effort: a temporary folder
        let database = try PurchaseDatabase.open(folder.appendingPathComponent("purchases.sqlite").path)
        let before = SQLiteLockWaits.heldSeconds
        // Held at least as long as the body sleeps (other tests' transactions only add to it).
        _ = try database.writeTransaction { usleep(30_000) }
        #expect(SQLiteLockWaits.heldSeconds - before >= 0.03)
        struct Failed: Error {}
        let afterCommit = SQLiteLockWaits.heldSeconds
        #expect(throws: Failed.self) { try database.writeTransaction { usleep(30_000); throw Failed() } }
        #expect(SQLiteLockWaits.heldSeconds - afterCommit >= 0.03, "a transaction rolled back held the lock too")
    }
}

/// Two connections, each used by one thread at a time (the holder's, then the waiter's).
private final class Connections: @unchecked Sendable {
    let holder: SQLDatabase
    let waiter: SQLDatabase
    init(holder: SQLDatabase, waiter: SQLDatabase) { (self.holder, self.waiter) = (holder, waiter) }
}

/// A failure seen on another thread.
private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var text: String?
    func set(_ failure: String) { lock.withLock { text = failure } }
    var failure: String? { lock.withLock { text } }
}
