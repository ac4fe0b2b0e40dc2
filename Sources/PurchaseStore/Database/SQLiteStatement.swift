import CSQLite
import ReceiptCore
import Foundation

/// A prepared SQLite statement that finalizes itself.
final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    private unowned let connection: SQLiteDatabase

    init(_ connection: SQLiteDatabase, sql: String) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw connection.error(code, "preparing SQL")
        }
        self.handle = statement
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds every parameter (the count must match, so no earlier binding survives).
    func bind(_ parameters: [SQLValue]) throws {
        sqlite3_reset(handle)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard expected == parameters.count else {
            throw StoreError(.sql, "SQL expects \(expected) parameters, got \(parameters.count): \(sql.prefix(80))")
        }
        for (offset, value) in parameters.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
            case .real(let number): code = sqlite3_bind_double(handle, index, number)
            case .text(let text): code = bindText(text, at: index)
            case .blob(let bytes):
                code = bytes.withUnsafeBytes { raw in
                    sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), rd_sqlite_transient())
                }
            }
            guard code == SQLITE_OK else { throw connection.error(code, "binding parameter \(index)") }
        }
    }

    /// Binds `text` from its own UTF-8 (`withUTF8`: in place for a native string; SQLite copies
    /// it), instead of through a C string made for the call: a receipt's decoded JSON is bound
    /// with every import. Up to the first NUL, as a C string would be.
    private func bindText(_ text: String, at index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            // Empty text binds as empty text: a NULL pointer would bind NULL.
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_text(handle, index, "", 0, rd_sqlite_transient()) }
            let length = memchr(base, 0, bytes.count).map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? bytes.count
            guard length <= Int(Int32.max) else { return SQLITE_TOOBIG }
            return UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: length) { characters in
                sqlite3_bind_text(handle, index, characters, Int32(length), rd_sqlite_transient())
            }
        }
    }

    /// Steps once: true while a row is available.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw connection.error(code, "running SQL")
        }
    }

    func row(columns: [String]) -> SQLRow {
        var values: [SQLValue] = []
        values.reserveCapacity(columns.count)
        for index in 0..<Int32(columns.count) {
            switch sqlite3_column_type(handle, index) {
            case SQLITE_INTEGER: values.append(.integer(sqlite3_column_int64(handle, index)))
            case SQLITE_FLOAT: values.append(.real(sqlite3_column_double(handle, index)))
            case SQLITE_TEXT:
                let count = Int(sqlite3_column_bytes(handle, index))
                if let text = sqlite3_column_text(handle, index) {
                    values.append(.text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)))
                } else {
                    values.append(.text(""))
                }
            case SQLITE_BLOB:
                let count = Int(sqlite3_column_bytes(handle, index))
                if let blob = sqlite3_column_blob(handle, index) {
                    values.append(.blob(Array(UnsafeRawBufferPointer(start: blob, count: count))))
                } else {
                    values.append(.blob([]))
                }
            default: values.append(.null)
            }
        }
        return SQLRow(columns: columns, values: values)
    }

    lazy var columns: [String] = (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) }
}

/// The current row of a stepped statement, read in place (valid until the next step).
struct SQLiteColumns: SQLColumns {
    let handle: OpaquePointer

    func string(_ index: Int) -> String? {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL: return nil
        case SQLITE_INTEGER: return String(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return String(sqlite3_column_double(handle, column))
        default: return text(column) { String(decoding: $0, as: UTF8.self) }
        }
    }

    func int(_ index: Int) -> Int64? {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return sqlite3_column_int64(handle, column)
        case SQLITE_FLOAT: return Int64(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: return text(column) { Int64(String(decoding: $0, as: UTF8.self)) } ?? nil
        default: return nil
        }
    }

    func date(_ index: Int) -> Date? {
        let column = Int32(index)
        guard sqlite3_column_type(handle, column) == SQLITE_TEXT else { return string(index).flatMap(StoreDates.parse) }
        return text(column) { RFC3339.parse(utf8: $0) } ?? nil
    }

    /// The column's bytes as text (SQLite converts blobs and numbers as it does for its text).
    private func text<T>(_ column: Int32, _ read: (UnsafeBufferPointer<UInt8>) -> T) -> T? {
        // The text first, then its length (SQLite's advice: the length is then the text's).
        let bytes = sqlite3_column_text(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let bytes else { return count == 0 ? read(UnsafeBufferPointer(start: nil, count: 0)) : nil }  // empty, or out of memory
        return read(UnsafeBufferPointer(start: bytes, count: count))
    }
}
