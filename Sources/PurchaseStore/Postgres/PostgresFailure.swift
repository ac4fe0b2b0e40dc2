import Foundation

/// What went wrong talking to PostgreSQL, before it becomes a `StoreError`: the SQLSTATE (nil
/// when there was no server answer at all, e.g. the connection dropped) and the server's message.
struct PostgresFailure: Error, Sendable {
    /// Five-character SQLSTATE, nil for client-side and connection failures.
    let sqlstate: String?
    /// The primary message, on one line.
    let message: String
    /// The constraint a 23xxx error names.
    let constraint: String?
    /// The connection is gone (no answer, or the server ended the session).
    let connectionLost: Bool

    init(sqlstate: String?, message: String, constraint: String? = nil, connectionLost: Bool = false) {
        self.sqlstate = sqlstate
        self.message = PostgresFailure.oneLine(message)
        self.constraint = constraint
        self.connectionLost = connectionLost
            || sqlstate.map { $0.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains($0) } ?? false
    }

    /// A failure that running the same transaction again can cure: a serialization failure, a
    /// deadlock, or a unique violation caused by a concurrent writer.
    var isRetryable: Bool { ["40001", "40P01", "23505"].contains(sqlstate ?? "") || isStalePlan }

    /// A prepared statement whose table changed shape since it was prepared (another process
    /// migrated the database): preparing it again cures it.
    var isStalePlan: Bool { sqlstate == "0A000" && message.contains("cached plan") }

    /// The `StoreError` callers see, `doing` saying what was attempted and `location` where;
    /// `attempts`, how many times a transaction ran before giving up (said when more than once).
    func storeError(doing: String, location: String, attempts: Int = 1) -> StoreError {
        if connectionLost {
            return StoreError(.cannotOpen, "lost the connection to PostgreSQL at \(location) (\(message)): nothing of this change was saved; run it again when the server is back")
        }
        switch sqlstate ?? "" {
        case let state where state.hasPrefix("23"):
            return StoreError(.constraint, "\(doing): \(message)")
        case "40001", "40P01", "55P03", "53300", "57014":
            let tries = attempts > 1 ? ", \(attempts) times" : ""
            return StoreError(.busy, "database \(location) is busy (\(message)\(tries)): another receiptdesk is writing to it; try again")
        case "28P01", "28000":
            return StoreError(.cannotOpen, "PostgreSQL at \(location) refused the login (\(message)): check the user, PGPASSWORD or ~/.pgpass")
        case "3D000":
            return StoreError(.cannotOpen, "PostgreSQL at \(location): \(message)")
        case "53100", "53200":
            return StoreError(.cannotOpen, "PostgreSQL at \(location) is out of resources: \(message)")
        default:
            return StoreError(.sql, "\(doing): \(message)")
        }
    }

    /// Server and libpq messages span lines ("ERROR: …\nDETAIL: …"); messages here are one line.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: "; ")
    }
}
