import Foundation

/// `RowDigest` worked out by PostgreSQL over the rows it holds, so checking a copied table
/// does not send every row to the client to be read and hashed there. The server builds each
/// row's material as `RowDigest` does (the columns in name order, each value as the client
/// would read it: integer types as integers, text and varchar as their UTF-8 bytes, bytea as
/// its bytes), hashes it with `sha256` and sums the two 64-bit halves of the hash's first 16
/// bytes over the table; the client only reads the count and the two sums.
///
/// Only for tables whose every column is of one of those types, on a server whose encoding is
/// UTF-8 (so a text's length in bytes is its UTF-8 length): for any other, `of` answers nil
/// and the caller reads the rows back (`RowDigest.of`).
enum ServerRowDigest {
    /// The digest of `table` (in the session's schema), worked out by the server; nil when a
    /// column's type is not one it can digest as the client would.
    static func of(_ table: String, in database: PostgresDatabase) throws -> RowDigest? {
        guard try database.queryFirst("SELECT current_setting('server_encoding') AS e", [])?.string("e") == "UTF8" else { return nil }
        let columns = try database.query("""
            SELECT attname AS name, atttypid::int8 AS type FROM pg_attribute
            WHERE attrelid = to_regclass(?) AND attnum > 0 AND NOT attisdropped
            """, [.text(quoted(table))]).map { (name: $0.string("name") ?? "", type: $0.int("type") ?? 0) }
        guard let sql = query(table, columns: columns) else { return nil }
        guard let row = try database.queryFirst(sql, []), let rows = row.int("n"),
              let high = sum(row.string("high")), let low = sum(row.string("low")) else {
            throw StoreError(.sql, "PostgreSQL at \(database.location): the digest of \(table) came back unreadable")
        }
        return RowDigest(rows: rows, sumHigh: high, sumLow: low)
    }

    /// The statement that digests `table` whose columns are `columns` (name, type OID); nil
    /// when there are none or one has a type this digest does not read as the client would.
    static func query(_ table: String, columns: [(name: String, type: Int64)]) -> String? {
        guard !columns.isEmpty else { return nil }
        var fields: [String] = []
        for (index, name) in RowDigest.byName(columns.map(\.name)) {
            let column = quoted(columns[index].name)
            var prefix: [UInt8] = []
            RowDigest.appendField(name, kind: 0, to: &prefix)
            let value: String
            switch columns[index].type {
            case 20, 21, 23: value = "'\\x\(hex(prefix + [2]))'::bytea || int8send(\(column)::int8)"  // int8, int2, int4
            case 25, 1043:  // text, varchar
                value = "'\\x\(hex(prefix + [4]))'::bytea || int8send(octet_length(\(column))::int8) || convert_to(\(column), 'UTF8')"
            case 17: value = "'\\x\(hex(prefix + [5]))'::bytea || int8send(length(\(column))::int8) || \(column)"  // bytea
            default: return nil
            }
            fields.append("coalesce(\(value), '\\x\(hex(prefix + [1]))'::bytea)")
        }
        // OFFSET 0 keeps the inner query whole, so each row is hashed once, not once per half.
        return """
            SELECT count(*) AS n, mod(coalesce(sum(('x' || substr(h, 1, 16))::bit(64)::int8), 0), 18446744073709551616)::text AS high,
                   mod(coalesce(sum(('x' || substr(h, 17, 16))::bit(64)::int8), 0), 18446744073709551616)::text AS low
            FROM (SELECT encode(sha256(\(fields.joined(separator: " || "))), 'hex') AS h FROM \(quoted(table)) OFFSET 0) AS hashed
            """
    }

    /// A sum taken modulo 2^64 (between -(2^64 - 1) and 2^64 - 1) as the client's wrapping
    /// sum of the same halves holds it.
    static func sum(_ text: String?) -> UInt64? {
        guard let text else { return nil }
        if text.hasPrefix("-") { return UInt64(text.dropFirst()).map { 0 &- $0 } }
        return UInt64(text)
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    private static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
