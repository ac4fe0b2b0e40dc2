import Foundation
import ReceiptCore

extension PurchaseLedger {
    /// Orders, transactions, receipts, grants, entitlements (with reasons) and conflicts of a customer.
    public func customerSummary(_ customerId: String) throws -> CustomerSummary {
        guard let customer = try database.queryFirst("SELECT is_tester, display_name, email, erased_at, erased_by FROM customers WHERE customer_id = ?", [.text(customerId)]) else {
            throw StoreError(.notFound, "customer \(customerId) not found: check the id; import a receipt for them or add them with `receiptdesk customer add \(customerId)`")
        }
        let id: [SQLValue] = [.text(customerId)]
        let orders = try database.query("SELECT * FROM orders WHERE customer_id = ? ORDER BY created_at, order_id", id)
            .map(Self.orderRecord)
        let transactions = try database.query("SELECT * FROM transactions WHERE customer_id = ? ORDER BY purchase_date, transaction_id", id)
            .map(Self.transactionRecord)
        let receipts = try database.query("""
            SELECT receipt_id, sha256, format, environment, verdict, verdict_reason, source, customer_id, imported_at, imported_by
            FROM receipts WHERE customer_id = ? ORDER BY receipt_id
            """, id).map(Self.receiptRecord)
        let grants = try database.query("SELECT * FROM grants WHERE customer_id = ? ORDER BY grant_id", id).map(Self.grantRecord)
        let conflicts = try database.query("""
            SELECT \(Self.conflictColumns) FROM conflicts k WHERE k.claimant_customer_id = ? OR k.owner_customer_id = ? ORDER BY k.conflict_id
            """, [.text(customerId), .text(customerId)]).map(Self.conflictRecord)
        var summary = CustomerSummary(customerId: customerId, isTester: customer.bool("is_tester"), orders: orders,
                               transactions: transactions, receipts: receipts, grants: grants,
                               entitlements: try entitlements(customerId, now: clock()), conflicts: conflicts)
        summary.displayName = customer.string("display_name")
        summary.email = customer.string("email")
        summary.lifetimeSpend = try lifetimeSpend(of: customerId)
        summary.notes = try notes(of: customerId)
        summary.erasedAt = customer.date("erased_at")
        summary.erasedBy = customer.string("erased_by")
        return summary
    }

    /// One transaction by id.
    public func transaction(_ transactionId: String) throws -> TransactionRecord? {
        try database.queryFirst("SELECT * FROM transactions WHERE transaction_id = ?", [.text(transactionId)]).map(Self.transactionRecord)
    }

    /// Conflicts, open ones only unless `includeResolved`.
    public func conflicts(includeResolved: Bool = false) throws -> [ConflictRecord] {
        try database.query("SELECT \(Self.conflictColumns) FROM conflicts k \(includeResolved ? "" : "WHERE k.status = 'open'") ORDER BY k.conflict_id", [])
            .map(Self.conflictRecord)
    }

    /// Transactions whose order binding was ambiguous and that no operator has settled.
    public func ambiguousBindings() throws -> [TransactionRecord] {
        try database.query("SELECT * FROM transactions WHERE binding = 'ambiguous' AND order_id IS NULL ORDER BY recorded_at", [])
            .map(Self.transactionRecord)
    }

    static func transactionRecord(_ row: SQLRow) -> TransactionRecord {
        TransactionRecord(transactionId: row.string("transaction_id") ?? "", originalTransactionId: row.string("original_transaction_id"),
                          productId: row.string("product_id") ?? "", productType: row.string("product_type"),
                          customerId: row.string("customer_id") ?? "", orderId: row.string("order_id"),
                          binding: row.string("binding") ?? "", environment: row.string("environment") ?? "",
                          purchaseDate: row.date("purchase_date"), expiresDate: row.date("expires_date"),
                          revocationDate: row.date("revocation_date"), cancellationDate: row.date("cancellation_date"),
                          quantity: row.int("quantity") ?? 1, appAccountToken: row.string("app_account_token"),
                          firstReceiptId: row.int("first_receipt_id") ?? 0, repeatArrivals: row.int("repeat_arrivals") ?? 0,
                          ownershipType: row.string("ownership_type"), revocationType: row.string("revocation_type"),
                          revocationPercentage: row.int("revocation_percentage"), isUpgraded: row.int("is_upgraded").map { $0 == 1 },
                          billingPlanType: row.string("billing_plan_type"), commitment: Self.commitment(row),
                          finishedAt: row.date("finished_at"), finishedBy: row.string("finished_by"))
    }

    static func receiptRecord(_ row: SQLRow) -> ReceiptRecord {
        ReceiptRecord(receiptId: row.int("receipt_id") ?? 0, sha256: row.string("sha256") ?? "", format: row.string("format") ?? "",
                      environment: row.string("environment") ?? "", verdict: row.string("verdict") ?? "",
                      verdictReason: row.string("verdict_reason") ?? "", source: row.string("source") ?? "",
                      customerId: row.string("customer_id"), importedAt: row.date("imported_at") ?? .distantPast,
                      importedBy: row.string("imported_by") ?? "")
    }

    static func grantRecord(_ row: SQLRow) -> GrantRecord {
        GrantRecord(grantId: row.int("grant_id") ?? 0, customerId: row.string("customer_id") ?? "",
                    entitlement: row.string("entitlement") ?? "", startsAt: row.date("starts_at") ?? .distantPast,
                    endsAt: row.date("ends_at"), reason: row.string("reason") ?? "", grantedBy: row.string("granted_by") ?? "",
                    revokedAt: row.date("revoked_at"))
    }

    static func conflictRecord(_ row: SQLRow) -> ConflictRecord {
        ConflictRecord(conflictId: row.int("conflict_id") ?? 0, transactionId: row.string("transaction_id") ?? "",
                       ownerCustomerId: row.string("owner_customer_id") ?? "",
                       claimantCustomerId: row.string("claimant_customer_id") ?? "", receiptId: row.int("receipt_id"),
                       receiptCustomerId: row.string("receipt_customer_id"), openedAt: row.date("opened_at") ?? .distantPast, status: row.string("status") ?? "",
                       resolvedOwner: row.string("resolved_owner"), resolvedBy: row.string("resolved_by"),
                       resolvedAt: row.date("resolved_at"), resolutionReason: row.string("resolution_reason"))
    }

    /// The columns of a conflict with the customer its receipt is stored under
    /// (`receipt_customer_id`), for `conflictRecord`: `SELECT \(conflictColumns) FROM conflicts k …`.
    static let conflictColumns = "k.*, (SELECT r.customer_id FROM receipts r WHERE r.receipt_id = k.receipt_id) AS receipt_customer_id"

    /// The commitment stored with a transaction or subscription state; nil when none is.
    static func commitment(_ row: SQLRow) -> TransactionCommitment? {
        let c = TransactionCommitment(billingPeriodNumber: row.int("commitment_period"), totalBillingPeriods: row.int("commitment_periods"),
                                      commitmentPrice: row.int("commitment_price"), commitmentExpiresDate: row.date("commitment_expires_date"))
        return c == TransactionCommitment() ? nil : c
    }
}
