import Foundation

/// Queued writes combined before they are sent: the single-row `INSERT … VALUES (…)` statements
/// of one SQL text in a pipeline become multi-row `INSERT … VALUES (…), (…)` statements, so the
/// server parses, plans and executes one statement where it did hundreds (a batch import sends
/// ~900 single-row statements per 100 receipts).
///
/// A row moves only *earlier*, to the place of the first row of its statement, and only past
/// statements it cannot interact with; whatever does not qualify is sent where it was. The
/// plan is computed from each statement's SQL and the schema's foreign keys (child → parents):
/// - only `INSERT INTO table (columns) VALUES (…)` with no parentheses inside the values, no
///   `ON CONFLICT` and no `RETURNING` is combined (`WriteShape.insert`);
/// - a `DELETE` from table T stops rows of T and of tables that reference T from moving above
///   it (they could be deleted, or cascade); an `UPDATE` of T also rows of the tables T
///   references (an updated row could come to point at one);
/// - an `INSERT` into T, at the place it is sent from (its statement's, when it joins one),
///   stops rows of tables that reference T (they could point at its row), and other inserts
///   into T, from moving above that place;
/// - anything else (a lock, a function call) stops every row from moving above it.
/// So every statement still sees the rows it saw, in the same transaction, and the database ends
/// the same. Per-row triggers still fire once per row (the change feed's NOTIFY: the same
/// notifications, possibly in another order within the transaction, all delivered at commit).
enum WriteCoalescing {
    /// What a queued statement does, as far as combining goes.
    enum WriteShape: Equatable {
        /// A combinable single-row insert: `head` is `INSERT INTO t (c…)`, `tuple` is `(?, …)`.
        case insert(table: String, head: String, tuple: String)
        case update(table: String)
        case delete(table: String)
        case other

        /// Reads the shape of `sql` (with `?` placeholders).
        init(_ sql: String) {
            let text = sql.trimmingCharacters(in: .whitespacesAndNewlines)
            let words = text.split(whereSeparator: { $0.isWhitespace || $0 == "(" }).prefix(3).map { $0.lowercased() }
            switch (words.first, words.dropFirst().first) {
            case ("update", let table?) where Self.isName(table): self = .update(table: table)
            case ("delete", "from") where words.count == 3 && Self.isName(words[2]): self = .delete(table: words[2])
            case ("insert", "into") where words.count == 3 && Self.isName(words[2]):
                self = Self.insert(text, table: words[2]) ?? .other
            default: self = .other
            }
        }

        /// `INSERT INTO t (columns) VALUES (values)` and nothing after, the values free of parentheses.
        private static func insert(_ text: String, table: String) -> WriteShape? {
            guard let values = text.range(of: "VALUES", options: [.caseInsensitive, .backwards]) else { return nil }
            let head = text[..<values.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
            let tuple = text[values.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)
            guard head.hasSuffix(")"), head.filter({ $0 == "(" }).count == 1, tuple.hasPrefix("("), tuple.hasSuffix(")"),
                  tuple.dropFirst().dropLast().allSatisfy({ $0 != "(" && $0 != ")" && $0 != ";" }),
                  !head.contains("'"), !tuple.contains("'") else { return nil }
            return .insert(table: table, head: head, tuple: tuple)
        }

        private static func isName(_ word: String) -> Bool {
            !word.isEmpty && word.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
        }
    }

    /// One statement to send: the queued statements at `members` (in their order), combined into
    /// one when there are several.
    struct Planned: Equatable {
        var members: [Int]
    }

    /// The statements to send for `shapes` (the queued statements' shapes, in order): each
    /// element lists the queued statements it carries, the first one's position deciding its
    /// place. `parents[t]` holds the tables `t` references.
    static func plan(_ shapes: [WriteShape], parents: [String: Set<String>]) -> [Planned] {
        func references(_ child: String, _ parent: String) -> Bool { parents[child]?.contains(parent) == true }
        var planned: [Planned] = []
        // The inserts rows may still join: SQL (head + tuple) → its element in `planned`, and table.
        var open: [String: (element: Int, table: String)] = [:]
        func close(where condition: (_ table: String, _ element: Int) -> Bool) {
            for (key, group) in open where condition(group.table, group.element) { open[key] = nil }
        }
        for (index, shape) in shapes.enumerated() {
            switch shape {
            case .insert(let table, let head, let tuple):
                let key = head + " VALUES " + tuple
                // Placed where its statement is (or at the end): rows of tables that reference
                // this one, and other inserts into it, may no longer move above that place.
                let place: Int
                if let group = open[key] {
                    planned[group.element].members.append(index)
                    place = group.element
                } else {
                    planned.append(Planned(members: [index]))
                    place = planned.count - 1
                    open[key] = (place, table)
                }
                close { other, element in element < place && (other == table || references(other, table)) }
            case .delete(let table):
                // Rows of the table could be deleted, rows referencing it cascade or block.
                planned.append(Planned(members: [index]))
                close { other, _ in other == table || references(other, table) }
            case .update(let table):
                // …and an updated row may come to reference a row of a parent table.
                planned.append(Planned(members: [index]))
                close { other, _ in other == table || references(other, table) || references(table, other) }
            case .other:
                planned.append(Planned(members: [index]))
                close { _, _ in true }
            }
        }
        return planned
    }

