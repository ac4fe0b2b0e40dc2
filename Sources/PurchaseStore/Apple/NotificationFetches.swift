import AppStoreAPI
import Foundation
import ReceiptCore

/// A Get Notification History fetch (table `notification_fetches`): its period, how far it got,
/// and the paging token of the next page, so an interrupted fetch resumes where it stopped.
public struct NotificationFetch: Sendable, Equatable {
    public let fetchId: Int64
    public let environment: String
    public let startDate: Date
    public let endDate: Date
    /// The token of the next page (nil: start from the first page, or done).
    public let nextToken: String?
    public let pages: Int64
    /// Notifications read so far.
    public let seen: Int64
    /// Of those, applied for the first time (the rest were applied before: same notificationUUID).
    public let applied: Int64
    /// "running" or "done".
    public let status: String
    public let startedAt: Date?
    public let operatorName: String
}

/// Test notifications asked of Apple (table `test_notifications`).
public struct TestNotificationRecord: Sendable, Equatable {
    public let token: String
    public let environment: String
    public let requestedAt: Date?
    public let operatorName: String
    public let lastResult: String?
    public let checkedAt: Date?
}

extension PurchaseLedger {
    /// The unfinished fetch of the same period and environment (to resume), else a new one.
    /// `openEnded` (no end was given: `end` is now): any unfinished fetch from the same start is
    /// resumed with the end it was started with (Apple's paging token belongs to that period),
    /// so a fetch killed halfway goes on from its last page instead of starting again.
    func beginNotificationFetch(start: Date, end: Date, openEnded: Bool = false, environment: Environment,
                                operatorName: String) throws -> NotificationFetch {
        try Validate.operatorName(operatorName)
        guard start < end else { throw StoreError(.invalidInput, "the period's start \(StoreDates.format(start)) is not before its end \(StoreDates.format(end))") }
        let now = clock()
        return try database.writeTransaction {
            let running = openEnded
                ? try database.queryFirst("""
                    SELECT * FROM notification_fetches WHERE environment = ? AND start_date = ? AND end_date <= ? AND status = 'running'
                    ORDER BY fetch_id DESC LIMIT 1
                    """, [.text(environment.rawValue), .date(start), .date(end)])
                : try database.queryFirst("""
                    SELECT * FROM notification_fetches WHERE environment = ? AND start_date = ? AND end_date = ? AND status = 'running'
                    ORDER BY fetch_id DESC LIMIT 1
                    """, [.text(environment.rawValue), .date(start), .date(end)])
            if let running { return Self.fetch(running) }
            try database.execute("""
                INSERT INTO notification_fetches (environment, start_date, end_date, status, started_at, updated_at, operator)
                VALUES (?, ?, ?, 'running', ?, ?, ?)
                """, [.text(environment.rawValue), .date(start), .date(end), .date(now), .date(now), .text(operatorName)])
            guard let row = try database.queryFirst("SELECT * FROM notification_fetches ORDER BY fetch_id DESC LIMIT 1", []) else {
                throw StoreError(.sql, "the notification fetch just stored is not there")
            }
            return Self.fetch(row)
        }
    }

    /// Records one page read: the next token (nil when it was the last) and the counts.
    func recordNotificationPage(_ fetchId: Int64, nextToken: String?, seen: Int, applied: Int, operatorName: String) throws -> NotificationFetch {
        let now = clock()
        return try database.writeTransaction {
            try database.execute("""
                UPDATE notification_fetches SET next_token = ?, pages = pages + 1, seen = seen + ?, applied = applied + ?, status = ?,
                                                updated_at = ? WHERE fetch_id = ?
                """, [.text(nextToken), .integer(Int64(seen)), .integer(Int64(applied)), .text(nextToken == nil ? "done" : "running"),
                      .date(now), .integer(fetchId)])
            guard let row = try database.queryFirst("SELECT * FROM notification_fetches WHERE fetch_id = ?", [.integer(fetchId)]) else {
                throw StoreError(.sql, "notification fetch \(fetchId) vanished")
            }
            let fetch = Self.fetch(row)
            if nextToken == nil {
                try audit(now, operatorName, "apple-notification-history", "fetch:\(fetchId)", .object([
                    ("environment", .string(fetch.environment)), ("start", .string(StoreDates.format(fetch.startDate))),
                    ("end", .string(StoreDates.format(fetch.endDate))), ("pages", .int(fetch.pages)), ("seen", .int(fetch.seen)),
                    ("applied", .int(fetch.applied)),
                ]))
            }
            return fetch
        }
    }

    /// Notification fetches, newest first.
    public func notificationFetches(limit: Int = 50) throws -> [NotificationFetch] {
        try database.query("SELECT * FROM notification_fetches ORDER BY fetch_id DESC LIMIT ?", [.integer(Int64(max(1, limit)))]).map(Self.fetch)
    }

    static func fetch(_ row: SQLRow) -> NotificationFetch {
        NotificationFetch(fetchId: row.int("fetch_id") ?? 0, environment: row.string("environment") ?? "",
                          startDate: row.date("start_date") ?? Date(timeIntervalSince1970: 0),
                          endDate: row.date("end_date") ?? Date(timeIntervalSince1970: 0), nextToken: row.string("next_token"),
                          pages: row.int("pages") ?? 0, seen: row.int("seen") ?? 0, applied: row.int("applied") ?? 0,
                          status: row.string("status") ?? "", startedAt: row.date("started_at"), operatorName: row.string("operator") ?? "")
    }

    /// Records a test notification Apple accepted to send, audited.
    func recordTestNotification(token: String, environment: Environment, operatorName: String) throws {
        try Validate.operatorName(operatorName)
        let now = clock()
        try database.writeTransaction {
            try database.execute("""
                INSERT INTO test_notifications (token, environment, requested_at, operator) VALUES (?, ?, ?, ?)
                ON CONFLICT (token) DO NOTHING
                """, [.text(token), .text(environment.rawValue), .date(now), .text(operatorName)])
            try audit(now, operatorName, "apple-test-notification", "token:\(token)", .object([("environment", .string(environment.rawValue))]))
        }
    }

    /// Records the latest delivery result of a test notification.
    func recordTestNotificationResult(token: String, result: String) throws {
        let now = clock()
        try database.writeTransaction {
            _ = try database.execute("UPDATE test_notifications SET last_result = ?, checked_at = ? WHERE token = ?",
                                     [.text(result), .date(now), .text(token)])
        }
    }

    /// Test notifications, newest first.
    public func testNotifications(limit: Int = 20) throws -> [TestNotificationRecord] {
        try database.query("SELECT * FROM test_notifications ORDER BY requested_at DESC LIMIT ?", [.integer(Int64(max(1, limit)))]).map {
            TestNotificationRecord(token: $0.string("token") ?? "", environment: $0.string("environment") ?? "", requestedAt: $0.date("requested_at"),
                                   operatorName: $0.string("operator") ?? "", lastResult: $0.string("last_result"), checkedAt: $0.date("checked_at"))
        }
    }
}
