import Foundation

/// `db copy`'s check of a PostgreSQL target whose source digests are already known: every
/// table's digest, worked out by the server where its column types allow
/// (`ServerRowDigest`), else read back, and the audit chain verified, as jobs shared by two
/// sessions (the copy's and a sibling), each taking the next job until none is left, the
/// largest tables first: the server digests a table on one session while the client checks
/// the chain, or digests what it read back, on the other.
enum TargetCheck {
    /// The digest of each of `tables` (in their order) and the audit chain's verification.
    /// `rows` is each table's row count as copied, to start the largest first.
    static func run(_ tables: [(name: String, order: [String])], rows: [String: Int64],
                    on target: PostgresDatabase) throws -> (digests: [RowDigest], audit: AuditVerification) {
        // Job 0 is the audit chain; job i > 0 is tables[i - 1].
        let order = Array(0...tables.count).sorted { weight($0, tables, rows) > weight($1, tables, rows) }
        let shared = Jobs(sessions: [target, try target.openSibling()], tables: tables, order: order)
        DispatchQueue.concurrentPerform(iterations: shared.sessions.count) { lane in
            let database = shared.sessions[lane]
            while let job = shared.next() {
                if job == 0 {
                    shared.audit = Result { try AuditLog.verify(database) }
                } else {
                    let table = shared.tables[job - 1]
                    let found = Result { try DatabaseCopy.digest(table, in: database) }
                    shared.finish(job, found)
                }
            }
        }
        // A table that failed is the error to tell (it stopped the lanes, maybe before job 0).
        let digests = try tables.indices.map { index -> RowDigest in
            guard let found = shared.digest(index + 1) else { throw StoreError(.sql, "db copy: \(tables[index].name) was not read back from the target") }
            return try found.get()
        }
        guard let audit = shared.audit else { throw StoreError(.sql, "db copy: the target's audit chain was not checked") }
        return (digests, try audit.get())
    }

    /// A job's size: its table's rows (the audit chain's: audit_log's).
    private static func weight(_ job: Int, _ tables: [(name: String, order: [String])], _ rows: [String: Int64]) -> Int64 {
        rows[job == 0 ? "audit_log" : tables[job - 1].name] ?? 0
    }

    /// The lanes' sessions, the jobs handed out and what they found, under one lock (each
    /// session is used by its own lane only).
    private final class Jobs: @unchecked Sendable {
        let sessions: [SQLDatabase]
        let tables: [(name: String, order: [String])]
        private let order: [Int]
        private let lock = NSLock()
        private var handedOut = 0
        private var found: [Result<RowDigest, Error>?]
        /// Written by the one lane that runs job 0, read after both lanes are done.
        var audit: Result<AuditVerification, Error>?

        init(sessions: [SQLDatabase], tables: [(name: String, order: [String])], order: [Int]) {
            self.sessions = sessions
            self.tables = tables
            self.order = order
            found = Array(repeating: nil, count: tables.count + 1)
        }

        /// The next job of `order` no lane has taken, nil when none is left (or one failed:
        /// the rest are not worth reading).
        func next() -> Int? {
            lock.lock()
            defer { lock.unlock() }
            let failed = found.contains { if case .failure = $0 { return true } else { return false } }
            guard handedOut < order.count, !failed else { return nil }
            handedOut += 1
            return order[handedOut - 1]
        }

        func finish(_ job: Int, _ result: Result<RowDigest, Error>) {
            lock.lock()
            defer { lock.unlock() }
            found[job] = result
        }

        func digest(_ job: Int) -> Result<RowDigest, Error>? {
            lock.lock()
            defer { lock.unlock() }
            return found[job]
        }
    }
}
