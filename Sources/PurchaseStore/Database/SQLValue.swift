import Foundation
import ReceiptCore

/// A value bound to or read from SQL, independent of the backend.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public static func text(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
    public static func integer(_ value: Int64?) -> SQLValue { value.map { .integer($0) } ?? .null }
    /// Dates are stored as RFC 3339 text in UTC (sortable, readable, the same on every backend).
    public static func date(_ value: Date?) -> SQLValue { value.map { .text(StoreDates.format($0)) } ?? .null }
    public static func bool(_ value: Bool) -> SQLValue { .integer(value ? 1 : 0) }
}

/// One result row: values by column name.
extension SQLValue {
    /// The value as text (numbers written out, bytes decoded as UTF-8); nil for NULL.
    var string: String? {
        switch self {
        case .text(let value): return value
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .blob(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .null: return nil
        }
    }

    /// The value as an integer (text parsed, reals truncated); nil for NULL, bytes or text that is not one.
    var int: Int64? {
        switch self {
        case .integer(let value): return value
        case .text(let value): return Int64(value)
        case .real(let value): return Int64(value)
        default: return nil
        }
    }
}

public struct SQLRow: Sendable {
    public let columns: [String]
    public let values: [SQLValue]

    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    public subscript(_ name: String) -> SQLValue {
        guard let index = columns.firstIndex(of: name) else { return .null }
        return values[index]
    }

    public func string(_ name: String) -> String? { self[name].string }

    public func int(_ name: String) -> Int64? { self[name].int }

    public func bool(_ name: String) -> Bool { (int(name) ?? 0) != 0 }

    public func date(_ name: String) -> Date? { string(name).flatMap(StoreDates.parse) }

    public func blob(_ name: String) -> [UInt8]? {
        switch self[name] {
        case .blob(let bytes): return bytes
        case .text(let text): return Array(text.utf8)
        default: return nil
        }
    }
}

/// How the store writes dates: RFC 3339 UTC with milliseconds, fixed width so text order is time order.
public enum StoreDates {
    /// The latest instant the store can write (9999-12-31T23:59:59.999Z): years have four digits.
    /// Dates after it are refused where they enter (a grant's end), never written wrapped.
    public static let latest = RFC3339.instant(milliseconds: 253_402_300_799_999)

    public static func format(_ date: Date) -> String {
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        let civil = CivilTime(Date(timeIntervalSince1970: millis / 1000))
        // Written digit by digit straight into the string: this runs dozens of times per ledger
        // operation (every date of every row written or compared).
        return String(unsafeUninitializedCapacity: 24) { bytes in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var rest = max(0, value)
                for index in stride(from: offset + width - 1, through: offset, by: -1) {
                    bytes[index] = UInt8(48 + rest % 10)
                    rest /= 10
                }
            }
            put(civil.year, 4, at: 0); bytes[4] = 45
            put(civil.month, 2, at: 5); bytes[7] = 45
            put(civil.day, 2, at: 8); bytes[10] = 84
            put(civil.hour, 2, at: 11); bytes[13] = 58
            put(civil.minute, 2, at: 14); bytes[16] = 58
            put(civil.second, 2, at: 17); bytes[19] = 46
            put((civil.nanosecond + 500_000) / 1_000_000 % 1000, 3, at: 20); bytes[23] = 90
            return 24
        }
    }

    public static func parse(_ text: String) -> Date? { RFC3339.parse(text) }
}
