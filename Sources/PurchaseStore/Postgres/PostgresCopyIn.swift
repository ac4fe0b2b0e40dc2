import CLibPQ
import Foundation

/// Rows written in the text format of PostgreSQL's `COPY … FROM STDIN`: one line per row,
/// values separated by tabs, NULL as `\N`; a backslash, newline, carriage return or tab inside a
/// value is written as its escape, and a blob as `\\x` and its hex digits (the `bytea` input,
/// with its backslash escaped). Integers and reals are written as the statement parameters
/// write them (`PostgresParameters`), so both paths hand the server the same text.
struct PostgresCopyText {
    private(set) var bytes: [UInt8] = []

    init(reservingCapacity capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// A text value holding a NUL, which PostgreSQL text cannot hold: its position in the row.
    struct NULCharacter: Error {
        let column: Int
    }

    /// Appends one row. Refuses text holding a NUL (`NULCharacter`), leaving the text as it was.
    mutating func append(_ values: [SQLValue]) throws {
        try append(SQLValueCells(values: values))
    }

    /// Appends one row read in place (no value is built on the way). Refuses text holding a
    /// NUL (`NULCharacter`), leaving the text as it was.
    mutating func append<Row: SQLCellRow>(_ row: Row) throws {
        let start = bytes.count
        for index in 0..<row.count {
            if index > 0 { bytes.append(UInt8(ascii: "\t")) }
            let complete = try row.withCell(index) { cell -> Bool in
                switch cell {
                case .null: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")])
                case .integer(let number): appendDecimal(number)
                case .real(let number): bytes.append(contentsOf: "\(number)".utf8)
                case .text(let text): return appendEscaped(text)
                case .blob(let blob): appendHex(blob)
                }
                return true
            }
            guard complete else {
                bytes.removeSubrange(start...)
                throw NULCharacter(column: index)
            }
        }
        bytes.append(UInt8(ascii: "\n"))
    }

    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    /// Appends `number` in decimal, as `String(number)` writes it.
    private mutating func appendDecimal(_ number: Int64) {
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        let count = withUnsafeMutableBytes(of: &digits) { buffer -> Int in
            var end = buffer.count
            repeat {
                end -= 1
                buffer[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            return end
        }
        withUnsafeBytes(of: &digits) { bytes.append(contentsOf: $0[count...]) }
    }

    /// Appends `text` escaped; false (and part of it appended) when it holds a NUL.
    private mutating func appendEscaped(_ utf8: UnsafeRawBufferPointer) -> Bool {
        var start = 0
        for offset in 0..<utf8.count {
            let escape: UInt8
            switch utf8[offset] {
            case UInt8(ascii: "\\"): escape = UInt8(ascii: "\\")
            case UInt8(ascii: "\n"): escape = UInt8(ascii: "n")
            case UInt8(ascii: "\r"): escape = UInt8(ascii: "r")
            case UInt8(ascii: "\t"): escape = UInt8(ascii: "t")
            case 0: return false
            default: continue
            }
            bytes.append(contentsOf: utf8[start..<offset])
            bytes.append(contentsOf: [UInt8(ascii: "\\"), escape])
            start = offset + 1
        }
        bytes.append(contentsOf: utf8[start...])
        return true
    }

    /// Each byte's two hex digits, as one little-endian UInt16 (the first digit in the low byte).
    private static let hexPairs: [UInt16] = (0..<256).map { byte in
        let digits = Array("0123456789abcdef".utf8)
        return UInt16(digits[byte >> 4]) | UInt16(digits[byte & 0x0f]) << 8
    }

    private mutating func appendHex(_ blob: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\"), UInt8(ascii: "x")])
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: blob.count * 2))
        Self.hexPairs.withUnsafeBufferPointer { pairs in
            bytes.withUnsafeMutableBytes { output in
                var at = start
                for byte in blob {
                    let pair = pairs[Int(byte)].littleEndian
                    output.storeBytes(of: pair, toByteOffset: at, as: UInt16.self)
                    at += 2
                }
            }
        }
    }
}

/// One `COPY table (columns) FROM STDIN` under way on a session of an open write transaction:
/// rows go out in chunks of about a megabyte (`send`), and `finish` ends the copy and returns
/// the rows the server stored. A failure on either side ends the copy, fails the transaction
/// (which the caller rolls back) and is thrown as the statement's. In the binary format when
/// every column's type allows (`PostgresCopyBinary`), else in text.
final class PostgresCopyStream {
    private let database: PostgresDatabase
    let table: String
    let columns: [String]
    private var text = PostgresCopyText()
    private var binary: PostgresCopyBinary?
    private var open = true

