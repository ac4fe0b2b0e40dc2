import Foundation

/// The columns of one result row, read by position where the backend holds them
/// (`SQLDatabase.forEachRow`): no row is built for them, and on SQLite a date is parsed from the
/// column's bytes without a string in between. For the reads every import repeats (a customer's
/// transactions and entitlement rows); `SQLRow` serves everything else. Values convert as
/// `SQLRow`'s accessors convert them.
public protocol SQLColumns {
    func string(_ index: Int) -> String?
    func int(_ index: Int) -> Int64?
    func date(_ index: Int) -> Date?
}

extension SQLColumns {
    public func bool(_ index: Int) -> Bool { (int(index) ?? 0) != 0 }
}

/// A built row read by position: what `forEachRow` hands out where the backend has no cheaper
/// way (PostgreSQL), and how rows already read (a batch's read-ahead) are decoded the same way.
struct SQLRowColumns: SQLColumns {
    let row: SQLRow

    func string(_ index: Int) -> String? { row.values[index].string }
    func int(_ index: Int) -> Int64? { row.values[index].int }
    func date(_ index: Int) -> Date? { row.values[index].string.flatMap(StoreDates.parse) }
}
