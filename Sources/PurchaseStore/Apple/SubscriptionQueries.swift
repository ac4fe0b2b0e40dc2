import Foundation

/// Reading Apple's side of a customer's purchases back.
extension PurchaseLedger {
    /// The state of one subscription, by original transaction id.
    public func subscriptionState(original: String) throws -> SubscriptionState? {
        try database.queryFirst("SELECT * FROM subscription_states WHERE original_transaction_id = ?", [.text(original)])
            .map(Self.state)
    }

    /// A customer's subscriptions as Apple last reported them, by group then product.
    public func subscriptionStates(of customerId: String) throws -> [SubscriptionState] {
        try database.query("""
            SELECT * FROM subscription_states WHERE customer_id = ?
            ORDER BY subscription_group, product_id, original_transaction_id
            """, [.text(customerId)]).map(Self.state)
    }

    /// What Apple said happened to a customer's purchases, oldest first (at most `limit`, the newest).
    public func subscriptionEvents(of customerId: String, limit: Int = 500) throws -> [SubscriptionEvent] {
        try database.query("""
            SELECT * FROM (SELECT * FROM subscription_events WHERE customer_id = ? ORDER BY occurred_at DESC, event_id DESC LIMIT ?) newest
            ORDER BY occurred_at, event_id
            """, [.text(customerId), .integer(Int64(max(1, limit)))]).map { row in
            SubscriptionEvent(eventId: row.int("event_id") ?? 0, originalTransactionId: row.string("original_transaction_id") ?? "",
                              customerId: row.string("customer_id"), transactionId: row.string("transaction_id"),
                              kind: row.string("kind") ?? "", notificationType: row.string("notification_type"),
                              subtype: row.string("subtype"), occurredAt: row.date("occurred_at") ?? Date(timeIntervalSince1970: 0),
                              detail: row.string("detail") ?? "", source: row.string("source") ?? "")
        }
    }

    static func state(_ row: SQLRow) -> SubscriptionState {
        var s = SubscriptionState(originalTransactionId: row.string("original_transaction_id") ?? "", environment: row.string("environment") ?? "",
                                  source: row.string("source") ?? "", signedDate: row.date("signed_date") ?? Date(timeIntervalSince1970: 0),
                                  updatedAt: row.date("updated_at") ?? Date(timeIntervalSince1970: 0))
        s.customerId = row.string("customer_id")
        s.subscriptionGroup = row.string("subscription_group")
        s.productId = row.string("product_id")
        s.status = row.int("status")
        s.autoRenew = row.int("auto_renew").map { $0 != 0 }
        s.autoRenewProductId = row.string("auto_renew_product_id")
        s.expirationIntent = row.int("expiration_intent")
        s.expiresDate = row.date("expires_date")
        s.renewalDate = row.date("renewal_date")
        s.gracePeriodExpiresDate = row.date("grace_period_expires_date")
        s.inBillingRetry = row.int("in_billing_retry").map { $0 != 0 }
        s.billingRetrySince = row.date("billing_retry_since")
        s.priceIncreaseStatus = row.int("price_increase_status")
        s.offerType = row.int("offer_type")
        s.offerIdentifier = row.string("offer_identifier")
        s.price = row.int("price")
        s.renewalPrice = row.int("renewal_price")
        s.currency = row.string("currency")
        s.storefront = row.string("storefront")
        s.revocationDate = row.date("revocation_date")
        s.revocationReason = row.int("revocation_reason")
        s.refundCount = row.int("refund_count") ?? 0
        s.lastEvent = row.string("last_event")
        s.offerPeriod = row.string("offer_period")
        s.offerDiscountType = row.string("offer_discount_type")
        s.eligibleWinBackOfferIds = (row.string("eligible_win_back_offer_ids") ?? "").split(separator: " ").map(String.init)
        s.terms = SubscriptionTerms(row)
        return s
    }
}
