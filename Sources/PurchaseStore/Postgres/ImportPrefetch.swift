import Foundation
import ReceiptCore

extension PostgresDatabase {
    /// What `prefetchImports` read: the batch's snapshot and, for each of its customers, what
    /// their entitlement refresh reads (input and stored rows).
    struct ImportPrefetch {
        let snapshot: ImportSnapshot
        let entitlements: [String: EntitlementCache.Entry]
    }

    /// Locks the batch's existing customers (in one statement, in customer id order, so two
    /// batches never wait for each other in a circle) and reads, in the same round trip, everything
    /// the batch's imports will look up: its receipts by digest, the owners of its transaction ids,
    /// the open orders of its customers and the orders its items name, each customer's tester flag
    /// and entitlement input and rows, and a receipt id from the sequence for each receipt it may
    /// store. Each read runs after the lock, so it sees what the last writer to those customers committed.
    func prefetchImports(_ imports: [PurchaseLedger.PreparedImport]) throws -> ImportPrefetch {
        let customers = Array(Set(imports.map(\.customerId))).sorted()
        let digests = Array(Set(imports.map(\.digest)))
        let transactionIds = Array(Set(imports.flatMap { $0.incoming.map(\.transactionId) }))
        let namedOrders = Set(imports.compactMap(\.orderId))
        let customerList = SQLValue.text(PostgresArrayLiteral.text(customers))
        // Planned with the batch's arrays each time: a prepared statement's generic plan, settled
        // while the tables were small, kept scanning them whole as they grew (each row compared
        // with every id of the array), which made a batch cost more the bigger the ledger.
        let fresh = SQLDialect.plannedPerValues
        // Every read goes through an index: these tables have no statistics until autovacuum
        // gets to them, and without them the planner took a batch's 100 customers for half of
        // each table and scanned it whole (a growing cost per batch through a large import).
        // The server's own setting is back for the rest of the transaction afterwards.
        // Every key the batch claims first, in the one order (see `WriteKey`): an importer of
        // overlapping receipts waits here for this batch to commit, then reads what it wrote,
        // instead of both inserting the same ids in different orders into a deadlock.
        let answers = try queryPipelined([
            writeKeyLock(PurchaseLedger.writeKeys(of: imports)),
            ("SET LOCAL enable_seqscan = off", []),
            (fresh + "SELECT customer_id, is_tester FROM customers WHERE customer_id = ANY(?::text[]) ORDER BY customer_id FOR UPDATE", [customerList]),
            (fresh + "SELECT sha256, receipt_id FROM receipts WHERE sha256 = ANY(?::text[])", [.text(PostgresArrayLiteral.text(digests))]),
            (fresh + "SELECT transaction_id, customer_id FROM transactions WHERE transaction_id = ANY(?::text[])",
             [.text(PostgresArrayLiteral.text(transactionIds))]),
            (fresh + """
             SELECT order_id, customer_id, product_id, created_at, status, transaction_id, app_account_token FROM orders
             WHERE (customer_id = ANY(?::text[]) AND transaction_id IS NULL) OR order_id = ANY(?::text[])
             """, [customerList, .text(PostgresArrayLiteral.text(namedOrders.sorted()))]),
            (fresh + "SELECT customer_id, \(PurchaseLedger.ownedTransactionColumns) FROM transactions WHERE customer_id = ANY(?::text[])", [customerList]),
            (fresh + "SELECT customer_id, \(PurchaseLedger.manualGrantColumns) FROM grants WHERE customer_id = ANY(?::text[])", [customerList]),
            (fresh + "SELECT customer_id, \(PurchaseLedger.manualRevocationColumns) FROM revocations WHERE customer_id = ANY(?::text[])", [customerList]),
            (fresh + """
             SELECT DISTINCT ON (customer_id) customer_id, \(PurchaseLedger.appPurchaseColumns) FROM receipts
             WHERE customer_id = ANY(?::text[]) AND \(PurchaseLedger.appPurchaseCondition) ORDER BY customer_id, receipt_id DESC
             """, [customerList]),
            (fresh + "SELECT customer_id, \(EntitlementRow.selectColumns) FROM entitlements WHERE customer_id = ANY(?::text[])", [customerList]),
            // The sequence's name looked up once, not once per id.
            ("SELECT nextval(sequence) AS id FROM (SELECT pg_get_serial_sequence('receipts', 'receipt_id') AS sequence) AS named, generate_series(1, ?::int)",
             [.integer(Int64(digests.count))]),
            (fresh + """
             SELECT \(PurchaseLedger.gracePeriodColumns) FROM subscription_states
             WHERE customer_id = ANY(?::text[]) AND \(PurchaseLedger.gracePeriodCondition)
             """, [customerList]),
            ("SET LOCAL enable_seqscan TO DEFAULT", []),
        ])
        guard answers.count == 14 else { throw StoreError(.sql, "prefetching a batch import at \(location): \(answers.count) answers for 14 queries") }
        let rows = Array(answers[2..<13])
        var testers: [String: Bool] = [:]
        for row in rows[0] { if let id = row.string("customer_id") { testers[id] = row.bool("is_tester") } }
        var receipts: [String: Int64] = [:]
        for row in rows[1] { if let digest = row.string("sha256"), let id = row.int("receipt_id") { receipts[digest] = id } }
        var owners: [String: String] = [:]
        for row in rows[2] { if let id = row.string("transaction_id"), let owner = row.string("customer_id") { owners[id] = owner } }
        let orders = rows[3].compactMap { row -> ImportSnapshot.Order? in
            guard let id = row.string("order_id"), let customer = row.string("customer_id") else { return nil }
            return ImportSnapshot.Order(id: id, customerId: customer, productId: row.string("product_id") ?? "",
                                        createdAt: row.string("created_at") ?? "", status: row.string("status") ?? "",
                                        transactionId: row.string("transaction_id"), appAccountToken: row.string("app_account_token"))
        }
        var inputs = Dictionary(uniqueKeysWithValues: customers.map { customer in
            (customer, EntitlementInput(transactions: [], grants: [], revocations: [], appPurchase: nil, isTester: testers[customer] ?? false))
        })
        var stored: [String: [EntitlementRow]] = [:]
        for row in rows[4] { if let customer = row.string("customer_id") { inputs[customer]?.transactions.append(PurchaseLedger.ownedTransaction(SQLRowColumns(row: row), from: 1)) } }
        for row in rows[5] { if let customer = row.string("customer_id") { inputs[customer]?.grants.append(PurchaseLedger.manualGrant(row)) } }
        for row in rows[6] { if let customer = row.string("customer_id") { inputs[customer]?.revocations.append(PurchaseLedger.manualRevocation(row)) } }
        for row in rows[7] { if let customer = row.string("customer_id") { inputs[customer]?.appPurchase = PurchaseLedger.appPurchaseFacts(row) } }
        for row in rows[8] { if let customer = row.string("customer_id") { stored[customer, default: []].append(EntitlementRow(SQLRowColumns(row: row), from: 1)) } }
        // Apple's billing grace periods, as `entitlementInput` applies them.
        for (customer, graces) in Dictionary(grouping: rows[10], by: { $0.string("customer_id") ?? "" }) {
            guard var input = inputs[customer] else { continue }
            PurchaseLedger.applyGracePeriods(graces, to: &input.transactions)
            inputs[customer] = input
        }
        var entries: [String: EntitlementCache.Entry] = [:]
        for (customer, input) in inputs { entries[customer] = EntitlementCache.Entry(input: input, rows: stored[customer] ?? []) }
        let snapshot = ImportSnapshot(customers: testers, receipts: receipts, owners: owners, orders: orders, namedOrders: namedOrders,
                                      receiptIds: rows[9].compactMap { $0.int("id") })
        return ImportPrefetch(snapshot: snapshot, entitlements: entries)
    }
}

/// PostgreSQL array literals, sent as one text parameter (`?::text[]`) so that one prepared
/// statement serves a list of any length.
enum PostgresArrayLiteral {
    /// `{"a","b"}`: every element quoted, `"` and `\` escaped. Built as UTF-8 bytes: in UTF-8
    /// those two bytes never occur inside another character's encoding, and an element without
    /// either (nearly every one) is copied whole.
    static func text(_ values: [String]) -> String {
        var literal: [UInt8] = [UInt8(ascii: "{")]
        literal.reserveCapacity(2 + values.reduce(0) { $0 + $1.utf8.count + 3 })
        for (index, value) in values.enumerated() {
            if index > 0 { literal.append(UInt8(ascii: ",")) }
            literal.append(UInt8(ascii: "\""))
            let bytes = value.utf8
            if bytes.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                for byte in bytes {
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { literal.append(UInt8(ascii: "\\")) }
                    literal.append(byte)
                }
            } else {
                literal.append(contentsOf: bytes)
            }
            literal.append(UInt8(ascii: "\""))
        }
        literal.append(UInt8(ascii: "}"))
        return String(decoding: literal, as: UTF8.self)
    }
}
