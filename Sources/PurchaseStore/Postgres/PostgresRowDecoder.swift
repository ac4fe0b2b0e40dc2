import CLibPQ

/// Turns a text-format libpq result into `SQLRow`s with the value kinds SQLite gives: integer
/// types (and booleans, as 0/1) become `.integer`, floating point `.real`, `bytea` `.blob`, and
/// everything else `.text`.
enum PostgresRowDecoder {
    /// How a column's text is read, by the column's type OID.
    enum Kind {
        case integer, boolean, real, numeric, bytes, text

        init(oid: Oid) {
            switch oid {
            case 20, 21, 23, 26: self = .integer  // int8, int2, int4, oid
            case 16: self = .boolean
            case 700, 701: self = .real  // float4, float8
            case 1700: self = .numeric  // sum() of bigints, for one
            case 17: self = .bytes
            default: self = .text
            }
        }
    }

    static func rows(_ result: OpaquePointer) -> [SQLRow] {
        let columnCount = PQnfields(result)
        let rowCount = PQntuples(result)
        let columns = (0..<columnCount).map { PQfname(result, $0).map { String(cString: $0) } ?? "?column?" }
        let kinds = (0..<columnCount).map { Kind(oid: PQftype(result, $0)) }
        var rows: [SQLRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [SQLValue] = []
            values.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                guard PQgetisnull(result, row, column) == 0, let pointer = PQgetvalue(result, row, column) else {
                    values.append(.null)
                    continue
                }
                let bytes = UnsafeRawBufferPointer(start: pointer, count: Int(PQgetlength(result, row, column)))
                values.append(value(bytes, kinds[Int(column)]))
            }
            rows.append(SQLRow(columns: columns, values: values))
        }
        return rows
    }

    static func value(_ bytes: UnsafeRawBufferPointer, _ kind: Kind) -> SQLValue {
        let text = { String(decoding: bytes, as: UTF8.self) }
        switch kind {
        case .text: return .text(text())
        case .integer: return Int64(text()).map(SQLValue.integer) ?? .text(text())
        case .boolean: return .integer(bytes.first == UInt8(ascii: "t") ? 1 : 0)
        case .real: return Double(text()).map(SQLValue.real) ?? .text(text())
        case .numeric:
            let string = text()
            return Int64(string).map(SQLValue.integer) ?? Double(string).map(SQLValue.real) ?? .text(string)
        case .bytes: return hexBytes(bytes).map(SQLValue.blob) ?? .text(text())
        }
    }

    /// Decodes `bytea` hex output (`\x0a1b…`); nil when it is not in that form.
    static func hexBytes(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x"), bytes.count % 2 == 0 else { return nil }
        let count = bytes.count / 2 - 1
        var valid = true
        let output = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            nibbles.withUnsafeBufferPointer { nibbles in
                var combined: UInt8 = 0  // any invalid digit sets the high bit here
                for index in 0..<count {
                    let high = nibbles[Int(bytes[2 + 2 * index])], low = nibbles[Int(bytes[3 + 2 * index])]
                    combined |= high | low
                    buffer[index] = high << 4 | (low & 0x0f)
                }
                valid = combined & 0x80 == 0
            }
            initialized = count
        }
        return valid ? output : nil
    }

    /// Each byte's value as a hex digit (either case), 0xff when it is not one.
    private static let nibbles: [UInt8] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt8(byte) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt8(byte) - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt8(byte) - UInt8(ascii: "A") + 10
        default: return 0xff
        }
    }
}
