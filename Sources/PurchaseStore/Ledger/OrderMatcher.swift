import Foundation

/// Ties new transactions to merchant orders: the order id given with the import, else the
/// transaction's appAccountToken / the applicationUsername the app sent when it names an order,
/// else the customer's single pending order for that product placed before the purchase.
/// Anything that fits more than one way stays unbound and is marked ambiguous for an operator.
struct OrderMatcher {
    let database: SQLDatabase
    let customerId: String
    /// What a batch read ahead (nil: ask the database).
    let snapshot: ImportSnapshot?
    /// Orders already taken during this import.
    private var taken = Set<String>()
    /// `waitingOrders()`, once read.
    private var waiting: [(id: String, product: String, created: String)]?

    init(database: SQLDatabase, customerId: String, snapshot: ImportSnapshot? = nil) {
        self.database = database
        self.customerId = customerId
        self.snapshot = snapshot
    }

    mutating func bind(_ transaction: IncomingTransaction, explicitOrder: String?, applicationUsername: String?,
                       newOfSameProduct: Int) throws -> (OrderBinding, String?) {
        if let explicitOrder, let order = try openOrder(explicitOrder), order.product == transaction.productId {
            return take(order.id, .explicit)
        }
        for token in [transaction.appAccountToken, applicationUsername].compactMap({ $0 }) where !token.isEmpty {
            if let order = try orderNamed(by: token), order.product == transaction.productId {
                return take(order.id, .accountToken)
            }
        }
        let placedBy = StoreDates.format(transaction.purchaseDate ?? .distantFuture)
        let candidates = try waitingOrders()
            .filter { $0.product == transaction.productId && $0.created <= placedBy && !taken.contains($0.id) }
            .map(\.id)
        switch candidates.count {
        case 0: return (.unbound, nil)
        case 1 where newOfSameProduct == 1: return take(candidates[0], .singlePendingOrder)
        default: return (.ambiguous, nil)
        }
    }

    /// The customer's orders still waiting for a payment (pending or failed, no transaction),
    /// read once per import: most customers have none, and one look-up then serves every transaction.
    private mutating func waitingOrders() throws -> [(id: String, product: String, created: String)] {
        if let waiting { return waiting }
        if let snapshot {
            let found = snapshot.waitingOrders(customer: customerId).map { (id: $0.id, product: $0.productId, created: $0.createdAt) }
            waiting = found
            return found
        }
        let rows = try database.query("""
            SELECT order_id, product_id, created_at FROM orders
            WHERE customer_id = ? AND status IN ('pending', 'failed') AND transaction_id IS NULL
            """, [.text(customerId)])
        let found = rows.compactMap { row -> (id: String, product: String, created: String)? in
            guard let id = row.string("order_id"), let product = row.string("product_id"), let created = row.string("created_at") else { return nil }
            return (id, product, created)
        }
        waiting = found
        return found
    }

    private mutating func take(_ orderId: String, _ binding: OrderBinding) -> (OrderBinding, String?) {
        taken.insert(orderId)
        return (binding, orderId)
    }

    /// The customer's order with this id, if it still waits for a transaction.
    private func openOrder(_ orderId: String) throws -> (id: String, product: String)? {
        guard !taken.contains(orderId) else { return nil }
        if let snapshot { return snapshot.openOrder(orderId, customer: customerId).map { ($0.id, $0.productId) } }
        guard let row = try database.queryFirst("""
                SELECT order_id, product_id FROM orders WHERE order_id = ? AND customer_id = ? AND transaction_id IS NULL
                """, [.text(orderId), .text(customerId)]) else { return nil }
        return (row.string("order_id") ?? orderId, row.string("product_id") ?? "")
    }

    /// The customer's open order whose id or stored account token equals `token` (UUIDs compared
    /// case-insensitively).
    private func orderNamed(by token: String) throws -> (id: String, product: String)? {
        if let direct = try openOrder(token) { return direct }
        if let found = snapshot?.openOrders(customer: customerId, token: token) {
            guard found.count == 1, !taken.contains(found[0].id) else { return nil }
            return (found[0].id, found[0].productId)
        }
        let rows = try database.query("""
            SELECT order_id, product_id FROM orders
            WHERE customer_id = ? AND lower(app_account_token) = lower(?) AND transaction_id IS NULL
            """, [.text(customerId), .text(token)])
        guard rows.count == 1, let id = rows[0].string("order_id"), !taken.contains(id) else { return nil }
        return (id, rows[0].string("product_id") ?? "")
    }
}
