import Foundation

/// A SQL condition with its parameters.
struct SQLCondition: Sendable {
    let sql: String
    let parameters: [SQLValue]
    /// When the condition is "this column starts with": the column and the prefix compared (see
    /// `SearchTerms.keyPrefix`), so a lookup of a list's own key can be read as key ranges.
    var prefix: ColumnPrefix?
    /// When the condition is "`column` is in this subquery's rows" and the subquery yields each
    /// row once (SQLite's name search by rowid): the column and the subquery, so that counting up
    /// to n stops after n matches (`capped`) instead of gathering them all first, and a narrow
    /// one can be read once and listed (`Browser.listedIfNarrow`).
    var rowSubquery: (column: String, sql: String)?
    /// The same condition checked on the row itself, exactly (`SearchTerms.contactRowCheck`):
    /// for a walk through dense matches, where reading the few rows walked costs less than the
    /// whole name search.
    var rowCheck: (sql: String, parameters: [SQLValue])?

    init(_ sql: String, _ parameters: [SQLValue] = []) {
        self.sql = sql
        self.parameters = parameters
    }

    /// The condition for counting alone, with no other condition beside it, up to `limit` rows:
    /// its subquery stopped at `limit` rows when it has one that may be (`rowSubquery`).
    func capped(_ limit: Int64) -> SQLCondition {
        guard let (column, sql) = rowSubquery else { return self }
        return SQLCondition("\(column) IN (\(sql) LIMIT \(limit))", parameters)
    }

    /// The condition as a predicate of a walk: a row subquery with its column behind a unary `+`
    /// (SQLite: no index is used for it), anything else as it is.
    var probed: SQLCondition {
        guard let (column, sql) = rowSubquery else { return self }
        return SQLCondition("+\(column) IN (\(sql))", parameters)
    }

    /// The condition as a predicate of a walk through dense matches: checked on each row walked
    /// when it can be (`rowCheck`), else `probed`.
    var checkedPerRow: SQLCondition { rowCheck.map { SQLCondition($0.sql, $0.parameters) } ?? probed }

    /// The conditions joined with OR, in parentheses.
    static func any(_ conditions: [SQLCondition]) -> SQLCondition {
        SQLCondition("(" + conditions.map(\.sql).joined(separator: " OR ") + ")", conditions.flatMap(\.parameters))
    }
}

/// How one list answers one filter: the indexed lookups that find candidate rows (`sources`,
/// their union), the conditions every row must also meet (`predicates`), and the filter words
/// the list does not apply.
///
/// With no source, the list is walked in key order: plainly when there is no predicate, else
/// in bounded chunks (`BrowseLimits.scanBudget`), because a predicate has no index to use.
struct BrowseQuery: Sendable {
    let table: BrowseTable
    var sources: [SQLCondition] = []
    var predicates: [SQLCondition] = []
    var ignored: [String] = []
    /// Predicates that are an equality on one column of the table: the source to use instead of
    /// a bounded scan when an index starts with that column (see `Browser.indexedColumns`).
    var indexable: [(column: String, condition: SQLCondition)] = []
    /// How many leading sources are ranges of the key itself: each is read in key order from
    /// the cursor, so however many rows it matches, it never makes the query broad.
    var keyRangeSources = 0
    /// When the customers' list is searched for a term (SQLite): the source after its folded
    /// prefix match on the key (its name, email or id fragment, `SearchTerms.contactFragment`) and
    /// the same without the ids that start with the term, which `Browser.planned` puts in its
    /// place once ranges of the key find those.
    var contactBesideRanges: (index: Int, condition: SQLCondition)?

    /// Adds `column = value` as a predicate that an index on `column` can turn into a source.
    mutating func equality(_ column: String, _ value: String) {
        let condition = SQLCondition("\(tableName).\(column) = ?", [.text(value)])
        predicates.append(condition)
        indexable.append((column, condition))
    }

    /// The SQL table name.
    var tableName: String {
        switch table {
        case .audit: return "audit_log"
        default: return table.rawValue
        }
    }

    /// The column the list is ordered and paged by: the table's primary key.
    var keyColumn: String {
        switch table {
        case .customers: return "customer_id"
        case .orders: return "order_id"
        case .transactions: return "transaction_id"
        case .receipts: return "receipt_id"
        case .conflicts: return "conflict_id"
        case .audit: return "seq"
        }
    }

    /// Whether the key is text (else a 64-bit integer).
    var keyIsText: Bool { table == .customers || table == .orders || table == .transactions }

    /// The key qualified by the table name, for SQL.
    var key: String { "\(tableName).\(keyColumn)" }

