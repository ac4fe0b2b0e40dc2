import Foundation

/// The order of the batches of one import when two sessions write them side by side
/// (`ImportLanes`). Before batch n starts, its session takes, for the whole batch (its retries
/// included), a session-level advisory lock naming the batch and one per customer of the batch;
/// batch n+1 takes its own only after that, so it waits for batch n on every customer they share
/// (existing or about to be created) and then reads what batch n wrote. Batch n+1 then waits for
/// batch n's lock in shared mode, which batch n releases with its COMMIT:
/// - before its first write when the two batches hold a transaction id or a receipt in common
///   (`writesAfterPrevious`): its writes follow batch n's, so the first to claim a transaction id
///   is the earlier item, as one after the other;
/// - otherwise only before its audit entries and COMMIT: nothing either batch writes is keyed by
///   anything the other reads or writes (customers, transaction ids, receipts), so the server
///   writes the two side by side, and batch n+1 still appends to the audit chain and commits
///   after batch n.
/// Both waits are on the server and batch n never waits for batch n+1, so they cannot form a
/// cycle between the two; a cycle through another writer's locks is a deadlock PostgreSQL breaks.
struct ImportTurn {
    /// The lock class of this import: its first session's server process id, unique on the
    /// server while that session lives (other imports never wait for these locks).
    let key: Int32
    /// This batch's position in the import.
    let batch: Int
    /// Whether the batch shares a transaction id or a receipt with the batch before it: then it
    /// writes only after that batch has ended (see above).
    var writesAfterPrevious = true
    /// The locks went with a COMMIT that rolled back instead (`turnReleased`): the batch no
    /// longer holds its turn and may not write.
    var lost = false

    /// Releases every lock of the turn (the session holds no other advisory lock outside a transaction).
    static let releaseSQL = "SELECT pg_advisory_unlock_all()::text AS released"

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
    /// customers they share; outside a transaction, held until `endImportTurn`. Answers, in the
    /// same round trip, whether a session other than `importer` runs an import of the ledger
    /// (`ImportPresence`).
    func beginImportTurn(_ turn: ImportTurn, customers: [String], importer: Int32) throws -> Bool {
        let answers = try queryPipelined([
            otherImportsQuery(besides: [importer]),
            ("SELECT 1 AS locked FROM (SELECT pg_advisory_lock(?::int, ?::int)) AS own", [.integer(Int64(turn.key)), .integer(Int64(ImportTurn.lockNumber(turn.batch)))]),
            // A customer's lock in the 64-bit key space: the import's class, then the id's hash.
            ("""
             SELECT 1 AS locked FROM (SELECT pg_advisory_lock((?::bigint << 32) | (hashtext(customer)::bigint & 4294967295))
             FROM (SELECT DISTINCT unnest(?::text[]) AS customer) AS batch) AS customers
             """, [.integer(Int64(turn.key)), .text(PostgresArrayLiteral.text(customers))]),
        ])
        importTurn = turn
        return (answers.first?.first?.int("others") ?? 0) > 0
    }

    /// Releases the batch's locks: the next batch may write, and have its customers. A session
    /// that cannot release them is closed and opened again (the server then drops them).
    func endImportTurn() {
        guard importTurn != nil else { return }  // released with the batch's commit
        importTurn = nil
        do {
            _ = try query(ImportTurn.releaseSQL, [])
        } catch {
            try? reconnect(after: nil)  // best effort: a session that is gone holds nothing
        }
    }

    /// Orders the open transaction's writes after the import's previous batch (see `ImportTurn`):
    /// all of them when the batches share a transaction id or a receipt, else its audit entries
    /// and COMMIT (waiting just before them, ahead of the audit chain's lock).
    func orderAfterPreviousBatch() throws {
        if let turn = importTurn, !turn.writesAfterPrevious, !turn.lost, deferUntilCommit({ try self.waitForPreviousBatch() }) { return }
        try waitForPreviousBatch()
    }

    /// Waits, on the server, until the import's previous batch has ended: queued as the next
    /// write while writes are pipelined (so it goes first with them), else now.
    func waitForPreviousBatch() throws {
        if let turn = importTurn, turn.lost {
            throw StoreError(.sql, "batch \(turn.batch + 1) of the import was not written: its transaction rolled back at COMMIT after the batch's turn had ended")
        }
        guard let turn = importTurn, turn.batch > 0 else { return }
        try executeLater("SELECT pg_advisory_xact_lock_shared(?::int, ?::int)",
                         [.integer(Int64(turn.key)), .integer(Int64(ImportTurn.lockNumber(turn.batch - 1)))])
    }
}

extension PostgresDatabase {
    /// In a turn, the statement sent right after the batch's COMMIT, in the same pipeline: the
    /// next batch, which waits for these locks, goes on as soon as this one has committed, with
    /// no round trip of its own. When anything before it fails (COMMIT included) the server skips
    /// it, so a batch run again still holds its locks.
    func turnReleaseAfterCommit() throws -> PostgresStatement? {
        guard let turn = importTurn, !turn.lost else { return nil }
        return PostgresStatement(sql: ImportTurn.releaseSQL, parameters: try PostgresParameters([]))
    }

    /// The release sent after a COMMIT tagged `tag` ran: the turn is over, or, had the COMMIT
    /// rolled back (it cannot, while every failure is recorded, but its locks are gone either
    /// way), lost.
    func turnReleased(byCommitTagged tag: String) {
        if tag == "COMMIT" { importTurn = nil } else { importTurn?.lost = true }
    }
}
