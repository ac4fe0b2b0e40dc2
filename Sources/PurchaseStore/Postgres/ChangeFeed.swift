import Foundation

/// A database that says when someone changed it: what the console's live view waits on.
public protocol ChangeNotifying: AnyObject {
    /// Waits up to `timeout` seconds for committed changes and returns what changed without naming
    /// anyone: `audit_log:SEQ` (the audit head now) and, where the backend knows them, the tables
    /// changed (`customers`, `grants`), deduplicated; nil when nothing changed in time. Changes
    /// this connection made are included. `["*"]` means changes may have been missed (the
    /// connection was re-established): reload everything.
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
        try PostgresChangeFeed.auditHead(database)
    }
}

/// The PostgreSQL `changes` channel. Any role that can connect may LISTEN to it and NOTIFY on it,
/// so a notice carries nothing about anyone and proves nothing:
/// - the triggers on every ledger table send `schema.table` (the audit log's: `schema.audit_log:SEQ`,
///   the sequence number of its newest entry), never a row's key: no customer, transaction or
///   order id, email or name crosses the channel;
/// - a notice is only a hint: the listener reads the audit head with its own read rights and reports
///   a change only when the head moved past what it last saw (every ledger change appends to the
///   audit log in its own transaction, as `AuditHeadPoller` relies on too), so a notice sent by
///   hand is ignored.
/// NOTIFY is delivered at commit (and not at all on rollback), so every console on the database
/// hears every change, whoever made it. The triggers run once per statement and send one notice
/// for a statement that changed rows (none for one that changed nothing): a batch import's
/// multi-row insert costs one trigger call, not one per row.
enum PostgresChangeFeed {
    static let channel = "changes"
    /// The triggers' name prefix: `…_insert`, `…_update` and `…_delete` on each watched table.
    static let triggerPrefix = "receiptdesk_changes_v3"
    /// The triggers of earlier versions, replaced by these: the first version's (one call per row)
    /// and the second's (one call per statement, but a notice per row naming the row's key).
    static let formerTriggers = ["receiptdesk_changes_v1"] + events.map { "receiptdesk_changes_v2_\($0.event)" }
    /// The tables whose changes are announced.
    static let watched = ["customers", "orders", "receipts", "transactions", "conflicts", "grants", "revocations", "entitlements",
                          "verification_attempts", "notifications", "audit_log"]
    /// Each event, and the transition table its trigger reads.
    static let events: [(event: String, rows: String)] = [("insert", "NEW TABLE AS new_rows"), ("update", "NEW TABLE AS new_rows"),
                                                          ("delete", "OLD TABLE AS old_rows")]

    /// This version's triggers and the earlier versions', counted in the current schema.
    static func triggerCounts(_ database: PostgresDatabase) throws -> (current: Int64, former: Int64) {
        let row = try database.queryFirst("""
            SELECT count(*) FILTER (WHERE t.tgname LIKE ? || '%') AS current,
                   count(*) FILTER (WHERE t.tgname = ANY (string_to_array(?, ','))) AS former
            FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
            WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
            """, [.text(triggerPrefix + "_"), .text(formerTriggers.joined(separator: ","))])
        return (row?.int("current") ?? 0, row?.int("former") ?? 0)
    }

    /// How many triggers this version installs: one per event on each watched table.
    static var triggerCount: Int64 { Int64(watched.count * events.count) }

    /// The trigger function of a table: what its notice says (the table, and for the audit log
    /// the sequence number of its newest entry), sent only when the statement changed rows.
    static func function(for table: String) -> (name: String, body: String) {
        func notify(_ rows: String) -> String {
            let number = table == "audit_log" ? " || ':' || (SELECT max(seq) FROM \(rows))::text" : ""
            return "PERFORM pg_notify('\(channel)', TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME\(number)) WHERE EXISTS (SELECT 1 FROM \(rows))"
        }
        let name = table == "audit_log" ? "receiptdesk_notify_audit_v3" : "receiptdesk_notify_table_v3"
        return (name, """
            CREATE OR REPLACE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $body$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    \(notify("old_rows"));
                ELSE
                    \(notify("new_rows"));
                END IF;
                RETURN NULL;
            END
            $body$
            """)
    }

