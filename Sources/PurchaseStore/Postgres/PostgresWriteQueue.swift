import Foundation

/// Writes sent in pipelines: while `pipelinesWrites` is on inside a write transaction (a batch
/// import), a write whose answer nobody needs waits in `queuedWrites` and goes to the server with
/// the next statement that needs an answer (a read, a lock, SAVEPOINT/RELEASE) or with COMMIT,
/// all in one round trip. Every statement still runs, in the order given, inside the same
/// transaction: reads see the writes queued before them. A queued write that fails fails the
/// statement that sent it (its error named), and the transaction, as if it had run at once.
extension PostgresDatabase {
    /// Runs a write whose row count the caller does not need: queued while `pipelinesWrites` is
    /// on inside a write transaction, else at once. Its parameters are checked now either way.
    public func executeLater(_ sql: String, _ parameters: [SQLValue]) throws {
        guard transactionDepth > 0, pipelinesWrites else {
            try execute(sql, parameters)
            return
        }
        let numbered = number(sql)
        guard numbered.count == parameters.count else {
            throw StoreError(.sql, "SQL expects \(numbered.count) parameters, got \(parameters.count): \(sql.prefix(80))")
        }
        // Encoded and prepared (or not) when it is sent: it may be combined with others first.
        try PostgresParameters.check(parameters)
        queuedWrites.append(PostgresStatement(sql: numbered.text, parameters: PostgresParameters.none, origin: (sql, parameters)))
    }

    /// A statement for a pipeline: prepared in the same pipeline when it is due to be (never a
    /// round trip of its own).
    func pipelined(_ numberedSQL: String, _ parameters: [SQLValue]) throws -> PostgresStatement {
        let encoded = try PostgresParameters(parameters)
        guard let (name, preparing) = preparedStatement(numberedSQL, parameters) else {
            return PostgresStatement(sql: numberedSQL, parameters: encoded)
        }
        return PostgresStatement(sql: numberedSQL, parameters: encoded, prepared: name, preparing: preparing)
    }

    /// Runs the queued writes and then each of `queries` in one round trip; the rows of each query.
    /// (Outside a write transaction each statement is its own.) Statements take `?` placeholders.
    func queryPipelined(_ queries: [(sql: String, parameters: [SQLValue])]) throws -> [[SQLRow]] {
        var statements: [PostgresStatement] = []
        for query in queries {
            let numbered = number(query.sql)
            guard numbered.count == query.parameters.count else {
                throw StoreError(.sql, "SQL expects \(numbered.count) parameters, got \(query.parameters.count): \(query.sql.prefix(80))")
            }
            statements.append(try pipelined(numbered.text, query.parameters))
        }
        let writes = try coalescedWrites()
        let outcomes = try sendPipeline(writes + statements)
        return outcomes.dropFirst(writes.count).map(\.rows)
    }

    /// Sends the queued writes and then `last` in one pipeline; `last`'s answer.
    func sendQueuedWrites(then last: PostgresStatement, original: String) throws -> PostgresOutcome {
        let outcomes = try sendPipeline(try coalescedWrites() + [last])
        if failureInTransaction != nil && Self.isRollbackToSavepoint(original) { failureInTransaction = nil }
        return outcomes.last ?? PostgresOutcome(rows: [], affected: 0)
    }

    /// Sends the queued writes with COMMIT; COMMIT's tag. A failure is thrown as it came, for the
    /// commit's own handling (rolled back, run again when a race caused it).
    func commitSendingQueuedWrites() throws -> String {
        guard !queuedWrites.isEmpty else {
            roundTrips += 1
            statementsSent += 1
            return try connection.commandTag("COMMIT")
        }
        var statements = try coalescedWrites() + [PostgresStatement(sql: "COMMIT", parameters: try PostgresParameters([]))]
        let commit = statements.count - 1
        let release = try turnReleaseAfterCommit()
        if let release { statements.append(release) }
        queuedWrites = []
        roundTrips += 1
        statementsSent += statements.count
        do {
            let outcomes = try connection.pipeline(statements)
            let tag = outcomes.count > commit ? outcomes[commit].tag : ""
            if release != nil { turnReleased(byCommitTagged: tag) }
            return tag
        } catch let failed as PostgresPipelineFailure {
            forgetUnprepared(statements, from: failed.index)
            let failure = failed.failure
            // Committed, but the turn's locks are not released: `endImportTurn` tries again.
            if failed.index > commit && !failure.connectionLost { return "COMMIT" }
            guard failed.index < commit else { throw failure }
            // A write sent with the commit: its statement is named, as one sent alone would be.
            throw PostgresFailure(sqlstate: failure.sqlstate, message: "\(failure.message), in \(statements[failed.index].sql.prefix(60))…",
                                  constraint: failure.constraint, connectionLost: failure.connectionLost)
        }
    }

    /// The statements a failed pipeline was to prepare from `index` on were not prepared (the
    /// server skipped them): their names are forgotten, to be prepared again when next used.
    private func forgetUnprepared(_ statements: [PostgresStatement], from index: Int) {
        for statement in statements[min(index, statements.count)...] {
            if let preparing = statement.preparing { preparedNames[preparing.key] = nil }
        }
    }

    /// Sends `statements` as one pipeline (the queue is emptied first); records a failure as the
    /// open transaction's, as a statement run alone would, and throws it as a `StoreError`.
    private func sendPipeline(_ statements: [PostgresStatement]) throws -> [PostgresOutcome] {
        queuedWrites = []
        roundTrips += 1
        statementsSent += statements.count
        do {
            return try connection.pipeline(statements)
        } catch let failed as PostgresPipelineFailure {
            forgetUnprepared(statements, from: failed.index)
            let failure = failed.failure
            recordFailure(failure)
            let sql = statements[min(failed.index, statements.count - 1)].sql
            throw failure.storeError(doing: "running SQL (\(sql.prefix(60))…)", location: location)
        }
    }
}
