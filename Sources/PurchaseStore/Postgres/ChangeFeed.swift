import Foundation

/// A database that says when someone changed it: what the console's live view waits on.
public protocol ChangeNotifying: AnyObject {
    /// Waits up to `timeout` seconds for committed changes and returns them as `table:key`
    /// entries (e.g. `transactions:1000000359369424`, `audit_log:812`), deduplicated, oldest first;
    /// nil when nothing changed in time. Changes this connection made are included. `["*"]` means
    /// changes may have been missed (the connection was re-established): reload everything.
    func waitForChange(timeout: TimeInterval) throws -> [String]?
}

/// Picks the change feed for a database: LISTEN/NOTIFY on PostgreSQL, polling the audit head
/// elsewhere (every ledger change appends to the audit log).
public enum ChangeFeeds {
    public static func make(for database: SQLDatabase) -> ChangeNotifying {
        if let postgres = database as? PostgresDatabase { return postgres }
        return AuditHeadPoller(database)
    }
}

/// Polls `audit_head` (one indexed row) and reports `audit_log:SEQ` when it moved: a change feed
/// for backends without notifications. The first call only takes the starting point.
public final class AuditHeadPoller: ChangeNotifying {
    private let database: SQLDatabase
    private let interval: TimeInterval
    private var lastSeq: Int64?

    /// Polls `database` every `interval` seconds while waiting.
    public init(_ database: SQLDatabase, interval: TimeInterval = 0.25) {
        self.database = database
        self.interval = interval
    }

    public func waitForChange(timeout: TimeInterval) throws -> [String]? {
        let deadline = Date().addingTimeInterval(timeout)
        if lastSeq == nil { lastSeq = try head() }
        while true {
            let seq = try head()
            if seq != lastSeq {
                lastSeq = seq
                return ["audit_log:\(seq)"]
            }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return nil }
            usleep(useconds_t(min(remaining, interval) * 1_000_000))
        }
    }

    private func head() throws -> Int64 {
        try database.queryFirst("SELECT seq FROM audit_head WHERE id = 1", [])?.int("seq") ?? 0
    }
}

/// The PostgreSQL `changes` channel: triggers on every ledger table send `schema.table:key`
/// with each committed row change (NOTIFY is delivered at commit, and not at all on rollback),
/// so every console on the database hears every change, whoever made it. The triggers run once
/// per statement and notify each row of its transition table: a batch import's multi-row
/// insert costs one trigger call, not one per row (the same notifications as a trigger per row,
/// for about a tenth less server time per imported transaction).
enum PostgresChangeFeed {
    static let channel = "changes"
    /// The triggers' name prefix: `…_insert`, `…_update` and `…_delete` on each watched table.
    static let triggerPrefix = "receiptdesk_changes_v2"
    /// The triggers of the first version (one call per row), replaced by these.
    static let formerTrigger = "receiptdesk_changes_v1"
    /// Each watched table and the column that names a row.
    static let watched: [(table: String, key: String)] = [
        ("customers", "customer_id"), ("orders", "order_id"), ("receipts", "receipt_id"),
        ("transactions", "transaction_id"), ("conflicts", "conflict_id"), ("grants", "grant_id"),
        ("revocations", "revocation_id"), ("entitlements", "customer_id"), ("verification_attempts", "attempt_id"),
        ("notifications", "notification_uuid"), ("audit_log", "seq"),
    ]
    /// Each event, and the transition table its trigger reads.
    static let events: [(event: String, rows: String)] = [("insert", "NEW TABLE AS new_rows"), ("update", "NEW TABLE AS new_rows"),
                                                          ("delete", "OLD TABLE AS old_rows")]

    /// This version's triggers and the first version's, counted in the current schema.
    static func triggerCounts(_ database: PostgresDatabase) throws -> (current: Int64, former: Int64) {
        let row = try database.queryFirst("""
            SELECT count(*) FILTER (WHERE t.tgname LIKE ? || '%') AS current, count(*) FILTER (WHERE t.tgname = ?) AS former
            FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
            WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
            """, [.text(triggerPrefix + "_"), .text(formerTrigger)])
        return (row?.int("current") ?? 0, row?.int("former") ?? 0)
    }