    /// Creates the triggers when the database lacks them, and drops those of earlier versions
    /// (after migrations; once per database).
    static func install(_ database: PostgresDatabase) throws {
        let installed = { try triggerCounts(database) == (current: triggerCount, former: 0) }
        guard try !installed() else { return }
        try database.writeTransaction {
            guard try !installed() else { return }
            for table in watched {
                // Functions of their own names: an older receiptdesk replacing its own on the same
                // database does not change what these triggers send.
                let notifier = function(for: table)
                try database.execute(notifier.body, [])
                for former in formerTriggers { try database.execute("DROP TRIGGER IF EXISTS \(former) ON \(table)", []) }
                // The second version's function named each row's key: nothing calls it any more.
                try database.execute("DROP FUNCTION IF EXISTS receiptdesk_notify_rows_\(table)()", [])
                for (event, rows) in events {
                    try database.execute("""
                        CREATE OR REPLACE TRIGGER \(triggerPrefix)_\(event) AFTER \(event.uppercased()) ON \(table)
                        REFERENCING \(rows) FOR EACH STATEMENT EXECUTE FUNCTION \(notifier.name)()
                        """, [])
                }
            }
        }
    }

    /// The watched table a notice names for `schema` (`schema.table` or `schema.table:N`); nil
    /// for another schema's notice or a name that is not one of the watched tables.
    static func table(in payload: String, schema: String) -> String? {
        let prefix = schema + "."
        guard payload.hasPrefix(prefix) else { return nil }
        let name = String(payload.dropFirst(prefix.count).prefix { $0 != ":" })
        return watched.contains(name) ? name : nil
    }

    /// The audit head: the sequence number of the newest audit entry (0 for an empty log), read
    /// with the reader's own rights.
    static func auditHead(_ database: SQLDatabase) throws -> Int64 {
        try database.queryFirst("SELECT seq FROM audit_head WHERE id = 1", [])?.int("seq") ?? 0
    }
}

extension PostgresDatabase: ChangeNotifying {
    /// Starts listening on the `changes` channel (waitForChange does it on first use) and takes
    /// the audit head as the starting point. Changes committed before this are not reported:
    /// listen first, then read what the screen shows.
    public func listenForChanges() throws {
        guard !isListening else { return }
        guard !isInTransaction else {
            throw StoreError(.invalidRequest, "listening for changes inside a write transaction: call it between transactions")
        }
        try execute("LISTEN \(PostgresChangeFeed.channel)", [])
        isListening = true
        heardAuditHead = try PostgresChangeFeed.auditHead(self)
    }

    /// Returns the tables the notices named (`customers`, `grants`, …) and `audit_log:SEQ`, the
    /// audit head this session read, once the head moved past what it last saw; notices that
    /// come with no such move (sent by hand, by anyone who can connect) are ignored. Returns
    /// `["*"]` after the session had to reconnect: changes made while it was away were not
    /// heard, so reload everything.
    public func waitForChange(timeout: TimeInterval) throws -> [String]? {
        if isListening && connection.isBroken {
            try reconnect(after: nil)
            heardAuditHead = try PostgresChangeFeed.auditHead(self)
            return ["*"]
        }
        try listenForChanges()
        let deadline = Date().addingTimeInterval(timeout)
        var named: [String] = []
        var readOnce = false
        while true {
            for notification in connection.takeNotifications() where notification.channel == PostgresChangeFeed.channel {
                // Another schema's ledger, or no table of ours: not for this database.
                guard let table = PostgresChangeFeed.table(in: notification.payload, schema: schemaName) else { continue }
                if !named.contains(table) { named.append(table) }
            }
            if !named.isEmpty {
                let session = connection.backendPID
                let head = try PostgresChangeFeed.auditHead(self)
                // The read reconnected (the server dropped the session): notices may have been lost.
                if connection.backendPID != session { heardAuditHead = head; return ["*"] }
                if head != heardAuditHead {
                    heardAuditHead = head
                    return named.filter { $0 != "audit_log" } + ["audit_log:\(head)"]
                }
                named = []  // nothing committed that this session can read: a notice sent by hand
            }
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
                heardAuditHead = try PostgresChangeFeed.auditHead(self)
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
        for table in PostgresChangeFeed.watched {
            for (event, _) in PostgresChangeFeed.events {
                try execute("ALTER TABLE \(table) \(enabled ? "ENABLE" : "DISABLE") TRIGGER \(PostgresChangeFeed.triggerPrefix)_\(event)", [])
            }
        }
    }
}