    /// Row counts a combined insert is split into (largest first), so that a few SQL texts are
    /// prepared once and reused whatever the batch holds.
    static let chunkSizes = [256, 64, 16, 4, 1]

    /// `rows` split into chunks of `chunkSizes`, in order.
    static func chunks(_ rows: Int) -> [Int] {
        var left = rows
        var result: [Int] = []
        for size in chunkSizes {
            while left >= size {
                result.append(size)
                left -= size
            }
        }
        return result
    }

    /// `INSERT INTO t (c…) VALUES (?, …), (?, …)` for `rows` rows.
    static func combinedSQL(head: String, tuple: String, rows: Int) -> String {
        head + " VALUES " + Array(repeating: tuple, count: rows).joined(separator: ", ")
    }
}

extension PostgresDatabase {
    /// The queued writes as they are to be sent: combined as `WriteCoalescing.plan` allows
    /// (when `coalescesWrites`), each combined insert split into `WriteCoalescing.chunkSizes`.
    func coalescedWrites() throws -> [PostgresStatement] {
        let queue = queuedWrites
        guard coalescesWrites, queue.count > 1 else { return try queue.map(preparedWhenDue) }
        let shapes = queue.map { statement -> WriteCoalescing.WriteShape in
            guard let sql = statement.origin?.sql else { return .other }
            if let known = writeShapes[sql] { return known }
            let shape = WriteCoalescing.WriteShape(sql)
            if writeShapes.count > 256 { writeShapes.removeAll() }
            writeShapes[sql] = shape
            return shape
        }
        guard shapes.contains(where: { if case .insert = $0 { return true } else { return false } }) else { return try queue.map(preparedWhenDue) }
        let plan = WriteCoalescing.plan(shapes, parents: try schemaForeignKeys())
        var statements: [PostgresStatement] = []
        statements.reserveCapacity(plan.count)
        for element in plan {
            guard element.members.count > 1, case .insert(_, let head, let tuple) = shapes[element.members[0]] else {
                statements += try element.members.map { try preparedWhenDue(queue[$0]) }
                continue
            }
            var start = 0
            for size in WriteCoalescing.chunks(element.members.count) {
                let rows = element.members[start..<(start + size)]
                start += size
                guard size > 1 else {
                    statements += try rows.map { try preparedWhenDue(queue[$0]) }
                    continue
                }
                let numbered = number(WriteCoalescing.combinedSQL(head: head, tuple: tuple, rows: size))
                let values = rows.flatMap { queue[$0].origin?.parameters ?? [] }
                guard numbered.count == values.count else {
                    throw StoreError(.sql, "combining \(size) inserts (\(head.prefix(60))…): the SQL expects \(numbered.count) parameters, the rows hold \(values.count)")
                }
                statements.append(try pipelined(numbered.text, values))
            }
        }
        return statements
    }

    /// A queued statement as sent alone, its values encoded now (once, whether or not it was
    /// combined with others): prepared in the pipeline when it is due to be.
    private func preparedWhenDue(_ statement: PostgresStatement) throws -> PostgresStatement {
        guard let origin = statement.origin else { return statement }
        var ready = PostgresStatement(sql: statement.sql, parameters: try PostgresParameters(origin.parameters))
        if let (name, preparing) = preparedStatement(statement.sql, origin.parameters) {
            (ready.prepared, ready.preparing) = (name, preparing)
        }
        return ready
    }

    /// The foreign keys of the current schema (child table → the tables it references), read
    /// once per session (the first batch pays one round trip).
    func schemaForeignKeys() throws -> [String: Set<String>] {
        if let known = foreignKeyParents { return known }
        roundTrips += 1
        statementsSent += 1
        let rows: [SQLRow]
        do {
            rows = try connection.execute("""
                SELECT c.relname AS child, p.relname AS parent FROM pg_constraint k
                JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
                WHERE k.contype = 'f' AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
                """, []).rows
        } catch let failure as PostgresFailure {
            throw failure.storeError(doing: "reading the schema's foreign keys", location: location)
        }
        var parents: [String: Set<String>] = [:]
        for row in rows {
            guard let child = row.string("child"), let parent = row.string("parent") else { continue }
            parents[child, default: []].insert(parent)
        }
        foreignKeyParents = parents
        return parents
    }
}