    /// How many triggers this version installs: one per event on each watched table.
    static var triggerCount: Int64 { Int64(watched.count * events.count) }

    /// Creates the triggers when the database lacks them, and drops those of the first version
    /// (after migrations; once per database).
    static func install(_ database: PostgresDatabase) throws {
        let installed = { try triggerCounts(database) == (current: triggerCount, former: 0) }
        guard try !installed() else { return }
        try database.writeTransaction {
            guard try !installed() else { return }
            for (table, key) in watched {
                // A function of its own name: one of the first version's, replaced by an older
                // receiptdesk on the same database, would not break these triggers.
                let function = "receiptdesk_notify_rows_\(table)"
                let notify = "PERFORM pg_notify('\(channel)', TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME || ':' || changed.\(key)::text)"
                try database.execute("""
                    CREATE OR REPLACE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql AS $body$
                    BEGIN
                        IF TG_OP = 'DELETE' THEN
                            \(notify) FROM old_rows AS changed;
                        ELSE
                            \(notify) FROM new_rows AS changed;
                        END IF;
                        RETURN NULL;
                    END
                    $body$
                    """, [])
                try database.execute("DROP TRIGGER IF EXISTS \(formerTrigger) ON \(table)", [])
                for (event, rows) in events {
                    try database.execute("""
                        CREATE OR REPLACE TRIGGER \(triggerPrefix)_\(event) AFTER \(event.uppercased()) ON \(table)
                        REFERENCING \(rows) FOR EACH STATEMENT EXECUTE FUNCTION \(function)()
                        """, [])
                }
            }
        }
    }
}

extension PostgresDatabase: ChangeNotifying {
    /// Starts listening on the `changes` channel (waitForChange does it on first use). Changes
    /// committed before this are not reported: listen first, then read what the screen shows.
    public func listenForChanges() throws {
        guard !isListening else { return }
        guard !isInTransaction else {
            throw StoreError(.invalidRequest, "listening for changes inside a write transaction: call it between transactions")
        }
        try execute("LISTEN \(PostgresChangeFeed.channel)", [])
        isListening = true
    }

    /// Besides `table:key` entries, returns `["*"]` after the session had to reconnect: changes
    /// made while it was away were not heard, so reload everything.
    public func waitForChange(timeout: TimeInterval) throws -> [String]? {
        if isListening && connection.isBroken {
            try reconnect(after: nil)
            return ["*"]
        }
        try listenForChanges()
        let deadline = Date().addingTimeInterval(timeout)
        let prefix = (schemaName.isEmpty ? "public" : schemaName) + "."
        var found: [String] = []
        var readOnce = false
        while true {
            for notification in connection.takeNotifications() where notification.channel == PostgresChangeFeed.channel {
                guard notification.payload.hasPrefix(prefix) else { continue }  // another schema's ledger
                let entry = String(notification.payload.dropFirst(prefix.count))
                if !found.contains(entry) { found.append(entry) }
            }
            if !found.isEmpty { return found }
            let remaining = deadline.timeIntervalSinceNow
            // Even with no time left, read what the server already sent once (timeout 0 polls).
            if remaining <= 0 && readOnce { return nil }
            readOnce = true
            do {
                _ = try connection.awaitInput(timeout: max(0, remaining))
            } catch let failure as PostgresFailure {
                // The server went away: one attempt at a new session, which must reload everything.
                guard (try? reconnect(after: failure)) != nil else {  // the failure below says what happened
                    throw failure.storeError(doing: "waiting for changes", location: location)
                }
                return ["*"]
            }
        }
    }
}

extension PostgresDatabase {
    /// Turns the change triggers off or on inside the open write transaction (a bulk copy sends
    /// no per-row notifications; turning them on again commits with it).
    func setChangeTriggers(enabled: Bool) throws {
        guard try PostgresChangeFeed.triggerCounts(self).current == PostgresChangeFeed.triggerCount else { return }
        for (table, _) in PostgresChangeFeed.watched {
            for (event, _) in PostgresChangeFeed.events {
                try execute("ALTER TABLE \(table) \(enabled ? "ENABLE" : "DISABLE") TRIGGER \(PostgresChangeFeed.triggerPrefix)_\(event)", [])
            }
        }
    }
}
