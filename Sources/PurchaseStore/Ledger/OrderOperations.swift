import Foundation
import ReceiptCore

extension PurchaseLedger {
    /// Records a merchant order before the purchase; the app's applicationUsername / appAccountToken
    /// (`accountToken`) may name it later. Creating the same order again changes nothing.
    @discardableResult
    public func createOrder(_ orderId: String, customer customerId: String, product productId: String,
                            accountToken: String? = nil, allowUnlisted: Bool = false,
                            operatorName: String) throws -> (order: OrderRecord, created: Bool) {
        try Validate.operatorName(operatorName)
        try Validate.identifier(orderId, "order id")
        try Validate.identifier(productId, "product id")
        // As grant does for entitlements: a product the catalogue does not list is most often a
        // typo, and its purchase would grant nothing.
        guard allowUnlisted || configuration.products.isEmpty || configuration.products[productId] != nil else {
            let known = configuration.products.keys.sorted()
            throw StoreError(.invalidInput, "product \(productId) is not in the catalogue (known: \(known.prefix(8).joined(separator: ", "))\(known.count > 8 ? ", …" : "")); its purchase would grant nothing: check the id, or pass --unlisted-product to create the order anyway")
        }
        let now = clock()
        return try database.writeTransaction {
            if let existing = try order(orderId) {
                guard existing.customerId == customerId, existing.productId == productId else {
                    throw StoreError(.alreadyExists, "order \(orderId) already exists for customer \(existing.customerId), product \(existing.productId)")
                }
                return (existing, false)
            }
            try ensureCustomer(customerId, now: now)
            try database.execute("""
                INSERT INTO orders (order_id, customer_id, product_id, app_account_token, created_at, status)
                VALUES (?, ?, ?, ?, ?, 'pending')
                """, [.text(orderId), .text(customerId), .text(productId), .text(accountToken), .date(now)])
            try audit(now, operatorName, "order-create", "order:\(orderId)", .object([
                ("customer", .string(customerId)), ("product", .string(productId)), ("accountToken", .string(accountToken)),
            ]))
            guard let created = try order(orderId) else { throw StoreError(.sql, "order \(orderId) vanished after insert") }
            return (created, true)
        }
    }

    /// Records StoreKit's failed-payment callback against the merchant order, once per order.
    @discardableResult
    public func recordFailedPayment(_ orderId: String, reason: String, operatorName: String) throws -> OrderRecord {
        try Validate.operatorName(operatorName)
        try Validate.reason(reason)
        let now = clock()
        return try database.writeTransaction {
            // PostgreSQL: the order row locked as it is read, so a second failure (or a payment
            // binding to it) waits and then reads what this one wrote.
            guard let existing = try database.queryFirstLocking("SELECT * FROM orders WHERE order_id = ?", [.text(orderId)]).map(Self.orderRecord) else {
                throw StoreError(.notFound, "order \(orderId) not found: create it with `receiptdesk order create`")
            }
            switch existing.status {
            case "failed":
                throw StoreError(.alreadyExists, "order \(orderId) already has its failed payment recorded (\(existing.failureReason ?? ""))")
            case "paid", "refunded":
                throw StoreError(.invalidRequest, "order \(orderId) is \(existing.status) by transaction \(existing.transactionId ?? "?"): a failed payment cannot be recorded")
            default: break
            }
            try database.executeChangingOne("""
                UPDATE orders SET status = 'failed', failure_reason = ?, failed_at = ?, version = version + 1 WHERE order_id = ? AND status = ?
                """, [.text(reason), .date(now), .text(orderId), .text(existing.status)],
                raced: StoreError(.alreadyExists, "order \(orderId) changed while its failed payment was being recorded: nothing changed, look again"))
            try audit(now, operatorName, "order-fail", "order:\(orderId)", .object([("reason", .string(reason))]))
            guard let updated = try order(orderId) else { throw StoreError(.sql, "order \(orderId) vanished after update") }
            return updated
        }
    }

    /// One order by id.
    public func order(_ orderId: String) throws -> OrderRecord? {
        try database.queryFirst("SELECT * FROM orders WHERE order_id = ?", [.text(orderId)]).map(Self.orderRecord)
    }

    static func orderRecord(_ row: SQLRow) -> OrderRecord {
        OrderRecord(orderId: row.string("order_id") ?? "", customerId: row.string("customer_id") ?? "",
                    productId: row.string("product_id") ?? "", appAccountToken: row.string("app_account_token"),
                    createdAt: row.date("created_at") ?? .distantPast, status: row.string("status") ?? "",
                    transactionId: row.string("transaction_id"), failureReason: row.string("failure_reason"))
    }
}
