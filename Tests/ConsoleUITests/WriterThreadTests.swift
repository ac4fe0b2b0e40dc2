import Foundation
import PurchaseStore
import ReceiptCore
import Testing
@testable import ConsoleUI

/// A confirmed change is written on a connection and a thread of its own: while it waits for
/// another operator's lock the screen stays live and says so, Esc gives the wait up with nothing
/// written, and without Esc it lands once the lock is free.
@Suite("Changes written off the screen's thread", .serialized)
struct WriterThreadTests {
    /// Another operator's open write transaction on the same SQLite file.
    func holdWriteLock(_ f: ConsoleFixture) throws -> SQLiteDatabase {
        let holder = try SQLiteDatabase(path: f.path, create: false)
        try holder.execute("BEGIN IMMEDIATE", [])
        return holder
    }

    func confirmGrant(_ c: ConsoleController, _ screen: VirtualScreen) {
        c.press(.character("g"), on: screen)
        c.press(.tab, on: screen)
        c.typeText("P30D", on: screen)
        c.press(.tab, on: screen)
        c.typeText("goodwill", on: screen)
        c.press(.enter, on: screen)
        c.press(.character("y"), on: screen)
    }

    /// Ticks until `condition`, at most `seconds` (bounded: the test fails, never hangs).
    func tick(_ c: ConsoleController, _ screen: VirtualScreen, within seconds: Double, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            c.tick()
            c.render(on: screen)
            usleep(20_000)
        }
        return true
    }

    @Test func escGivesUpAWaitForTheLockAndNothingIsWritten() throws {
        let f = try ConsoleFixture()
        let writer = try ConsoleFixture.ledger(try SQLiteDatabase(path: f.path, create: false), f.authority)
        let (c, screen) = f.console(size: ScreenSize(rows: 30, columns: 120), writer: writer)
        let holder = try holdWriteLock(f)
        defer { _ = try? holder.execute("ROLLBACK", []) }
        let started = Date()
        confirmGrant(c, screen)
        // The screen's thread is back at once: keys still move the selection while the change waits.
        #expect(Date().timeIntervalSince(started) < 5, "confirming blocked the screen")
        #expect(c.state.applying != nil)
        c.press(.down, on: screen)
        #expect(screen.text.contains("Esc gives up"), "\(screen.text)")
        c.press(.escape, on: screen)
        #expect(tick(c, screen, within: 8) { c.state.applying == nil }, "the wait was not given up")
        #expect(screen.text.contains("gave up waiting for another operator's change to finish; nothing changed"), "\(screen.text)")
        _ = try holder.execute("ROLLBACK", [])
        #expect(try f.database.queryFirst("SELECT count(*) AS n FROM grants WHERE reason = 'goodwill'", [])?.int("n") == 0)
    }

    @Test func withoutEscTheChangeLandsOnceTheLockIsFree() throws {
        let f = try ConsoleFixture()
        let writer = try ConsoleFixture.ledger(try SQLiteDatabase(path: f.path, create: false), f.authority)
        let (c, screen) = f.console(size: ScreenSize(rows: 30, columns: 120), writer: writer)
        let holder = try holdWriteLock(f)
        confirmGrant(c, screen)
        #expect(c.state.applying != nil)
        usleep(300_000)
        _ = try holder.execute("COMMIT", [])  // the other operator finishes
        #expect(tick(c, screen, within: 15) { c.state.applying == nil }, "the change never finished")
        #expect(screen.text.contains("granted coins to alice"), "\(screen.text)")
        #expect(try f.database.queryFirst("SELECT count(*) AS n FROM grants WHERE reason = 'goodwill'", [])?.int("n") == 1)
    }
}
