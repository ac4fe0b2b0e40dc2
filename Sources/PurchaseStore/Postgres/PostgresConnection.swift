import CLibPQ
import Foundation

/// What one statement returned: its rows (empty for commands) and how many rows it changed.
struct PostgresOutcome {
    let rows: [SQLRow]
    let affected: Int
    /// The command tag (`INSERT 0 1`, `COMMIT`, or `ROLLBACK` for a COMMIT of a failed transaction).
    var tag = ""
}

/// One libpq session (`PGconn`), closed in `deinit`. Not thread-safe: like every `SQLDatabase`
/// connection it is used by one thread at a time. The URL (which may hold a password) is handed
/// to libpq and never kept, printed or logged; `endpoint` is `host:port/dbname` only.
final class PostgresConnection {
    /// The libpq session (internal for the pipeline extension, never outside this folder's files).
    let handle: OpaquePointer
    /// `host:port/dbname` of the server, without user or password.
    let endpoint: String

    /// Connects with a `postgres://` / `postgresql://` URL. libpq reads a password from the URL,
    /// `password` (handed to libpq as its `password` parameter, never kept), `PGPASSWORD` or the
    /// password file (`PGPASSFILE`, else `~/.pgpass`); `sslmode` and the other URL options pass
    /// through. Waits at most 10 s for the server unless the URL sets `connect_timeout`.
    convenience init(url: String, password: String? = nil) throws {
        // Values given before `dbname` are defaults the URL may override (expand_dbname = 1).
        let (keywords, values) = Self.parameters(url: url, password: password)
        try self.init(keywords: keywords, values: values, expandDatabaseName: true)
    }

    /// The libpq connection parameters for `url` and `password` (in this order: a password in
    /// the URL wins over `password`).
    static func parameters(url: String, password: String?) -> (keywords: [String], values: [String]) {
        var keywords = ["connect_timeout", "fallback_application_name"]
        var values = ["10", "receiptdesk"]
        if let password {
            keywords.append("password")
            values.append(password)
        }
        return (keywords + ["dbname"], values + [url])
    }

