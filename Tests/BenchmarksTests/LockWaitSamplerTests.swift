@testable import Benchmarks
import Foundation
import PurchaseStore
import Testing

/// The bench's PostgreSQL lock waits split by what was waited for (`LockWaitKind`), from the
/// rows `LockWaitSampler` reads; and, on a real server, a wait for the audit chain's writer lock
/// told apart while it happens.
@Suite("Lock wait kinds")
struct LockWaitSamplerTests {
    private static let writerKey: Int64 = -1_234_567_890

    private func kind(_ event: String?, _ type: String?, _ classId: Int64?, _ objectId: Int64?, _ subId: Int64?,
                      session: Bool = false, key: Int64 = writerKey) -> LockWaitKind {
        LockWaitKind.of(waitEvent: event, lockType: type, classId: classId, objectId: objectId, objectSubId: subId,
                        classIsSession: session, writerLockKey: key)
    }

    @Test func eachWaitIsToldByItsLock() {
        // The writer lock, pg_advisory_xact_lock(bigint): the key's upper half in classid, its lower in objid.
        let negative = UInt64(bitPattern: Self.writerKey)
        #expect(kind("advisory", "advisory", Int64(negative >> 32), Int64(negative & 0xffff_ffff), 1) == .auditChain)
        #expect(kind("advisory", "advisory", 0, 987_654_321, 1, key: 987_654_321) == .auditChain, "a positive key: class 0")
        // Another key of the one-key form (a write key), and the writer key's halves as a two-key lock.
        #expect(kind("advisory", "advisory", Int64(negative >> 32), Int64(negative & 0xffff_ffff) - 1, 1) == .other)
        #expect(kind("advisory", "advisory", Int64(negative >> 32), Int64(negative & 0xffff_ffff), 2) == .other)
        // The import's own turn: the class is a session's process id, in either form.
        #expect(kind("advisory", "advisory", 4242, 7, 2, session: true) == .ownTurn)
        #expect(kind("advisory", "advisory", 4242, 99_999, 1, session: true) == .ownTurn)
        // A table or an index growing.
        #expect(kind("extend", "extend", nil, nil, nil) == .relationExtension)
        #expect(kind("extend", nil, nil, nil, nil) == .relationExtension, "granted between the sample's two reads")
        // Rows and transactions, and a lock granted before pg_locks was read.
        #expect(kind("transactionid", "transactionid", nil, nil, nil) == .other)
        #expect(kind("tuple", "tuple", nil, nil, nil) == .other)
        #expect(kind("advisory", nil, nil, nil, nil) == .other)
        // Blocked only by sessions of its own import: a row its other lane holds; growing a table stays growth.
        #expect(LockWaitKind.of(waitEvent: "transactionid", lockType: "transactionid", classId: nil, objectId: nil, objectSubId: nil,
                                classIsSession: false, blockedByOwnImport: true, writerLockKey: Self.writerKey) == .ownTurn)
        #expect(LockWaitKind.of(waitEvent: "extend", lockType: "extend", classId: nil, objectId: nil, objectSubId: nil,
                                classIsSession: false, blockedByOwnImport: true, writerLockKey: Self.writerKey) == .relationExtension)
    }

    @Test func theKindsAddUpToTheAimedRow() {
        var cost = ImportCost()
        (cost.samples, cost.waitSamples) = (100, [.ownTurn: 4, .auditChain: 3, .relationExtension: 2, .other: 1])
        var report = LedgerBenchReport()
        let prefix = "postgresql import from 4 processes, batched, "
        cost.figures(prefix, backend: "postgresql", processes: 4, transactions: 6_000, seconds: 2, into: &report)
        let values = Dictionary(report.figures.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(abs((values[prefix + "lock waits, % of wall time"] ?? 0) - 2.5) < 1e-6, "10 waiting of 100 samples × 4 sessions")
        let expected: [LockWaitKind: Double] = [.ownTurn: 1, .auditChain: 0.75, .relationExtension: 0.5, .other: 0.25]
        for kind in LockWaitKind.allCases {
            let row = report.figures.first { $0.name == prefix + kind.rowName }
            #expect(abs((row?.value ?? -1) - (expected[kind] ?? 0)) < 1e-6, "\(kind)")
            #expect(row?.line.contains("aim") == false, "\(kind): part of the aimed row, no aim of its own")
        }
    }

    /// One session holds the writer lock in an open transaction; a second asks for it and waits.
    /// The sampler counts that wait as the audit chain's, and none before the second asked.
    @Test(.enabled(if: Self.serverURL != nil, "RECEIPTDESK_TEST_POSTGRES_URL is unset (make test sets it)"))
    func aWaitForTheWriterLockIsCountedAsTheAuditChains() throws {
        let scratch = try ScratchSchema(server: try #require(Self.serverURL))
        defer { withExtendedLifetime(scratch) {} }  // the schema lives until the test ends
        let location = scratch.location

        let sampler = try LockWaitSampler(url: location, pids: [])
        sampler.start()
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), finished = DispatchGroup()
        let failures = Failures()
        finished.enter()
        Thread.detachNewThread {
            defer { finished.leave() }
            do {
                let holder = try PostgresDatabase(url: location)
                try holder.writeTransaction {
                    try holder.lockWriters()
                    _ = try holder.queryFirst("SELECT 1 AS one", [])  // sends the queued lock
                    held.signal()
                    release.wait()
                }
            } catch { held.signal(); failures.add("holder: \(error)") }
        }
        held.wait()
        // Samples before anyone waits: none is the audit chain's.
        let before = Self.poll(sampler) { $0.samples >= 3 }
        #expect(before.waits[.auditChain] == nil)

        finished.enter()
        Thread.detachNewThread {
            defer { finished.leave() }
            do {
                let waiter = try PostgresDatabase(url: location)
                // Waits however long the sampler takes on a loaded machine (the product's
                // sessions give up after 10 s): the holder lets go only once the wait was seen.
                try waiter.execute("SET lock_timeout = 0", [])
                try waiter.writeTransaction {
                    try waiter.lockWriters()
                    _ = try waiter.queryFirst("SELECT 1 AS one", [])  // waits here until the holder commits
                }
            } catch { failures.add("waiter: \(error)") }
        }
        let during = Self.poll(sampler) { ($0.waits[.auditChain] ?? 0) >= 2 }
        release.signal()
        finished.wait()
        let result = sampler.stop()
        #expect(failures.values.isEmpty, "\(failures.values)")
        #expect((during.waits[.auditChain] ?? 0) >= 2, "the waiter's wait was seen as the audit chain's: \(during.waits)")
        #expect((result.waits[.auditChain] ?? 0) >= 2 && result.samples > before.samples)
    }

    /// A row held by the first session of an import: its second session (holding an advisory
    /// lock of the first's class, as an import's second lane does) waits for it as the import's
    /// own; a session of no import waiting behind them does not.
    @Test(.enabled(if: Self.serverURL != nil, "RECEIPTDESK_TEST_POSTGRES_URL is unset (make test sets it)"))
    func aWaitForARowOfTheImportsOtherSessionIsItsOwn() throws {
        let scratch = try ScratchSchema(server: try #require(Self.serverURL))
        defer { withExtendedLifetime(scratch) {} }  // the schema lives until the test ends
        let location = scratch.location
        let setup = try PostgresDatabase(url: location)
        try setup.execute("CREATE TABLE held (id INTEGER PRIMARY KEY)", [])
        try setup.execute("INSERT INTO held (id) VALUES (1)", [])
        let sampler = try LockWaitSampler(url: location, pids: [])

        let pids = Pids(), failures = Failures()
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), finished = DispatchGroup()
        /// A session that (after `before`) locks the row and, as the holder, keeps it until released.
        func session(_ name: String, holds: Bool = false, before: @escaping @Sendable (PostgresDatabase) throws -> Void = { _ in }) {
            finished.enter()
            Thread.detachNewThread {
                defer { finished.leave() }
                do {
                    let database = try PostgresDatabase(url: location)
                    try database.execute("SET lock_timeout = 0", [])  // waits however loaded the machine is
                    pids.set(name, try database.queryFirst("SELECT pg_backend_pid() AS pid", [])?.int("pid") ?? 0)
                    try before(database)
                    try database.writeTransaction {
                        _ = try database.queryFirst("SELECT id FROM held WHERE id = 1 FOR UPDATE", [])
                        if holds { held.signal(); release.wait() }
                    }
                } catch { if holds { held.signal() }; failures.add("\(name): \(error)") }
            }
        }
        session("first lane", holds: true) { database in
            _ = try database.query("SELECT 1 AS locked FROM (SELECT pg_advisory_lock(pg_backend_pid(), 1)) AS turn", [])
        }
        held.wait()
        let firstLane = pids.get("first lane")
        session("second lane") { database in
            _ = try database.query("SELECT 1 AS locked FROM (SELECT pg_advisory_lock(?::int, 2)) AS turn", [.integer(firstLane)])
        }
        // The second lane queues first (it then holds the row's place in line), the stranger behind it.
        let laneWait = try Self.waitOf("second lane", pids, sampler)
        session("stranger")
        let strangerWait = try Self.waitOf("stranger", pids, sampler)
        release.signal()
        finished.wait()
        #expect(failures.values.isEmpty, "\(failures.values)")
        #expect(laneWait == .ownTurn, "the second lane waits for its own import's row")
        #expect(strangerWait == .other, "a session of no import waits for another writer")
    }

    /// What the session called `name` waits for, once a sample shows it waiting (nil after a minute).
    private static func waitOf(_ name: String, _ pids: Pids, _ sampler: LockWaitSampler) throws -> LockWaitKind? {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let pid = pids.get(name)
            if pid != 0, let wait = try sampler.sampleOnce().first(where: { $0.pid == pid }) { return wait.kind }
            usleep(5_000)
        }
        return nil
    }

    private static var serverURL: String? {
        ProcessInfo.processInfo.environment["RECEIPTDESK_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The sampler's progress once `done` says so; gives up after a minute (the caller's checks
    /// then fail) so a broken sampler cannot hang the run.
    private static func poll(_ sampler: LockWaitSampler, until done: ((samples: Int, waits: [LockWaitKind: Int])) -> Bool)
        -> (samples: Int, waits: [LockWaitKind: Int]) {
        let deadline = Date().addingTimeInterval(60)
        var progress = sampler.progress
        while !done(progress) && Date() < deadline {
            usleep(5_000)
            progress = sampler.progress
        }
        return progress
    }
}

/// Errors from the test's threads.
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ failure: String) { lock.withLock { list.append(failure) } }
    var values: [String] { lock.withLock { list } }
}

/// The test sessions' process ids by name.
private final class Pids: @unchecked Sendable {
    private let lock = NSLock()
    private var byName: [String: Int64] = [:]
    func set(_ name: String, _ pid: Int64) { lock.withLock { byName[name] = pid } }
    func get(_ name: String) -> Int64 { lock.withLock { byName[name] ?? 0 } }
}

/// A fresh schema on the test server, dropped when the test lets go of it.
private final class ScratchSchema {
    let location: String
    private let server: String
    private let name = "rdtest_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()

    init(server: String) throws {
        self.server = server
        try PostgresDatabase(url: server).execute("CREATE SCHEMA \(name)", [])
        location = server + (server.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(name)"
    }

    deinit { _ = try? PostgresDatabase(url: server).execute("DROP SCHEMA \(name) CASCADE", []) }  // best effort: a throwaway server
}