    /// Keys a walk of `walkingLookups` may examine per page before it stops (`Browser.boundedScan`);
    /// nil: the list's scan budget. Set where a name search is walked (`Browser.planned`).
    var walkBudget: Int64?

    /// The same rows with the lookups as one predicate (no source): for a walk in key order.
    /// A name search in it is `+rowid IN (…)`: read once per statement as a list and probed by
    /// each key walked, never the index SQLite's OR planning would read it through (every match
    /// looked up in the table and sorted, 33,000 for `müller` at ten million transactions).
    var walkingLookups: BrowseQuery { walking(perRow: false) }

    /// `walkingLookups`; with `perRow` (the matches are dense: a page lies within a few hundred
    /// keys), a name search is checked on each row walked where it can be (`checkedPerRow`): the
    /// whole trigram search for `icloud` (172,000 customers at ten million transactions) cost
    /// 40 ms per statement, its first page's 300 rows under 2.
    func walking(perRow: Bool) -> BrowseQuery {
        var walked = self
        walked.sources = []
        walked.predicates = [SQLCondition.any(sources.map { perRow ? $0.checkedPerRow : $0.probed })] + predicates
        return walked
    }

    /// The columns a row of this list needs (never a receipt's raw bytes or decoded JSON).
    var columns: String {
        switch table {
        case .customers: return "customer_id, is_tester, display_name, email, created_at"
        case .receipts:
            return "receipt_id, sha256, format, environment, verdict, verdict_reason, source, customer_id, imported_at, imported_by, apple_environment, last_verified_at"
        case .audit: return "seq, at, operator, action, target, details, prev_hash, hash, db_user"
        default: return "*"
        }
    }

    /// The query for `filter` on `table`, in `dialect`'s SQL.
    init(_ table: BrowseTable, _ filter: BrowseFilter, _ dialect: SQLDialect = .sqlite) {
        self.table = table
        let terms = SearchTerms(dialect: dialect)
        // Each id word is a set of alternatives; the first one drives (its alternatives are the
        // sources), the others must also hold (each becomes one OR predicate).
        var idWords: [(word: String, alternatives: [SQLCondition])] = []
        for field in filter.fields {
            let word = "\(field.field.rawValue):\(field.value)"
            let alternatives = terms.alternatives(table, field: field.field, value: field.value)
            if alternatives.isEmpty {
                ignored.append("\(word) (\(table.rows) have no \(field.field.rawValue) id)")
            } else {
                idWords.append((word, alternatives))
            }
        }
        for term in filter.terms {
            idWords.append((term, terms.alternatives(table, term: term)))
        }
        if let first = idWords.first {
            sources = first.alternatives
            // A later word checks the rows the first finds; its name search never drives (`probed`).
            predicates += idWords.dropFirst().map { SQLCondition.any($0.alternatives.map(\.probed)) }
            if filter.fields.isEmpty, let term = filter.terms.first, table == .customers, dialect.name == SQLDialect.sqlite.name,
               terms.contactFragment(term) != nil, let beside = terms.contactFragment(term, notAtIdStart: true) {
                contactBesideRanges = (1, beside)
            }
        }
        if let environment = filter.environment {
            switch table {
            case .transactions, .receipts: equality("environment", environment)
            case .customers:
                predicates.append(SQLCondition("""
                    EXISTS (SELECT 1 FROM transactions x WHERE x.customer_id = customers.customer_id AND x.environment = ?)
                    """, [.text(environment)]))
            default: ignored.append("env:\(environment.lowercased()) (\(table.rows) have no environment)")
            }
        }
        if let verdict = filter.verdict {
            switch table {
            case .receipts: equality("verdict", verdict)
            case .transactions:
                predicates.append(SQLCondition("""
                    EXISTS (SELECT 1 FROM receipts r WHERE r.receipt_id = transactions.first_receipt_id AND r.verdict = ?)
                    """, [.text(verdict)]))
            case .customers:
                predicates.append(SQLCondition("""
                    EXISTS (SELECT 1 FROM receipts r WHERE r.customer_id = customers.customer_id AND r.verdict = ?)
                    """, [.text(verdict)]))
            default: ignored.append("verdict:\(verdict) (only receipts, their transactions and customers have a verdict)")
            }
        }
        if let since = filter.since {
            predicates.append(SQLCondition("\(tableName).\(Self.dateColumn(table)) >= ?", [.date(since)]))
        }
        if let status = filter.status { applyStatus(status) }
        if let offer = filter.offer, let condition = BrowseFilter.offers[offer] {
            switch table {
            case .customers:
                predicates.append(SQLCondition("customers.customer_id IN (SELECT customer_id FROM subscription_states WHERE \(condition))"))
            case .transactions:
                predicates.append(SQLCondition("transactions.original_transaction_id IN (SELECT original_transaction_id FROM subscription_states WHERE \(condition))"))
            default: ignored.append("offer:\(offer) (only customers and transactions have subscriptions)")
            }
        }
        applyAudit(filter)
    }

