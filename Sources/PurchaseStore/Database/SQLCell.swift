import CSQLite
import Foundation

/// One value of a result row, borrowed where the backend holds it: text and blobs point into
/// the backend's buffer and are valid only until the row is left. What bulk readers (`db copy`)
/// encode and digest without building an `SQLValue` (and its `String` or array) for each value.
enum SQLCell {
    case null
    case integer(Int64)
    case real(Double)
    /// UTF-8 bytes, as stored (a NUL included, should one be stored).
    case text(UnsafeRawBufferPointer)
    case blob(UnsafeRawBufferPointer)

    /// `value` borrowed for the length of `body`.
    static func with<T>(_ value: SQLValue, _ body: (SQLCell) throws -> T) rethrows -> T {
        switch value {
        case .null: return try body(.null)
        case .integer(let number): return try body(.integer(number))
        case .real(let number): return try body(.real(number))
        case .text(var text): return try text.withUTF8 { try body(.text(UnsafeRawBufferPointer($0))) }
        case .blob(let bytes): return try bytes.withUnsafeBytes { try body(.blob($0)) }
        }
    }
}

/// A row whose values are read one at a time, in place: `SQLiteCells` (the current row of a
/// stepped statement) or `SQLValueCells` (a built row).
protocol SQLCellRow {
    var count: Int { get }
    /// The value at `index`, valid until `body` returns.
    func withCell<T>(_ index: Int, _ body: (SQLCell) throws -> T) throws -> T
}

/// A built row's values as cells.
struct SQLValueCells: SQLCellRow {
    let values: [SQLValue]
    var count: Int { values.count }
    func withCell<T>(_ index: Int, _ body: (SQLCell) throws -> T) throws -> T { try SQLCell.with(values[index], body) }
}

/// The current row of a stepped SQLite statement as cells (valid until the next step).
struct SQLiteCells: SQLCellRow {
    let handle: OpaquePointer
    let count: Int

    func withCell<T>(_ index: Int, _ body: (SQLCell) throws -> T) throws -> T {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return try body(.integer(sqlite3_column_int64(handle, column)))
        case SQLITE_FLOAT: return try body(.real(sqlite3_column_double(handle, column)))
        case SQLITE_TEXT:
            // The pointer first, then the length (SQLite's advice).
            let bytes = sqlite3_column_text(handle, column)
            return try body(.text(try Self.buffer(bytes, count: sqlite3_column_bytes(handle, column), column: index)))
        case SQLITE_BLOB:
            let bytes = sqlite3_column_blob(handle, column)
            return try body(.blob(try Self.buffer(bytes, count: sqlite3_column_bytes(handle, column), column: index)))
        default: return try body(.null)
        }
    }

    /// The bytes SQLite gave; a missing pointer for a non-empty value (SQLite ran out of memory)
    /// is an error, never an empty value.
    private static func buffer(_ pointer: UnsafeRawPointer?, count: Int32, column: Int) throws -> UnsafeRawBufferPointer {
        guard count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        guard let pointer else { throw StoreError(.sql, "SQLite could not hand over column \(column + 1) of a row (\(count) bytes): out of memory") }
        return UnsafeRawBufferPointer(start: pointer, count: Int(count))
    }
}

extension SQLiteDatabase {
    /// Runs `sql` and hands `body` each result row in place, with the result's column names:
    /// nothing is built per row. The row is valid only during the call.
    func forEachCellRow(_ sql: String, _ body: (_ columns: [String], _ row: SQLiteCells) throws -> Void) throws {
        let statement = try SQLiteStatement(self, sql: sql)  // its own: a long scan shares no cached statement
        let columns = statement.columns
        let row = SQLiteCells(handle: statement.handle, count: columns.count)
        while try statement.step() { try body(columns, row) }
    }
}
