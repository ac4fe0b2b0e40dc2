import Foundation

/// Rows written in the binary format of PostgreSQL's `COPY … FROM STDIN WITH (FORMAT binary)`,
/// for tables whose columns are all of the types it knows (`ColumnType`): the server takes
/// each value as it is sent instead of parsing text (parsing COPY text was about a third of
/// the server's work while a copy's rows arrived).
///
/// ```
/// header:  "PGCOPY\n\xff\r\n\0", flags (int32 0), header extension length (int32 0)
/// row:     field count (int16), then each field: length (int32, -1 for NULL) and its bytes
/// trailer: int16 -1
/// ```
/// Integers are big-endian; `int8`/`int4`/`int2` take an integer in their range, `text` and
/// `varchar` take UTF-8 (numbers and blobs as text COPY would have written them: decimal,
/// Swift's description of a real, `\x` and hex), `bytea` takes the bytes (text as its UTF-8).
/// A value the column cannot hold (text in an integer column, a number out of range) is
/// refused (`Refusal`), as the server would refuse it in text.
struct PostgresCopyBinary {
    /// A target column's type, by its OID.
    enum ColumnType {
        case int8, int4, int2, text, bytea

        /// Nil for a type this encoder does not write.
        init?(oid: Int64) {
            switch oid {
            case 20: self = .int8
            case 23: self = .int4
            case 21: self = .int2
            case 25, 1043: self = .text  // text, varchar
            case 17: self = .bytea
            default: return nil
            }
        }

        var name: String {
            switch self {
            case .int8: return "bigint"
            case .int4: return "integer"
            case .int2: return "smallint"
            case .text: return "text"
            case .bytea: return "bytea"
            }
        }
    }

    /// A value the column cannot take: its position in the row and why.
    struct Refusal: Error {
        let column: Int
        let reason: String
    }

    let types: [ColumnType]
    private(set) var bytes: [UInt8] = []

    /// The signature, flags and header extension every binary COPY starts with.
    static let header: [UInt8] = Array("PGCOPY\n".utf8) + [0xff, 0x0d, 0x0a, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]
    /// The field count -1 that ends the data.
    static let trailer: [UInt8] = [0xff, 0xff]

    init(types: [ColumnType], reservingCapacity capacity: Int = 0) {
        self.types = types
        bytes.reserveCapacity(capacity)
    }

    /// Appends the header (once, before the first row).
    mutating func appendHeader() { bytes.append(contentsOf: Self.header) }

    /// Appends the trailer (once, after the last row).
    mutating func appendTrailer() { bytes.append(contentsOf: Self.trailer) }

    /// Appends one row read in place (its values in `types` order). Refuses a text holding a
    /// NUL (`PostgresCopyText.NULCharacter`) or a value its column cannot take (`Refusal`),
    /// leaving the bytes as they were.
    mutating func append<Row: SQLCellRow>(_ row: Row) throws {
        guard row.count == types.count else { throw Refusal(column: 0, reason: "the row has \(row.count) values for \(types.count) columns") }
        let start = bytes.count
        do {
            appendBigEndian(UInt16(types.count))
            for index in 0..<row.count {
                let type = types[index]
                try row.withCell(index) { cell in try append(cell, as: type, column: index) }
            }
        } catch {
            bytes.removeSubrange(start...)
            throw error
        }
    }

    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    private mutating func append(_ cell: SQLCell, as type: ColumnType, column: Int) throws {
        switch (cell, type) {
        case (.null, _):
            appendBigEndian(UInt32.max)  // -1
        case (.integer(let number), .int8):
            appendBigEndian(UInt32(8))
            appendBigEndian(UInt64(bitPattern: number))
        case (.integer(let number), .int4):
            guard let small = Int32(exactly: number) else { throw Refusal(column: column, reason: "\(number) is out of range for type integer") }
            appendBigEndian(UInt32(4))
            appendBigEndian(UInt32(bitPattern: small))
        case (.integer(let number), .int2):
            guard let small = Int16(exactly: number) else { throw Refusal(column: column, reason: "\(number) is out of range for type smallint") }
            appendBigEndian(UInt32(2))
            appendBigEndian(UInt16(bitPattern: small))
        case (.text(let text), .text):
            guard !text.contains(0) else { throw PostgresCopyText.NULCharacter(column: column) }
            appendField(text)
        case (.text(let text), .bytea), (.blob(let text), .bytea):
            appendField(text)
        case (.integer(let number), .text), (.integer(let number), .bytea):
            appendField(Array(String(number).utf8))
        case (.real(let number), .text), (.real(let number), .bytea):
            appendField(Array("\(number)".utf8))
        case (.blob(let blob), .text):
            appendField(Array(("\\x" + blob.map { String(format: "%02x", $0) }.joined()).utf8))
        case (.text, _): throw Refusal(column: column, reason: "a text value cannot go into a column of type \(type.name)")
        case (.real, _): throw Refusal(column: column, reason: "a real value cannot go into a column of type \(type.name)")
        case (.blob, _): throw Refusal(column: column, reason: "a blob cannot go into a column of type \(type.name)")
        }
    }

    private mutating func appendField<Bytes: Collection<UInt8>>(_ value: Bytes) {
        appendBigEndian(UInt32(truncatingIfNeeded: value.count))
        bytes.append(contentsOf: value)
    }

    private mutating func appendBigEndian<Number: FixedWidthInteger>(_ number: Number) {
        withUnsafeBytes(of: number.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
