import Foundation

/// The order of the batches of one import when two sessions write them side by side
/// (`ImportLanes`). Before batch n starts, its session takes, for the whole batch (its retries
/// included), a session-level advisory lock naming the batch and one per customer of the batch;
/// batch n+1 takes its own only after that, so it waits for batch n on every customer they share
/// (existing or about to be created) and then reads what batch n wrote. Before its first write,
/// batch n+1 waits for batch n's lock in shared mode, so its writes follow batch n's: the first
/// to claim a transaction id is the earlier item, as one after the other. Both waits are on the
/// server and batch n never waits for batch n+1, so they cannot form a cycle between the two; a
/// cycle through another writer's locks is a deadlock PostgreSQL breaks.
struct ImportTurn {
    /// The lock class of this import: its first session's server process id, unique on the
    /// server while that session lives (other imports never wait for these locks).
    let key: Int32
    /// This batch's position in the import.
    let batch: Int

    /// The lock of batch `batch` (a number that fits the lock's 32-bit half).
    static func lockNumber(_ batch: Int) -> Int32 { Int32(truncatingIfNeeded: batch) }
}

extension PostgresDatabase {
    /// Another session on the same database, opened as this one was (same server, user, schema,
    /// settings), for an import lane. Not migrated again: this session's opening did that.
    func openSibling() throws -> PostgresDatabase {
        let sibling = try PostgresDatabase(connection: try connection.sibling(), readOnly: isReadOnly)
        sibling.coalescesWrites = coalescesWrites
        return sibling
    }

    /// This session's server process id (the class of its import's turn locks).
    var backendProcessID: Int32 { connection.backendPID }

    /// Takes batch `turn.batch`'s locks (see `ImportTurn`), waiting for the batch before it on the
    /// customers they share; outside a transaction, held until `endImportTurn`.
    func beginImportTurn(_ turn: ImportTurn, customers: [String]) throws {
        _ = try queryPipelined([
            ("SELECT 1 AS locked FROM (SELECT pg_advisory_lock(?::int, ?::int)) AS own", [.integer(Int64(turn.key)), .integer(Int64(ImportTurn.lockNumber(turn.batch)))]),
            // A customer's lock in the 64-bit key space: the import's class, then the id's hash.
            ("""
             SELECT 1 AS locked FROM (SELECT pg_advisory_lock((?::bigint << 32) | (hashtext(customer)::bigint & 4294967295))
             FROM (SELECT DISTINCT unnest(?::text[]) AS customer) AS batch) AS customers
             """, [.integer(Int64(turn.key)), .text(PostgresArrayLiteral.text(customers))]),
        ])
        importTurn = turn
    }

    /// Releases the batch's locks: the next batch may write, and have its customers. A session
    /// that cannot release them is closed and opened again (the server then drops them).
    func endImportTurn() {
        importTurn = nil
        do {
            _ = try query("SELECT pg_advisory_unlock_all()::text AS released", [])
        } catch {
            try? reconnect(after: nil)  // best effort: a session that is gone holds nothing
        }
    }

    /// Waits, on the server, until the import's previous batch has ended: queued as the next
    /// write while writes are pipelined (so it goes first with them), else now.
    func waitForPreviousBatch() throws {
        guard let turn = importTurn, turn.batch > 0 else { return }
        try executeLater("SELECT pg_advisory_xact_lock_shared(?::int, ?::int)",
                         [.integer(Int64(turn.key)), .integer(Int64(ImportTurn.lockNumber(turn.batch - 1)))])
    }
}
