import Foundation
import ReceiptCore

extension PurchaseLedger {
    /// What the entitlement calculation needs about one customer, read from the database.
    func entitlementInput(_ customerId: String) throws -> EntitlementInput {
        var transactions = try database.query("""
            SELECT transaction_id, original_transaction_id, product_id, product_type, environment, purchase_date,
                   expires_date, revocation_date, cancellation_date, quantity
            FROM transactions WHERE customer_id = ?
            """, [.text(customerId)]).map { row in
            OwnedTransaction(transactionId: row.string("transaction_id") ?? "",
                             originalTransactionId: row.string("original_transaction_id"),
                             productId: row.string("product_id") ?? "",
                             productType: row.string("product_type").flatMap(ProductType.init(rawValue:)),
                             environment: Environment(rawValue: row.string("environment") ?? "") ?? .unknown,
                             purchaseDate: row.date("purchase_date"), expiresDate: row.date("expires_date"),
                             revocationDate: row.date("revocation_date"), cancellationDate: row.date("cancellation_date"),
                             quantity: row.int("quantity") ?? 1)
        }
        // Apple's billing grace period (signed renewal info): the newest period of a subscription
        // in one keeps granting until the grace period ends.
        let graces = try database.query("""
            SELECT original_transaction_id, grace_period_expires_date FROM subscription_states
            WHERE customer_id = ? AND status = 4 AND grace_period_expires_date IS NOT NULL
            """, [.text(customerId)])
        for grace in graces {
            guard let original = grace.string("original_transaction_id"), let end = grace.date("grace_period_expires_date") else { continue }
            let latest = transactions.indices.filter { (transactions[$0].originalTransactionId ?? transactions[$0].transactionId) == original }
                .max { (transactions[$0].expiresDate ?? .distantPast) < (transactions[$1].expiresDate ?? .distantPast) }
            if let latest { transactions[latest].gracePeriodEnd = end }
        }
        let grants = try database.query("""
            SELECT grant_id, entitlement, starts_at, ends_at, revoked_at, reason, granted_by FROM grants WHERE customer_id = ?
            """, [.text(customerId)]).map { row in
            ManualGrant(id: row.int("grant_id") ?? 0, entitlement: row.string("entitlement") ?? "",
                        starts: row.date("starts_at") ?? .distantPast, ends: row.date("ends_at"),
                        revokedAt: row.date("revoked_at"), reason: row.string("reason") ?? "",
                        grantedBy: row.string("granted_by") ?? "")
        }
        let revocations = try database.query("""
            SELECT revocation_id, entitlement, revoked_at, revoked_by, reason FROM revocations WHERE customer_id = ?
            """, [.text(customerId)]).map { row in
            ManualRevocation(id: row.int("revocation_id") ?? 0, entitlement: row.string("entitlement") ?? "",
                             at: row.date("revoked_at") ?? .distantPast, reason: row.string("reason") ?? "",
                             by: row.string("revoked_by") ?? "")
        }
        let tester = try database.queryFirst("SELECT is_tester FROM customers WHERE customer_id = ?", [.text(customerId)])?
            .bool("is_tester") ?? false
        // The newest valid receipt that says when and in which version the app was first bought.
        let app = try database.queryFirst("""
            SELECT original_app_version, original_purchase_date, environment FROM receipts
            WHERE customer_id = ? AND verdict = 'valid' AND (original_app_version IS NOT NULL OR original_purchase_date IS NOT NULL)
            ORDER BY receipt_id DESC LIMIT 1
            """, [.text(customerId)]).map { row in
            AppPurchaseFacts(originalAppVersion: row.string("original_app_version"),
                             originalPurchaseDate: row.date("original_purchase_date"),
                             environment: Environment(rawValue: row.string("environment") ?? "") ?? .unknown)
        }
        return EntitlementInput(transactions: transactions, grants: grants, revocations: revocations,
                                appPurchase: app, isTester: tester)
    }

    /// The customer's entitlements at `now`, computed by the core's pure function.
    public func entitlements(_ customerId: String, now: Date) throws -> [EntitlementState] {
        EntitlementCalculator.compute(try entitlementInput(customerId), configuration: configuration, now: now)
    }

    /// Recomputes the customer's entitlements and stores them, one row per source (inside the
    /// caller's transaction). Only rows whose content changed are written (see `EntitlementRowWriter`).
    @discardableResult
    func refreshEntitlements(_ customerId: String, now: Date) throws -> [EntitlementState] {
        try database.lockCustomer(customerId)  // PostgreSQL: a concurrent recomputation would duplicate rows
        let known = entitlementCache?.entry(customerId)
        if known != nil { entitlementCacheHits += 1 }
        let input = try known?.input ?? entitlementInput(customerId)
        let states = EntitlementCalculator.compute(input, configuration: configuration, now: now)
        let rows = states.flatMap { state in state.sources.map { EntitlementRow(state, $0) } }
        let writer = EntitlementRowWriter(database: database, customerId: customerId, now: now)
        try writer.write(rows, stored: known?.rows ?? writer.storedRows())
        entitlementCache?.store(customerId, input: input, rows: rows)
        return states
    }
}
