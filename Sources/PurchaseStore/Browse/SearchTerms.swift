import Foundation

/// What a free search term matches in each list. A term finds a row by the row's own ids by
/// prefix (customer id, and any fragment of it; order id and app account token; transaction, original transaction and
/// web order line item ids; a receipt's SHA-256) and a customer by any fragment of three or more
/// characters of their display name or email; written whole, it also finds the rows related to
/// the id (the owner of a transaction, the transactions of a customer or of an Apple order id).
/// Text ids compare case-insensitively (ASCII, `SQLDialect.folded`); Apple's numeric ids by
/// digits. Every alternative is an index lookup or range.
struct SearchTerms {
    let dialect: SQLDialect

    /// The shortest name or email fragment looked for (a trigram).
    static let shortestFragment = 3

    /// `expression` starts with `prefix`: a range on the expression's index (byte order: every
    /// string with the prefix lies between it and the prefix with its last character's
    /// successor), checked again by `substr`, so a collation cannot add or drop a row. A
    /// `present` column is said to be there first: the expression's index holds only the rows
    /// that have it (a partial index, migration 0022), and SQLite does not see that through `lower()`.
    static func prefix(_ expression: String, _ prefix: String, present column: String? = nil) -> SQLCondition {
        let length = prefix.unicodeScalars.count
        var sql = "(" + (column.map { "\($0) IS NOT NULL AND " } ?? "") + "\(expression) >= ?"
        var parameters: [SQLValue] = [.text(prefix)]
        if let upper = upperBound(prefix) {
            sql += " AND \(expression) < ?"
            parameters.append(.text(upper))
        }
        sql += " AND substr(\(expression), 1, \(length)) = ?)"
        return SQLCondition(sql, parameters + [.text(prefix)])
    }

