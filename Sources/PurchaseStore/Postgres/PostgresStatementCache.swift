import CLibPQ
import Foundation

/// The session's prepared statements (a statement is prepared on its second use, at most 500 are
/// kept) and its SQL texts with `?` numbered as `$1…` (cached).
extension PostgresDatabase {
    /// The prepared statement to run `sql` as, preparing it on its second use; nil for one-off
    /// statements and for what cannot be prepared (DDL, SAVEPOINT, LISTEN, …).
    func preparedName(_ sql: String, _ parameters: [SQLValue]) throws -> String? {
        guard let (name, preparing) = preparedStatement(sql, parameters) else { return nil }
        if let preparing {
            roundTrips += 1
            do {
                try connection.prepare(name, sql, types: preparing.types)
            } catch {
                preparedNames[preparing.key] = nil
                throw error
            }
        }
        return name
    }

    /// The prepared statement to run `sql` as, and what to prepare first when it is new (its
    /// name is kept from now on: the caller prepares it, or forgets the name when that fails).
    func preparedStatement(_ sql: String, _ parameters: [SQLValue]) -> (name: String, preparing: (key: String, types: [Oid])?)? {
        let types = PostgresConnection.types(parameters)
        let key = types.contains(17) ? sql + "\u{0}" + types.map(String.init).joined(separator: ",") : sql
        if let name = preparedNames[key] { return (name, nil) }
        guard preparedNames.count < 500, Self.isPreparable(sql) else { return nil }
        let seen = (timesSeen[key] ?? 0) + 1
        guard seen >= 2 else {
            if timesSeen.count > 2_000 { timesSeen.removeAll() }
            timesSeen[key] = seen
            return nil
        }
        preparedCounter += 1
        let name = "rd_\(preparedCounter)"
        timesSeen[key] = nil
        preparedNames[key] = name
        return (name, (key, types))
    }

    /// Statements worth preparing. A search (`SQLDialect.plannedPerValues`) is not: its best
    /// plan depends on the values (a short prefix, a trigram pattern), which the generic plan
    /// PostgreSQL settles on after a few runs of a prepared statement cannot see.
    private static func isPreparable(_ sql: String) -> Bool {
        guard !sql.hasPrefix(SQLDialect.plannedPerValues) else { return false }
        let head = sql.drop { $0.isWhitespace }.prefix(7).uppercased()
        return ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH"].contains { head.hasPrefix($0) }
    }

    func number(_ sql: String) -> (text: String, count: Int) {
        if let cached = numberedSQL[sql] { return cached }
        let numbered = PostgresSQLText.numberingPlaceholders(sql)
        if numberedSQL.count > 512 { numberedSQL.removeAll() }
        numberedSQL[sql] = numbered
        return numbered
    }
}
