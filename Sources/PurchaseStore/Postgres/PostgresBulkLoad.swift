import Foundation

/// The indexes and key constraints of tables about to be filled in bulk, set aside before the
/// rows arrive and built again afterwards, inside the caller's one write transaction: building
/// an index from all its rows at once (one sort) costs far less than growing it row by row, and
/// a foreign key checked once over the whole table (one join) far less than a trigger per row.
/// DDL is transactional in PostgreSQL, so a copy that fails anywhere rolls the set-aside back
/// with the rows: the tables keep every index and constraint they had.
///
/// Set aside: primary keys, unique and exclusion constraints, foreign keys touching the tables
/// (from them or to them), and every other index on them. NOT NULL, CHECK and defaults stay and
/// are checked as each row arrives. `restore` builds each again from the definition the catalog
/// gave (`pg_get_constraintdef`, `pg_get_indexdef`), under its own name, then reads the catalog
/// again and throws unless it holds exactly what it held before.
struct PostgresBulkLoad {
    /// One index or constraint, as the catalog describes it.
    struct Structure: Hashable, Comparable {
        /// "p", "u", "x" or "f" for a constraint (`pg_constraint.contype`), "i" for an index.
        let kind: String
        let table: String
        let name: String
        /// The constraint's definition, or the index's whole CREATE INDEX statement.
        let definition: String

        /// Keys and unique constraints first (foreign keys need the keys they name), then
        /// indexes, then foreign keys.
        private var rank: Int { kind == "f" ? 2 : kind == "i" ? 1 : 0 }

        static func < (a: Structure, b: Structure) -> Bool {
            (a.rank, a.table, a.name) < (b.rank, b.table, b.name)
        }

        /// The statement that builds it again.
        var createSQL: String {
            kind == "i" ? definition : "ALTER TABLE \(quoted(table)) ADD CONSTRAINT \(quoted(name)) \(definition)"
        }

        /// The statement that sets it aside.
        var dropSQL: String {
            kind == "i" ? "DROP INDEX \(quoted(name))" : "ALTER TABLE \(quoted(table)) DROP CONSTRAINT \(quoted(name))"
        }
    }

    /// What was set aside, in the order it is built again.
    let structures: [Structure]

    /// Memory PostgreSQL may sort in for each index it builds (this transaction only).
    static let sortMemory = "256MB"

    /// Sets aside the indexes and key constraints of `tables` (which must be empty) in `database`'s
    /// open write transaction.
    static func setAside(_ tables: [String], in database: PostgresDatabase) throws -> PostgresBulkLoad {
        let structures = try current(tables, in: database)
        // Foreign keys first: a key cannot go while a foreign key still names it.
        for structure in structures.reversed() { try database.execute(structure.dropSQL, []) }
        return PostgresBulkLoad(structures: structures)
    }

    /// Builds everything set aside again (keys, indexes, then foreign keys, each checked against
    /// the rows now there) and checks the catalog holds what it held before `setAside`.
    func restore(_ tables: [String], in database: PostgresDatabase) throws {
        try database.execute("SET LOCAL maintenance_work_mem = '\(Self.sortMemory)'", [])
        for structure in structures { try database.execute(structure.createSQL, []) }
        let now = try Self.current(tables, in: database)
        guard now == structures else {
            let missing = Set(structures).subtracting(now).map(\.name).sorted()
            let extra = Set(now).subtracting(structures).map(\.name).sorted()
            throw StoreError(.sql, "PostgreSQL at \(database.location): the indexes and constraints built again after the copy differ from the schema's (missing: \(missing.joined(separator: ", ")); unexpected: \(extra.joined(separator: ", ")))")
        }
    }

    /// The indexes and key constraints of `tables` in the current schema, in building order:
    /// foreign keys from or to any of them, keys and unique/exclusion constraints, and the
    /// indexes no constraint owns.
    static func current(_ tables: [String], in database: PostgresDatabase) throws -> [Structure] {
        let names = tables.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }.joined(separator: ", ")
        let rows = try database.query("""
            SELECT c.contype::text AS kind, t.relname AS tbl, c.conname AS name, pg_get_constraintdef(c.oid) AS definition
            FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
            WHERE t.relnamespace = current_schema()::regnamespace AND (
                (c.contype IN ('p', 'u', 'x') AND t.relname IN (\(names)))
                OR (c.contype = 'f' AND (t.relname IN (\(names)) OR c.confrelid IN (
                    SELECT oid FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relname IN (\(names))))))
            UNION ALL
            SELECT 'i', t.relname, x.relname, pg_get_indexdef(i.indexrelid)
            FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_class x ON x.oid = i.indexrelid
            WHERE t.relnamespace = current_schema()::regnamespace AND t.relname IN (\(names))
              AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype IN ('p', 'u', 'x'))
            """, [])
        return rows.compactMap { row in
            guard let kind = row.string("kind"), let table = row.string("tbl"), let name = row.string("name"),
                  let definition = row.string("definition") else { return nil }
            return Structure(kind: kind, table: table, name: name, definition: definition)
        }.sorted()
    }
}

/// A name as an SQL identifier, in double quotes.
private func quoted(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