    /// The least string above every string that starts with `prefix` (in code point order: the
    /// prefix with its last character's successor); nil when no character has one.
    static func upperBound(_ prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if (0xD800...0xDFFF).contains(next) { next = 0xE000 }
            if let successor = Unicode.Scalar(next) { return String(String.UnicodeScalarView(scalars + [successor])) }
        }
        return nil
    }

    /// `prefix` on a list's own key `column` (`expression` is the column or its folded form):
    /// the same condition, marked so that a broad one can be read as ranges of the key
    /// (`ColumnPrefix`).
    static func keyPrefix(_ column: String, _ expression: String, _ prefix: String, folded: Bool) -> SQLCondition {
        var condition = Self.prefix(expression, prefix)
        condition.prefix = ColumnPrefix(column: column, prefix: prefix, folded: folded)
        return condition
    }

    /// Lower-cases ASCII letters only, as `SQLDialect.folded` does in SQL.
    static func fold(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 }))
    }

    static func isDigits(_ text: String) -> Bool { !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) } }

    private func f(_ column: String) -> String { dialect.folded(column) }

    /// Customers whose id folds to the term.
    private func customerIs(_ folded: String) -> SQLCondition {
        SQLCondition("SELECT customer_id FROM customers WHERE \(f("customer_id")) = ?", [.text(folded)])
    }

    /// `column IN (subquery)`.
    private func within(_ column: String, _ subquery: SQLCondition) -> SQLCondition {
        SQLCondition("\(column) IN (\(subquery.sql))", subquery.parameters)
    }

    /// Customers whose id, display name or email holds `fragment` (three characters or more);
    /// with `notAtIdStart`, leaving out ids that start with it unless their name or email holds
    /// it too, for a lookup beside the term's prefix match on the id, which finds those: on
    /// SQLite by ranges of the key (`Browser.keyPrefixRanges`); on PostgreSQL through the index
    /// of the contact text past its first character (`SearchSchema.contactPastIdStart`), when
    /// the fragment is ASCII without a space (so a match at the text's start lies within the id
    /// and is the prefix match's; any other fragment is looked for in the whole text). As on
    /// SQLite, the id's start then compares ASCII letters folded only: an id starting with the
    /// Kelvin sign is not found by `k…`.
    func contactFragment(_ fragment: String, notAtIdStart: Bool = false) -> SQLCondition? {
        guard fragment.count >= Self.shortestFragment else { return nil }
        if dialect.name == SQLDialect.sqlite.name {
            var phrase = "\"" + fragment.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            if notAtIdStart {
                phrase = "{display_name email} : \(phrase) OR ({customer_id} : \(phrase) NOT {customer_id} : ^\(phrase))"
            }
            // By rowid (the search table shares the customers table's since migration 0013): reading
            // each match's customer_id from the search table's content was most of a broad search.
            let matches = "SELECT rowid FROM customer_search WHERE customer_search MATCH ?"
            var condition = SQLCondition("customers.rowid IN (\(matches))", [.text(phrase)])
            condition.rowSubquery = ("customers.rowid", matches)
            if !notAtIdStart { condition.rowCheck = Self.contactRowCheck(fragment, phrase: phrase, matches: matches) }
            return condition
        }
        var escaped = ""
        for character in fragment.lowercased() {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        let pastIdStart = notAtIdStart && fragment.unicodeScalars.allSatisfy { $0.isASCII && $0 != " " }
        let text = pastIdStart ? SearchSchema.contactPastIdStart(dialect, table: "customers.") : SearchSchema.contact(dialect, table: "customers.")
        return SQLCondition("\(text) LIKE ?", [.text("%" + escaped + "%")])
    }

    /// The customers' trigram search for `fragment` checked on the row itself (SQLite), exactly:
    /// for an ASCII fragment, a column holds it under the search's case folding if and only if
    /// its ASCII-lower-cased text holds it, unless the text has one of the two characters whose
    /// folding is an ASCII letter (KELVIN SIGN to k, LONG S to s: found by trying every code point
    /// through SQLite's trigram tokenizer); such a row asks the search itself. Nil for a fragment
    /// that is not ASCII.
    static func contactRowCheck(_ fragment: String, phrase: String, matches: String) -> (sql: String, parameters: [SQLValue])? {
        guard fragment.unicodeScalars.allSatisfy(\.isASCII) else { return nil }
        let folded = SQLValue.text(fold(fragment))
        let columns = ["customers.customer_id", "coalesce(customers.display_name, '')", "coalesce(customers.email, '')"]
        let text = columns.joined(separator: " || ' ' || ")
        let asksTheSearch = "instr(\(text), char(8490)) > 0 OR instr(\(text), char(383)) > 0"
        let holds = columns.map { "instr(lower(\($0)), ?) > 0" }.joined(separator: " OR ")
        return ("(CASE WHEN \(asksTheSearch) THEN +customers.rowid IN (\(matches)) ELSE (\(holds)) END)", [.text(phrase), folded, folded, folded])
    }

    /// What `term` matches on `table`.
    func alternatives(_ table: BrowseTable, term: String) -> [SQLCondition] {
        let raw = SQLValue.text(term)
        let folded = Self.fold(term)
        let lower = SQLValue.text(folded)
        let digits = Self.isDigits(term)
        let number = Int64(term.hasPrefix("#") ? String(term.dropFirst()) : term)
        // A numeric Apple id: by prefix when the term is digits, else only whole.
        func appleId(_ column: String) -> SQLCondition { digits ? Self.prefix(column, term) : SQLCondition("\(column) = ?", [raw]) }
        let ownTransactionId = digits ? Self.keyPrefix("transactions.transaction_id", "transactions.transaction_id", term, folded: false)
            : appleId("transactions.transaction_id")
        let appleOrderTransactions = SQLCondition("SELECT transaction_id FROM apple_orders WHERE \(f("apple_order_id")) = ?", [lower])
        // An app transaction id (one app download by one Apple account, across reinstalls and
        // devices) finds every purchase of the customer it belongs to.
        let appDownloadCustomers = SQLCondition("""
            SELECT customer_id FROM transactions WHERE app_transaction_id = ? \
            UNION SELECT customer_id FROM receipts WHERE app_transaction_id = ? AND customer_id IS NOT NULL
            """, [raw, raw])
        switch table {
        case .customers:
            var out = [Self.keyPrefix("customers.customer_id", f("customers.customer_id"), folded, folded: true)]
            // Beside the prefix match on the id (PostgreSQL; SQLite leaves id starts out once
            // it has the key's ranges, `Browser.planned`).
            if let contact = contactFragment(term, notAtIdStart: dialect.name != SQLDialect.sqlite.name) { out.append(contact) }
            for column in ["transaction_id", "original_transaction_id", "web_order_line_item_id"] {
                out.append(SQLCondition("customers.customer_id IN (SELECT customer_id FROM transactions WHERE \(column) = ?)", [raw]))
            }
            out.append(SQLCondition("customers.customer_id IN (SELECT customer_id FROM transactions WHERE app_account_token IS NOT NULL AND \(f("app_account_token")) = ?)", [lower]))
            out.append(SQLCondition("customers.customer_id IN (SELECT customer_id FROM orders WHERE \(f("order_id")) = ?)", [lower]))
            out.append(SQLCondition("customers.customer_id IN (SELECT customer_id FROM orders WHERE \(f("app_account_token")) = ?)", [lower]))
            out.append(SQLCondition("customers.customer_id IN (SELECT customer_id FROM transactions WHERE transaction_id IN (\(appleOrderTransactions.sql)))",
                                    appleOrderTransactions.parameters))
            out.append(within("customers.customer_id", appDownloadCustomers))
            return out
        case .orders:
            return [Self.keyPrefix("orders.order_id", f("orders.order_id"), folded, folded: true), Self.prefix(f("orders.app_account_token"), folded),
                    within("orders.customer_id", customerIs(folded)), SQLCondition("orders.product_id = ?", [raw]),
                    SQLCondition("orders.order_id IN (SELECT order_id FROM transactions WHERE transaction_id = ?)", [raw]),
                    SQLCondition("orders.order_id IN (SELECT order_id FROM transactions WHERE original_transaction_id = ?)", [raw]),
                    SQLCondition("orders.order_id IN (SELECT order_id FROM transactions WHERE transaction_id IN (\(appleOrderTransactions.sql)))",
                                 appleOrderTransactions.parameters)]
        case .transactions:
            return [ownTransactionId, appleId("transactions.original_transaction_id"),
                    appleId("transactions.web_order_line_item_id"), Self.prefix(f("transactions.app_account_token"), folded, present: "transactions.app_account_token"),
                    within("transactions.customer_id", customerIs(folded)),
                    SQLCondition("transactions.order_id IN (SELECT order_id FROM orders WHERE \(f("order_id")) = ?)", [lower]),
                    SQLCondition("transactions.product_id = ?", [raw]), within("transactions.transaction_id", appleOrderTransactions),
                    within("transactions.customer_id", appDownloadCustomers)]
        case .receipts:
            var out = [within("receipts.customer_id", customerIs(folded))]
            if folded.count >= 4, folded.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) {
                out.append(Self.prefix("receipts.sha256", folded))
            }
            for column in ["transaction_id", "original_transaction_id"] {
                out.append(SQLCondition("receipts.receipt_id IN (SELECT first_receipt_id FROM transactions WHERE \(column) = ?)", [raw]))
            }
            out.append(SQLCondition("receipts.receipt_id IN (SELECT first_receipt_id FROM transactions WHERE order_id IN (SELECT order_id FROM orders WHERE \(f("order_id")) = ?))",
                                    [lower]))
            out.append(SQLCondition("receipts.receipt_id IN (SELECT first_receipt_id FROM transactions WHERE transaction_id IN (\(appleOrderTransactions.sql)))",
                                    appleOrderTransactions.parameters))
            out.append(SQLCondition("receipts.app_transaction_id = ?", [raw]))
            if let number { out.append(SQLCondition("receipts.receipt_id = ?", [.integer(number)])) }
            return out
        case .conflicts:
            return [SQLCondition("conflicts.transaction_id = ?", [raw]), within("conflicts.owner_customer_id", customerIs(folded)),
                    within("conflicts.claimant_customer_id", customerIs(folded))]
                + (number.map { [SQLCondition("conflicts.conflict_id = ?", [.integer($0)])] } ?? [])
        case .audit:
            var targets = ["transaction:", "order:"].map { SQLValue.text($0 + term) }
            if let number { targets.append(.text("receipt:\(number)")) }
            return targets.map { SQLCondition("audit_log.target = ?", [$0]) }
                + [SQLCondition("audit_log.target IN (SELECT 'customer:' || customer_id FROM customers WHERE \(f("customer_id")) = ?)", [lower])]
        }
    }

    /// What `field:value` matches on `table`; empty when the list has no such field. Customer and
    /// order ids compare case-insensitively, whole.
    func alternatives(_ table: BrowseTable, field: BrowseFilter.Field, value: String) -> [SQLCondition] {
        let v = SQLValue.text(value)
        let folded = Self.fold(value)
        let customer = customerIs(folded)
        let order = SQLCondition("SELECT order_id FROM orders WHERE \(f("order_id")) = ?", [.text(folded)])
        switch (table, field) {
        case (.customers, .customer): return [within("customers.customer_id", customer)]
        case (.customers, .tx): return [SQLCondition("customers.customer_id IN (SELECT customer_id FROM transactions WHERE transaction_id = ?)", [v])]
        case (.customers, .original):
            return [SQLCondition("customers.customer_id IN (SELECT customer_id FROM transactions WHERE original_transaction_id = ?)", [v])]
        case (.customers, .order): return [SQLCondition("customers.customer_id IN (SELECT customer_id FROM orders WHERE order_id IN (\(order.sql)))", order.parameters)]
        case (.orders, .customer): return [within("orders.customer_id", customer)]
        case (.orders, .order): return [within("orders.order_id", order)]
        case (.orders, .product): return [SQLCondition("orders.product_id = ?", [v])]
        case (.orders, .tx): return [SQLCondition("orders.order_id IN (SELECT order_id FROM transactions WHERE transaction_id = ?)", [v])]
        case (.orders, .original):
            return [SQLCondition("orders.order_id IN (SELECT order_id FROM transactions WHERE original_transaction_id = ?)", [v])]
        case (.transactions, .customer): return [within("transactions.customer_id", customer)]
        case (.transactions, .order): return [within("transactions.order_id", order)]
        case (.transactions, .tx): return [SQLCondition("transactions.transaction_id = ?", [v])]
        case (.transactions, .original): return [SQLCondition("transactions.original_transaction_id = ?", [v])]
        case (.transactions, .product): return [SQLCondition("transactions.product_id = ?", [v])]
        case (.receipts, .customer): return [within("receipts.customer_id", customer)]
        case (.receipts, .tx), (.receipts, .original):
            let column = field == .tx ? "transaction_id" : "original_transaction_id"
            return [SQLCondition("receipts.receipt_id IN (SELECT first_receipt_id FROM transactions WHERE \(column) = ?)", [v])]
        case (.receipts, .order):
            return [SQLCondition("receipts.receipt_id IN (SELECT first_receipt_id FROM transactions WHERE order_id IN (\(order.sql)))", order.parameters)]
        case (.conflicts, .customer):
            return [within("conflicts.owner_customer_id", customer), within("conflicts.claimant_customer_id", customer)]
        case (.conflicts, .tx): return [SQLCondition("conflicts.transaction_id = ?", [v])]
        case (.audit, .customer):
            return [SQLCondition("audit_log.target IN (SELECT 'customer:' || customer_id FROM customers WHERE \(f("customer_id")) = ?)", [.text(folded)])]
        case (.audit, .tx): return [SQLCondition("audit_log.target = ?", [.text("transaction:" + value)])]
        case (.audit, .order): return [SQLCondition("audit_log.target IN (SELECT 'order:' || order_id FROM orders WHERE \(f("order_id")) = ?)", [.text(folded)])]
        default: return []
        }
    }
}