    /// `operator:`, `action:` and `target:` narrow the audit log; other lists have no such thing.
    private mutating func applyAudit(_ filter: BrowseFilter) {
        let words = [("operator", filter.auditOperator), ("action", filter.auditAction), ("target", filter.auditTarget)]
        for (name, value) in words {
            guard let value else { continue }
            guard table == .audit else {
                ignored.append("\(name):\(value) (only audit entries have an \(name == "target" ? "audit target" : name))")
                continue
            }
            switch name {
            case "target":
                let condition = SearchTerms.prefix("audit_log.target", value)
                if sources.isEmpty { sources = [condition] } else { predicates.append(condition) }
            case "operator": predicates.append(SQLCondition("audit_log.operator = ?", [.text(value)]))
            default: predicates.append(SQLCondition("audit_log.action = ?", [.text(value)]))
            }
        }
    }

    /// The date `since:` compares: when the row came to be.
    static func dateColumn(_ table: BrowseTable) -> String {
        switch table {
        case .customers, .orders: return "created_at"
        case .transactions: return "purchase_date"
        case .receipts: return "imported_at"
        case .conflicts: return "opened_at"
        case .audit: return "at"
        }
    }

    /// `status:` on this list: an indexed source when there is none yet and the status has one
    /// (open conflicts are few), else a predicate.
    private mutating func applyStatus(_ status: String) {
        let openConflicts = "SELECT transaction_id FROM conflicts WHERE status = 'open'"
        var source: SQLCondition?
        var predicate: SQLCondition?
        switch (table, status) {
        case (.customers, "conflict"):
            source = SQLCondition("""
                customers.customer_id IN (SELECT claimant_customer_id FROM conflicts WHERE status = 'open'
                                          UNION SELECT owner_customer_id FROM conflicts WHERE status = 'open')
                """)
        case (.customers, "tester"): predicate = SQLCondition("customers.is_tester = 1")
        case (.customers, "mismatch"):
            predicate = SQLCondition("""
                EXISTS (SELECT 1 FROM receipts r WHERE r.customer_id = customers.customer_id AND r.apple_environment IS NOT NULL
                        AND r.apple_environment != r.environment AND r.apple_environment != 'Unknown' AND r.environment != 'Unknown')
                """)
        case (.orders, "paid"), (.orders, "pending"), (.orders, "failed"), (.orders, "refunded"):
            equality("status", status)
        case (.orders, "conflict"):
            source = SQLCondition("orders.order_id IN (SELECT t.order_id FROM transactions t WHERE t.transaction_id IN (\(openConflicts)))")
        case (.transactions, "conflict"): source = SQLCondition("transactions.transaction_id IN (\(openConflicts))")
        case (.transactions, "refunded"):
            predicate = SQLCondition("(transactions.revocation_date IS NOT NULL OR transactions.cancellation_date IS NOT NULL)")
        case (.transactions, "unbound"), (.transactions, "ambiguous"), (.transactions, "explicit"),
             (.transactions, "account-token"), (.transactions, "single-pending-order"):
            equality("binding", status)
        case (.receipts, "conflict"):
            source = SQLCondition("receipts.receipt_id IN (SELECT receipt_id FROM conflicts WHERE status = 'open')")
        case (.receipts, "mismatch"):
            predicate = SQLCondition("""
                (receipts.apple_environment IS NOT NULL AND receipts.apple_environment != receipts.environment
                 AND receipts.apple_environment != 'Unknown' AND receipts.environment != 'Unknown')
                """)
        case (.conflicts, "conflict"), (.conflicts, "open"): source = SQLCondition("conflicts.status = 'open'")
        case (.conflicts, "resolved"): source = SQLCondition("conflicts.status = 'resolved'")
        default:
            ignored.append("status:\(status) (\(Self.statusHome(status)))")
            return
        }
        if let source {
            if sources.isEmpty { sources = [source] } else { predicates.append(source) }
        }
        if let predicate { predicates.append(predicate) }
    }

    /// Where a `status:` value applies, for the note on a list it does not.
    static func statusHome(_ status: String) -> String {
        switch status {
        case "paid", "pending", "failed": return "an order status"
        case "tester": return "applies to customers"
        case "mismatch": return "applies to customers and receipts"
        case "open", "resolved": return "applies to conflicts"
        case "refunded": return "applies to orders and transactions"
        case "conflict": return "applies to customers, orders, transactions, receipts, conflicts"
        default: return "an order binding of transactions"
        }
    }
}
