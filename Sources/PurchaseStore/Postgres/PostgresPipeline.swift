import CLibPQ
import Foundation

/// One statement of a pipeline: its SQL with `$n` parameters, the values, and the prepared
/// statement to run instead of parsing the SQL, when there is one.
struct PostgresStatement {
    let sql: String
    let parameters: PostgresParameters
    var prepared: String? = nil
    /// Prepare `sql` as `prepared` in the same pipeline, just before running it: the key it is
    /// known by (`PostgresDatabase.preparedStatement`) and its parameter types.
    var preparing: (key: String, types: [Oid])? = nil
    /// The `?` SQL and values it was queued with (`executeLater`), for `WriteCoalescing`.
    var origin: (sql: String, parameters: [SQLValue])? = nil
}

extension PostgresConnection {
    /// Sends `statements` in one go (libpq's pipeline mode) and reads their answers after: one
    /// round trip for all of them. The server runs them in order, each seeing the ones before
    /// (inside the open transaction, or each in its own when none is open). The first failure
    /// is thrown as `PostgresPipelineFailure`, naming the statement; the server skips every
    /// statement after it.
    func pipeline(_ statements: [PostgresStatement]) throws -> [PostgresOutcome] {
        guard !statements.isEmpty else { return [] }
        guard PQenterPipelineMode(handle) == 1 else { throw failure(nil) }
        defer { PQexitPipelineMode(handle) }  // succeeds once every answer below is read
        var sent = 0
        var preparedBefore = Set<Int>()
        for (index, statement) in statements.enumerated() {
            if let preparing = statement.preparing, let name = statement.prepared {
                guard PQsendPrepare(handle, name, statement.sql, Int32(preparing.types.count), preparing.types) == 1 else { break }
                preparedBefore.insert(index)
            }
            let accepted = statement.parameters.withPointers { count, types, values, lengths, formats -> Int32 in
                if let prepared = statement.prepared {
                    return PQsendQueryPrepared(handle, prepared, count, values, lengths, formats, 0)
                }
                return PQsendQueryParams(handle, statement.sql, count, types, values, lengths, formats, 0)
            }
            guard accepted == 1 else { break }
            sent += 1
        }
        let sendFailure = sent < statements.count ? failure(nil) : nil
        guard PQpipelineSync(handle) == 1 else {
            throw PostgresFailure(sqlstate: nil, message: sendFailure?.message ?? failure(nil).message, connectionLost: true)
        }
        var outcomes: [PostgresOutcome] = []
        outcomes.reserveCapacity(sent)
        var first: (index: Int, failure: PostgresFailure)?
        for index in 0..<sent {
            if preparedBefore.contains(index) {
                // The PREPARE's own answer comes first (one result, then NULL).
                let prepared = PQgetResult(handle)
                if prepared.map(PQresultStatus) == PGRES_FATAL_ERROR, first == nil {
                    first = (index, failure(prepared))
                }
                PQclear(prepared)
                while let extra = PQgetResult(handle) { PQclear(extra) }
            }
            // Each statement's answer is one result, then NULL.
            let result = PQgetResult(handle)
            let status = result.map(PQresultStatus)
            if status == PGRES_PIPELINE_ABORTED {
                PQclear(result)
            } else {
                do {
                    outcomes.append(try outcome(result))  // clears the result
                } catch let failure as PostgresFailure {
                    if first == nil { first = (index, failure) }
                }
            }
            if result == nil { break }  // the connection is gone: no more answers
            while let extra = PQgetResult(handle) { PQclear(extra) }
        }
        // Then the sync point's own result.
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        if let first { throw PostgresPipelineFailure(index: first.index, failure: first.failure) }
        if let sendFailure { throw PostgresPipelineFailure(index: sent, failure: sendFailure) }
        return outcomes
    }
}

/// Statement `index` of a pipeline failed (those after it did not run).
struct PostgresPipelineFailure: Error {
    let index: Int
    let failure: PostgresFailure
}
