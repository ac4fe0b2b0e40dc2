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

/// The PostgreSQL `changes` channel: a trigger on every ledger table sends
/// `schema.table:key` with each committed row change (NOTIFY is delivered at commit, and not at
/// all on rollback), so every console on the database hears every change, whoever made it.
enum PostgresChangeFeed {
    static let channel = "changes"
    static let triggerName = "receiptdesk_changes_v1"
    /// Each watched table and the column that names a row.
    static let watched: [(table: String, key: String)] = [
        ("customers", "customer_id"), ("orders", "order_id"), ("receipts", "receipt_id"),
        ("transactions", "transaction_id"), ("conflicts", "conflict_id"), ("grants", "grant_id"),
        ("revocations", "revocation_id"), ("entitlements", "customer_id"), ("verification_attempts", "attempt_id"),
        ("notifications", "notification_uuid"), ("audit_log", "seq"),
    ]

    /// Creates the triggers when the database lacks them (after migrations; once per database).
    static func install(_ database: PostgresDatabase) throws {
        let countSQL = """
            SELECT count(*) AS n FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
            WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND t.tgname = ?
            """
        guard try database.queryFirst(countSQL, [.text(triggerName)])?.int("n") != Int64(watched.count) else { return }
        try database.writeTransaction {
            guard try database.queryFirst(countSQL, [.text(triggerName)])?.int("n") != Int64(watched.count) else { return }
            for (table, key) in watched {
                let function = "receiptdesk_notify_\(table)"
                try database.execute("""
                    CREATE OR REPLACE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql AS $body$
                    BEGIN
                        PERFORM pg_notify('\(channel)', TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME || ':'
                                          || (CASE WHEN TG_OP = 'DELETE' THEN OLD.\(key) ELSE NEW.\(key) END)::text);
                        RETURN NULL;
                    END
                    $body$
                    """, [])
                try database.execute("""
                    CREATE OR REPLACE TRIGGER \(triggerName) AFTER INSERT OR UPDATE OR DELETE ON \(table)
                    FOR EACH ROW EXECUTE FUNCTION \(function)()
                    """, [])
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
        let present = try queryFirst("""
            SELECT count(*) AS n FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
            WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND t.tgname = ?
            """, [.text(PostgresChangeFeed.triggerName)])?.int("n") ?? 0
        guard present == Int64(PostgresChangeFeed.watched.count) else { return }
        for (table, _) in PostgresChangeFeed.watched {
            try execute("ALTER TABLE \(table) \(enabled ? "ENABLE" : "DISABLE") TRIGGER \(PostgresChangeFeed.triggerName)", [])
        }
    }
}