    /// A second session with the parameters this one was opened with (libpq's own record of
    /// them, password included, handed back to libpq and never kept): same server, user, database
    /// and options (the schema's search_path among them).
    func sibling() throws -> PostgresConnection {
        guard let options = PQconninfo(handle) else {
            throw StoreError(.cannotOpen, "cannot open a second session to PostgreSQL at \(endpoint): libpq could not list this one's parameters")
        }
        defer { PQconninfoFree(options) }
        var (keywords, values) = ([String](), [String]())
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                keywords.append(String(cString: keyword))
                values.append(String(cString: value))
            }
            option += 1
        }
        return try PostgresConnection(keywords: keywords, values: values, expandDatabaseName: false)
    }

    private init(keywords: [String], values: [String], expandDatabaseName: Bool) throws {
        let connection = PostgresConnection.connect(keywords, values, expandDatabaseName: expandDatabaseName)
        guard let connection else {
            throw StoreError(.cannotOpen, "cannot connect to PostgreSQL: libpq could not allocate a connection")
        }
        let endpoint = PostgresConnection.endpoint(of: connection)
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = PostgresConnection.connectFailure(PQerrorMessage(connection))
            PQfinish(connection)
            throw StoreError(.cannotOpen, "cannot connect to PostgreSQL at \(endpoint): \(reason)")
        }
        handle = connection
        self.endpoint = endpoint
        // Server notices (e.g. "relation already exists, skipping") are not for the operator.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    private static func connect(_ keywords: [String], _ values: [String], expandDatabaseName: Bool) -> OpaquePointer? {
        let keywordPointers = keywords.map { strdup($0) }
        let valuePointers = values.map { strdup($0) }
        defer {
            keywordPointers.forEach { free($0) }
            valuePointers.forEach { pointer in
                // The URL may carry a password: wipe the copy before freeing it.
                if let pointer { memset(pointer, 0, strlen(pointer)) }
                free(pointer)
            }
        }
        let keywordArray: [UnsafePointer<CChar>?] = keywordPointers.map { $0.map { UnsafePointer($0) } } + [nil]
        let valueArray: [UnsafePointer<CChar>?] = valuePointers.map { $0.map { UnsafePointer($0) } } + [nil]
        return PQconnectdbParams(keywordArray, valueArray, expandDatabaseName ? 1 : 0)
    }

    /// `host:port/dbname` as libpq resolved them (a socket folder for a Unix-socket host).
    private static func endpoint(of connection: OpaquePointer) -> String {
        let host = PQhost(connection).map { String(cString: $0) } ?? "?"
        let port = PQport(connection).map { String(cString: $0) } ?? "?"
        let database = PQdb(connection).map { String(cString: $0) } ?? "?"
        return "\(host.contains(":") ? "[\(host)]" : host):\(port.isEmpty ? "5432" : port)/\(database)"
    }

    /// libpq's connection error without its `connection to server at "h", port p failed:` prefix
    /// (the caller names the endpoint), on one line.
    private static func connectFailure(_ message: UnsafePointer<CChar>?) -> String {
        let text = message.map { String(cString: $0) } ?? "unknown error"
        let lines = text.split(whereSeparator: \.isNewline).map { line -> String in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let range = trimmed.range(of: " failed: ") { return String(trimmed[range.upperBound...]) }
            return trimmed
        }.filter { !$0.isEmpty }
        return lines.isEmpty ? "unknown error" : lines.joined(separator: "; ")
    }

    // MARK: state

    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    /// Whether a transaction is open (or failed and awaiting ROLLBACK).
    var inTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Reconnects with the same parameters; true when the new session is up.
    func reset() -> Bool {
        PQreset(handle)
        return PQstatus(handle) == CONNECTION_OK
    }

    /// The server process serving this session (to tell our own notifications apart).
    var backendPID: Int32 { PQbackendPID(handle) }

    // MARK: statements

    /// The parameter types sent with `parameters`: `bytea` (17) for blobs, else 0 (the server
    /// infers the type from where the parameter stands).
    static func types(_ parameters: [SQLValue]) -> [Oid] {
        parameters.map { if case .blob = $0 { return 17 } else { return 0 } }
    }

    /// Prepares `sql` as the named statement `name` (parameter types as `types(_:)` gives them).
    func prepare(_ name: String, _ sql: String, types: [Oid]) throws {
        _ = try outcome(PQprepare(handle, name, sql, Int32(types.count), types))
    }

    /// Runs one statement with `$n` parameters (or the statement prepared as `prepared`): text
    /// format, types inferred by the server, except blobs (binary `bytea`). Text with a NUL byte
    /// is refused: PostgreSQL text cannot hold one.
    func execute(_ sql: String, _ parameters: [SQLValue], prepared: String? = nil) throws -> PostgresOutcome {
        let encoded = try PostgresParameters(parameters)
        let result = encoded.withPointers { count, types, values, lengths, formats -> OpaquePointer? in
            if let prepared {
                return PQexecPrepared(handle, prepared, count, values, lengths, formats, 0)
            }
            return PQexecParams(handle, sql, count, types, values, lengths, formats, 0)
        }
        return try outcome(result)
    }

    /// Runs one or more statements without parameters (the simple protocol); returns the last result.
    func executeScript(_ sql: String) throws -> PostgresOutcome {
        try outcome(PQexec(handle, sql))
    }

    /// The command tag of a script's last statement (`COMMIT`, or `ROLLBACK` when a COMMIT found
    /// the transaction already failed).
    func commandTag(_ sql: String) throws -> String {
        guard let result = PQexec(handle, sql) else { throw failure(nil) }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw failure(result) }
        return PQcmdStatus(result).map { String(cString: $0) } ?? ""
    }

    func outcome(_ result: OpaquePointer?) throws -> PostgresOutcome {
        guard let result else { throw failure(nil) }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw failure(result) }
        let affected = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
        guard status == PGRES_TUPLES_OK else {
            return PostgresOutcome(rows: [], affected: affected, tag: PQcmdStatus(result).map { String(cString: $0) } ?? "")
        }
        return PostgresOutcome(rows: PostgresRowDecoder.rows(result), affected: affected)
    }

    /// The failure a result (or its absence) reports.
    func failure(_ result: OpaquePointer?) -> PostgresFailure {
        func field(_ code: Int32) -> String? {
            guard let result, let value = PQresultErrorField(result, code) else { return nil }
            return String(cString: value)
        }
        let message = field(rd_pq_diag_message_primary)
            ?? result.flatMap { PQresultErrorMessage($0).map { String(cString: $0) } }.flatMap { $0.isEmpty ? nil : $0 }
            ?? PQerrorMessage(handle).map { String(cString: $0) }
            ?? "no answer from the server"
        let detail = field(rd_pq_diag_message_detail).map { " (\($0))" } ?? ""
        return PostgresFailure(sqlstate: field(rd_pq_diag_sqlstate), message: message + detail,
                               constraint: field(rd_pq_diag_constraint_name), connectionLost: isBroken)
    }

    // MARK: notifications

    /// Notifications received so far: (channel, payload, sending server process).
    func takeNotifications() -> [(channel: String, payload: String, pid: Int32)] {
        var found: [(channel: String, payload: String, pid: Int32)] = []
        while let notification = PQnotifies(handle) {
            let entry = notification.pointee
            found.append((entry.relname.map { String(cString: $0) } ?? "", entry.extra.map { String(cString: $0) } ?? "", entry.be_pid))
            PQfreemem(notification)
        }
        return found
    }

    /// Waits up to `timeout` seconds for the server to send something, then reads it. False on
    /// timeout; throws when the connection is gone.
    func awaitInput(timeout: TimeInterval) throws -> Bool {
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw PostgresFailure(sqlstate: nil, message: "the connection is closed", connectionLost: true) }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(max(0, min(timeout, 86_400)) * 1000)
        let ready = poll(&descriptor, 1, milliseconds)
        if ready < 0 {
            if errno == EINTR { return false }
            throw PostgresFailure(sqlstate: nil, message: "waiting for the server failed: \(String(cString: strerror(errno)))", connectionLost: true)
        }
        guard ready > 0 else { return false }
        guard PQconsumeInput(handle) == 1 else { throw failure(nil) }
        return true
    }
}