    /// Bytes gathered before they are handed to libpq.
    static let chunkBytes = 1 << 20
    /// The most handed to libpq in one call.
    static let pieceBytes = 1 << 30

    /// `types`: the columns' types, for the binary format; nil for text.
    fileprivate init(database: PostgresDatabase, table: String, columns: [String], types: [PostgresCopyBinary.ColumnType]?) {
        self.database = database
        self.table = table
        self.columns = columns
        let capacity = Self.chunkBytes + 64 * 1024
        if let types {
            binary = PostgresCopyBinary(types: types, reservingCapacity: capacity)
            binary?.appendHeader()
        } else {
            text = PostgresCopyText(reservingCapacity: capacity)
        }
    }

    /// Whether the rows go in the binary format.
    var isBinary: Bool { binary != nil }

    /// Adds `values` (in `columns` order) to the copy. A text value holding a NUL ends the copy
    /// with an error naming the table, the row (its first column) and the column.
    func send(_ values: [SQLValue]) throws {
        try send(SQLValueCells(values: values))
    }

    /// Adds a row read in place (its values in `columns` order), as `send(_ values:)` does.
    func send<Row: SQLCellRow>(_ row: Row) throws {
        do {
            if binary != nil { try binary?.append(row) } else { try text.append(row) }
        } catch let nul as PostgresCopyText.NULCharacter {
            abandon(because: "a value holds a NUL character")
            let first = row.count > 0 ? try row.withCell(0, Self.value) : .null
            throw StoreError(.invalidInput, "\(table) row \(Self.rowName(columns, first)): \(columnName(nul.column)) holds a NUL character, which PostgreSQL text cannot store")
        } catch let refusal as PostgresCopyBinary.Refusal {
            abandon(because: "a value does not fit its column")
            let first = row.count > 0 ? try row.withCell(0, Self.value) : .null
            throw StoreError(.invalidInput, "\(table) row \(Self.rowName(columns, first)): \(columnName(refusal.column)): \(refusal.reason)")
        }
        if pending >= Self.chunkBytes { try flush() }
    }

    private func columnName(_ index: Int) -> String { index < columns.count ? columns[index] : "\(index + 1)" }

    /// Bytes gathered and not yet handed to libpq.
    private var pending: Int { binary?.bytes.count ?? text.bytes.count }

    /// A cell's value, for naming its row.
    private static func value(_ cell: SQLCell) -> SQLValue {
        switch cell {
        case .integer(let number): return .integer(number)
        case .text(let bytes): return .text(String(decoding: bytes, as: UTF8.self))
        default: return .null
        }
    }

    /// The row by its first column (the key of every copied table but `entitlements`), written
    /// visibly: "customer_id \"alice\"".
    private static func rowName(_ columns: [String], _ first: SQLValue) -> String {
        guard let column = columns.first else { return "?" }
        switch first {
        case .integer(let number): return "\(column) \(number)"
        case .text(let text): return "\(column) \(String(text.prefix(64)).debugDescription)"
        default: return column
        }
    }

    /// Ends the copy; the number of rows the server stored.
    func finish() throws -> Int {
        binary?.appendTrailer()
        try flush()
        open = false
        return try database.endCopy(table, abandoning: nil)
    }

    /// Ends the copy unfinished (the caller's own failure): the server stores none of it and the
    /// transaction fails.
    func abandon(because reason: String) {
        guard open else { return }
        open = false
        _ = try? database.endCopy(table, abandoning: reason)
    }

