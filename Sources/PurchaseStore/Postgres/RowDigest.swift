import Foundation
import ReceiptCore

/// An order-independent digest of a table's rows (the sum of each row's SHA-256 prefix), so two
/// backends that sort text differently still agree on equal contents. A row's material is each
/// column, in name order: kind 0, the name's length and bytes; then the value: 1 for NULL, 2 and
/// the integer's 8 bytes, 3 and the real's 8 bytes (IEEE 754), 4 (text) or 5 (blob), the length
/// and the bytes. Numbers and lengths are big-endian, as PostgreSQL's `int8send` writes them,
/// so the server can work out the same digest (`ServerRowDigest`).
struct RowDigest: Equatable {
    var rows: Int64 = 0
    var sumHigh: UInt64 = 0
    var sumLow: UInt64 = 0

    static func of(_ table: String, order: [String], in database: SQLDatabase) throws -> RowDigest {
        var digest = RowDigest()
        var material: [UInt8] = []
        try RowPager.forEachPage(table, order: order, in: database, pageSize: 1_000) { rows in
            digest.add(page: rows, material: &material)
        }
        return digest
    }

    /// Adds every row of `rows`; `material` is scratch space.
    mutating func add(page rows: [SQLRow], material: inout [UInt8]) {
        // The rows of a page come from one statement: one column order for all of them.
        var columns: [String] = []
        var byName: [(index: Int, name: [UInt8])] = []
        for row in rows {
            if row.columns != columns {
                columns = row.columns
                byName = Self.byName(columns)
            }
            // A built row's cells cannot fail to be read.
            try? add(SQLValueCells(values: row.values), byName: byName, material: &material)
        }
    }

    /// The positions and names of `columns`, sorted by name: the order a row's material takes.
    static func byName(_ columns: [String]) -> [(index: Int, name: [UInt8])] {
        columns.indices.sorted { columns[$0] < columns[$1] }.map { ($0, Array(columns[$0].utf8)) }
    }

    /// Adds `row`, its columns taken in `byName` order (their positions and names, sorted by
    /// name); `material` is scratch space.
    mutating func add<Row: SQLCellRow>(_ row: Row, byName: [(index: Int, name: [UInt8])], material: inout [UInt8]) throws {
        material.removeAll(keepingCapacity: true)
        for (index, name) in byName {
            Self.appendField(name, kind: 0, to: &material)
            try row.withCell(index) { cell in
                switch cell {
                case .null: material.append(1)
                case .integer(let number): Self.appendNumber(UInt64(bitPattern: number), kind: 2, to: &material)
                case .real(let number): Self.appendNumber(number.bitPattern, kind: 3, to: &material)
                case .text(let bytes): Self.appendField(bytes, kind: 4, to: &material)
                case .blob(let bytes): Self.appendField(bytes, kind: 5, to: &material)
                }
            }
        }
        let hash = DigestAlgorithm.sha256.hash(material)
        let high = hash.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let low = hash.dropFirst(8).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        rows += 1
        sumHigh = sumHigh &+ high
        sumLow = sumLow &+ low
    }

    /// The kind, the length (8 bytes, big-endian) and the bytes: no two rows' fields read alike.
    static func appendField<Bytes: Collection<UInt8>>(_ bytes: Bytes, kind: UInt8, to material: inout [UInt8]) {
        appendNumber(UInt64(bytes.count), kind: kind, to: &material)
        material.append(contentsOf: bytes)
    }

    /// The kind and `number`'s 8 bytes, big-endian.
    private static func appendNumber(_ number: UInt64, kind: UInt8, to material: inout [UInt8]) {
        material.append(kind)
        withUnsafeBytes(of: number.bigEndian) { material.append(contentsOf: $0) }
    }
}
