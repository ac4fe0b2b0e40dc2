import Foundation

/// A transaction's audit entries appended on PostgreSQL by one statement that reads the chain's
/// head, hashes each entry onto the one before and writes the entries and the new head, sent in
/// the commit's pipeline: no round trip while the chain's lock is held. With the head read by
/// the client and the hashes computed there, every writer held the lock across a round trip and
/// its process's turn on the CPU; from 4 importing processes on 2 cores that was most of their
/// lock waits.
///
/// The hashes are exactly `AuditLog.hash`'s (the same length-prefixed UTF-8 fields, SHA-256, lower-
/// case hex), so the chain verifies with `AuditLog.verify` whoever appended; the tests check a
/// chain written this way entry by entry against the client's hash.
enum AuditChainOnServer {
    /// One field of the hashed material: its length in UTF-8 bytes, a colon, the field.
    private static func field(_ expression: String) -> String {
        "octet_length(convert_to(\(expression), 'UTF8'))::text || ':' || \(expression)"
    }

    /// The hash of the entry `e` at `seq` after `previous`, with the database user `w.db_user`
    /// when there is one (as `AuditLog.hash`: one more field, "db:" and the user).
    private static func hash(seq: String, previous: String) -> String {
        let fields = [field("(\(seq))::text"), field("e.at"), field("e.operator"), field("e.action"), field("e.target"),
                      field("e.details"), field(previous)].joined(separator: " || ")
        return """
            encode(sha256(convert_to(\(fields) || CASE WHEN w.db_user IS NULL THEN '' ELSE \(field("('db:' || w.db_user)")) END, 'UTF8')), 'hex')
            """
    }

    /// The statement: its parameters are the entries' dates, operators, actions, targets and
    /// details (five text arrays, in order) and the database user (text or NULL).
    static let sql = """
        WITH RECURSIVE entry AS MATERIALIZED (
            SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
                WITH ORDINALITY AS e(at, operator, action, target, details, n)),
          who AS (SELECT ?::text AS db_user),
          head AS (SELECT coalesce((SELECT seq FROM audit_head WHERE id = 1), 0) AS seq,
                          coalesce((SELECT hash FROM audit_head WHERE id = 1), '\(AuditLog.genesis)') AS hash),
          chain (n, seq, at, operator, action, target, details, prev_hash, hash) AS (
            SELECT e.n, h.seq + 1, e.at, e.operator, e.action, e.target, e.details, h.hash,
                   \(hash(seq: "h.seq + 1", previous: "h.hash"))
              FROM head h CROSS JOIN who w JOIN entry e ON e.n = 1
            UNION ALL
            SELECT e.n, c.seq + 1, e.at, e.operator, e.action, e.target, e.details, c.hash,
                   \(hash(seq: "c.seq + 1", previous: "c.hash"))
              FROM chain c CROSS JOIN who w JOIN entry e ON e.n = c.n + 1),
          written AS (
            INSERT INTO audit_log (seq, at, operator, action, target, details, prev_hash, hash, db_user)
            SELECT seq, at, operator, action, target, details, prev_hash, hash, (SELECT db_user FROM who) FROM chain
            RETURNING seq, hash)
        INSERT INTO audit_head (id, seq, hash) SELECT 1, seq, hash FROM written ORDER BY seq DESC LIMIT 1
        ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash
        """

    /// The statement's parameters for `entries` written by `user`.
    static func parameters(_ entries: [PendingAuditEntry], user: String?) -> [SQLValue] {
        [.text(PostgresArrayLiteral.text(entries.map(\.at))), .text(PostgresArrayLiteral.text(entries.map(\.operatorName))),
         .text(PostgresArrayLiteral.text(entries.map(\.action))), .text(PostgresArrayLiteral.text(entries.map(\.target))),
         .text(PostgresArrayLiteral.text(entries.map(\.details))), .text(user)]
    }
}
