import Foundation

/// How the imports of one ledger (one schema of one database) see each other: the session an
/// import (`importStream`) runs on carries the ledger's import name as its `application_name`
/// while it does, and `pg_stat_activity` shows any role that name (with the process id, never the
/// query). An import writes on two sessions (`ImportLanes`) only while no other import of the
/// ledger is running:
/// alone, the second session keeps the server busy while the client works out the next batch;
/// beside other imports the server is kept busy by them, and a second session only waits for its
/// first one (from 4 processes on 2 cores: 3% of wall time in lock waits on one session each,
/// 9–12% on two, and more transactions a second).
extension PostgresDatabase {
    /// The `application_name` of this ledger's importing sessions (the schema's writer lock key
    /// names the ledger: two schemas of one database import side by side without a look at each other).
    var importName: String { "receiptdesk import \(writerLockKey)" }

    /// Names this session as one of the ledger's importing sessions until `stopImporting`.
    func startImporting() throws {
        _ = try query("SELECT set_config('application_name', ?, false) AS name", [.text(importName)])
    }

    /// Gives the session back the name it connected with (the product sets no other).
    func stopImporting() throws {
        _ = try execute("RESET application_name", [])
    }

    /// Whether a session other than `own` (server process ids) is running an import of this ledger.
    func otherImportsRunning(besides own: [Int32]) throws -> Bool {
        let query = otherImportsQuery(besides: own)
        return (try queryFirst(query.sql, query.parameters)?.int("others") ?? 0) > 0
    }

    /// The query of `otherImportsRunning` (a count, `others`), for a pipeline of statements.
    func otherImportsQuery(besides own: [Int32]) -> (sql: String, parameters: [SQLValue]) {
        ("""
         SELECT count(*) AS others FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = ? AND NOT (pid = ANY (?::int[]))
         """, [.text(importName), .text("{" + own.map(String.init).joined(separator: ",") + "}")])
    }
}