    private func flush() throws {
        guard pending > 0 else { return }
        let sent = binary.map { send($0.bytes) } ?? send(text.bytes)
        binary?.removeAll()
        text.removeAll()
        guard sent == 1 else {
            // The connection failed; ending the copy collects the server's account of it.
            open = false
            _ = try database.endCopy(table, abandoning: "the connection failed")
            throw StoreError(.sql, "copying rows into \(table) on PostgreSQL at \(database.location) failed: libpq could not send them")
        }
    }

    /// Hands `bytes` to libpq: 1, or -1 when it could not take them.
    private func send(_ bytes: [UInt8]) -> Int32 {
        // In pieces libpq's Int32 length can carry (one row's hex can pass 2 GB in principle).
        bytes.withUnsafeBytes { raw -> Int32 in
            var offset = 0
            while offset < raw.count {
                let length = min(raw.count - offset, Self.pieceBytes)
                let piece = (raw.baseAddress! + offset).assumingMemoryBound(to: CChar.self)
                guard PQputCopyData(database.connection.handle, piece, Int32(length)) == 1 else { return -1 }
                offset += length
            }
            return 1
        }
    }
}

extension PostgresDatabase {
    /// Starts `COPY table (columns) FROM STDIN` in the open write transaction (nothing may be
    /// queued to send before it), in the binary format when every column's type allows and
    /// `binary` is true. Send the rows through the stream and `finish` it.
    func beginCopy(into table: String, columns: [String], binary: Bool = true) throws -> PostgresCopyStream {
        guard transactionDepth > 0, queuedWrites.isEmpty, !pipelinesWrites else {
            throw StoreError(.sql, "COPY into \(table) needs an open write transaction with nothing queued before it")
        }
        let types = binary ? try copyTypes(table, columns) : nil
        let quoted = columns.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: ", ")
        roundTrips += 1
        statementsSent += 1
        let started = PQexec(connection.handle, "COPY \(table) (\(quoted)) FROM STDIN" + (types == nil ? "" : " WITH (FORMAT binary)"))
        defer { PQclear(started) }
        guard let started, PQresultStatus(started) == PGRES_COPY_IN else {
            let failure = connection.failure(started)
            recordFailure(failure)
            throw failure.storeError(doing: "starting to copy rows into \(table)", location: location)
        }
        return PostgresCopyStream(database: self, table: table, columns: columns, types: types)
    }

    /// The types of `columns` of `table` for a binary COPY; nil when one is of a type
    /// `PostgresCopyBinary` does not write (or is not found: the COPY then says why).
    private func copyTypes(_ table: String, _ columns: [String]) throws -> [PostgresCopyBinary.ColumnType]? {
        let rows = try query("""
            SELECT attname AS name, atttypid::int8 AS type FROM pg_attribute
            WHERE attrelid = to_regclass(?) AND attnum > 0 AND NOT attisdropped
            """, [.text("\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\"")])
        var byName: [String: PostgresCopyBinary.ColumnType] = [:]
        for row in rows {
            guard let name = row.string("name"), let type = row.int("type").flatMap(PostgresCopyBinary.ColumnType.init(oid:)) else { continue }
            byName[name] = type
        }
        let types = columns.compactMap { byName[$0] }
        return types.count == columns.count ? types : nil
    }

    /// Ends the copy under way (`abandoning`: with that reason, so the server stores nothing)
    /// and reads its outcome: the rows stored, or the failure, which the transaction keeps.
    fileprivate func endCopy(_ table: String, abandoning reason: String?) throws -> Int {
        let ended = reason.map { PQputCopyEnd(connection.handle, $0) } ?? PQputCopyEnd(connection.handle, nil)
        var stored: Int?
        var failure: PostgresFailure?
        while let result = PQgetResult(connection.handle) {
            defer { PQclear(result) }
            if PQresultStatus(result) == PGRES_COMMAND_OK {
                stored = PQcmdTuples(result).flatMap { Int(String(cString: $0)) }
            } else if failure == nil {
                failure = connection.failure(result)
            }
        }
        if failure == nil && (ended != 1 || stored == nil) { failure = connection.failure(nil) }
        if let failure {
            recordFailure(failure)
            throw failure.storeError(doing: "copying rows into \(table)", location: location)
        }
        return stored ?? 0
    }
}
