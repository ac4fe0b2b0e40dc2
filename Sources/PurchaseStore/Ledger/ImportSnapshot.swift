import Foundation

/// What the imports of one batch look up, read for the whole batch at its start (on PostgreSQL,
/// in one round trip: `PostgresDatabase.prefetchImports`) and kept current with the batch's own
/// writes, so that each import asks it instead of the database and gets the answer the database
/// would give at that point. The ledger's logic stays the same (`planImport`, `writeImport`,
/// `OrderMatcher`): only where it reads from changes.
///
/// It is only right while the batch holds the locks taken with it: every customer of the batch
/// that exists is locked (`FOR UPDATE`), so no other writer changes their rows; a customer that
/// does not exist yet is created by a plain INSERT, which fails (and the batch runs again) if
/// another writer created it meanwhile. Receipts and transaction ids other writers record
/// meanwhile make the batch's inserts fail on their unique keys, and the batch runs again.
final class ImportSnapshot {
    /// A merchant order as the snapshot holds it.
    struct Order {
        let id: String
        let customerId: String
        let productId: String
        let createdAt: String
        var status: String
        var transactionId: String?
        let appAccountToken: String?
    }

    /// Existing customers of the batch (locked) and those the batch created: id → is tester.
    private var customers: [String: Bool]
    /// Receipt id by SHA-256, for every receipt of the batch that is stored.
    private var receipts: [String: Int64]
    /// Owner of every transaction id of the batch that is recorded.
    private var owners: [String: String]
    /// The open orders of the batch's customers and the orders named explicitly by its items.
    private var orders: [String: Order]
    /// The order ids items name explicitly: read whether they exist or not.
    private let namedOrders: Set<String>
    /// Receipt ids taken from the sequence for the batch, smallest first.
    private var receiptIds: ArraySlice<Int64>

    init(customers: [String: Bool], receipts: [String: Int64], owners: [String: String], orders: [Order],
         namedOrders: Set<String>, receiptIds: [Int64]) {
        self.customers = customers
        self.namedOrders = namedOrders
        self.receipts = receipts
        self.owners = owners
        self.orders = Dictionary(orders.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.receiptIds = receiptIds.sorted()[...]
    }

    // MARK: what the imports ask

    /// Whether the customer row exists (and this batch holds its lock).
    func hasCustomer(_ customerId: String) -> Bool { customers[customerId] != nil }

    /// Whether the customer is a sandbox tester (false for one not stored).
    func isTester(_ customerId: String) -> Bool { customers[customerId] ?? false }

    /// The stored receipt with this SHA-256.
    func receiptId(digest: String) -> Int64? { receipts[digest] }

    /// The owners of those of `transactionIds` that are recorded.
    func owners(of transactionIds: [String]) -> [String: String] {
        var found: [String: String] = [:]
        for id in transactionIds { if let owner = owners[id] { found[id] = owner } }
        return found
    }

    /// The customer of an order named explicitly (`.some(nil)`: no such order); nil when the
    /// snapshot was not asked to read it.
    func orderCustomer(_ orderId: String) -> String?? {
        guard let order = orders[orderId] else { return namedOrders.contains(orderId) ? .some(nil) : nil }
        return .some(order.customerId)
    }

    /// The customer's order with this id if it still waits for a transaction.
    func openOrder(_ orderId: String, customer: String) -> Order? {
        guard let order = orders[orderId], order.customerId == customer, order.transactionId == nil else { return nil }
        return order
    }

    /// The customer's open orders whose stored account token equals `token` ignoring case; nil
    /// when that cannot be told here (text beyond ASCII, where the database's case folding decides).
    func openOrders(customer: String, token: String) -> [Order]? {
        guard token.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        let folded = token.lowercased()
        var found: [Order] = []
        for order in orders.values where order.customerId == customer && order.transactionId == nil {
            guard let stored = order.appAccountToken else { continue }
            guard stored.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
            if stored.lowercased() == folded { found.append(order) }
        }
        return found
    }

    /// The customer's orders waiting for a payment (pending or failed, no transaction).
    func waitingOrders(customer: String) -> [Order] {
        orders.values.filter { $0.customerId == customer && $0.transactionId == nil && ($0.status == "pending" || $0.status == "failed") }
    }

    // MARK: what the imports write

    /// A receipt id for the next receipt stored; nil when the batch's are used up (the receipt
    /// then takes one from the sequence as it is inserted).
    func takeReceiptId() -> Int64? { receiptIds.popFirst() }

    func createdCustomer(_ customerId: String) { customers[customerId] = false }

    func storedReceipt(digest: String, id: Int64) { receipts[digest] = id }

    func recordedTransaction(_ transactionId: String, customer: String) { owners[transactionId] = customer }

    func boundOrder(_ orderId: String, transactionId: String, status: String) {
        orders[orderId]?.transactionId = transactionId
        orders[orderId]?.status = status
    }
}
