import Foundation
import ReceiptCore

/// Keeping Apple's side of a subscription: every verified notification and every Get All
/// Subscription Statuses answer updates the subscription's row in `subscription_states` (unless
/// the row already holds something Apple signed later) and adds what happened to
/// `subscription_events`. Runs inside the caller's write transaction.
extension PurchaseLedger {
    /// Records what a verified notification says about its purchase. Returns the event recorded
    /// (nil for a notification about no transaction, such as TEST).
    @discardableResult
    func recordAppleState(_ notification: ServerNotification, uuid: String, customerId: String?, now: Date) throws -> String? {
        guard let transaction = notification.transaction else { return nil }
        let purchase = transaction.purchase
        let type = notification.notificationType ?? "UNKNOWN"
        let signed = notification.signedDate ?? now
        guard let original = purchase.originalTransactionId ?? purchase.transactionId else { return nil }
        let source = "notification \(uuid)"
        if purchase.productType == .autoRenewable || notification.renewalInfo != nil {
            var state = try subscriptionState(original: original)
                ?? SubscriptionState(originalTransactionId: original, environment: notification.environment.environment.rawValue,
                                     source: source, signedDate: signed, updatedAt: now)
            let before = state
            if state.signedDate <= signed || before.source == source {
                merge(&state, transaction: transaction, renewal: notification.renewalInfo, status: notification.status,
                      event: [type, notification.subtype].compactMap { $0 }.joined(separator: "/"), at: signed)
                state.source = source
                state.signedDate = signed
            }
            if type == "REFUND" { state.refundCount += 1 }
            if type == "REFUND_REVERSED" {
                state.revocationDate = nil
                state.revocationReason = nil
                state.terms.revocationType = nil
                state.terms.revocationPercentage = nil
            }
            state.customerId = customerId ?? state.customerId
            state.updatedAt = now
            try saveSubscriptionState(state)
        }
        let (kind, detail) = Self.describe(type: type, subtype: notification.subtype, transaction: transaction,
                                           renewal: notification.renewalInfo)
        try addSubscriptionEvent(original: original, customerId: customerId, transactionId: purchase.transactionId, kind: kind,
                                 type: type, subtype: notification.subtype, at: signed, detail: detail, source: source)
        return kind
    }

    /// Records one subscription of a verified Get All Subscription Statuses answer.
    func recordSubscriptionStatus(transaction: SignedTransaction, renewal: RenewalInfo?, status: Int64?, group: String?,
                                  customerId: String?, now: Date) throws -> SubscriptionState? {
        guard let original = transaction.purchase.originalTransactionId ?? transaction.purchase.transactionId else { return nil }
        let signed = renewal?.signedDate ?? transaction.signedDate ?? now
        let source = "Get All Subscription Statuses"
        var state = try subscriptionState(original: original)
            ?? SubscriptionState(originalTransactionId: original, environment: transaction.environment.environment.rawValue,
                                 source: source, signedDate: signed, updatedAt: now)
        guard state.signedDate <= signed else { return state }  // a notification signed later already told more
        let before = state.status
        merge(&state, transaction: transaction, renewal: renewal, status: status, event: state.lastEvent, at: signed)
        state.subscriptionGroup = group ?? state.subscriptionGroup
        state.source = source
        state.signedDate = signed
        state.customerId = customerId ?? state.customerId
        state.updatedAt = now
        try saveSubscriptionState(state)
        if before != state.status {
            try addSubscriptionEvent(original: original, customerId: state.customerId, transactionId: transaction.purchase.transactionId,
                                     kind: "status", type: nil, subtype: nil, at: signed,
                                     detail: "Apple reports \(state.statusName)\(before.map { " (was \(SubscriptionLastStatus.name($0)))" } ?? "")",
                                     source: source)
        }
        return state
    }

    /// Folds signed facts into a state.
    private func merge(_ state: inout SubscriptionState, transaction: SignedTransaction, renewal: RenewalInfo?, status: Int64?,
                       event: String?, at signed: Date) {
        let purchase = transaction.purchase
        let previousExpiry = state.expiresDate
        state.productId = purchase.productId ?? state.productId
        state.subscriptionGroup = transaction.subscriptionGroupIdentifier ?? state.subscriptionGroup
        state.expiresDate = purchase.expiresDate ?? state.expiresDate
        state.price = transaction.price ?? state.price
        state.currency = transaction.currency ?? state.currency
        state.storefront = transaction.storefront ?? state.storefront
        state.revocationDate = purchase.revocationDate
        state.revocationReason = purchase.revocationReason.flatMap { Int64($0) }
        if let offer = transaction.offerType {
            state.offerType = offer
            state.offerIdentifier = transaction.offerIdentifier
            state.offerPeriod = transaction.offerPeriod
            state.offerDiscountType = transaction.offerDiscountTypeRaw
        }
        if let status { state.status = status }
        if let renewal {
            state.autoRenew = renewal.autoRenewStatus.map { $0 == 1 }
            state.autoRenewProductId = renewal.autoRenewProductId ?? state.autoRenewProductId
            state.expirationIntent = renewal.expirationIntent
            state.renewalDate = renewal.renewalDate
            state.gracePeriodExpiresDate = renewal.gracePeriodExpiresDate ?? state.gracePeriodExpiresDate
            let retrying = renewal.isInBillingRetryPeriod ?? false
            if retrying, state.inBillingRetry != true { state.billingRetrySince = previousExpiry ?? purchase.expiresDate ?? signed }
            state.inBillingRetry = renewal.isInBillingRetryPeriod
            state.priceIncreaseStatus = renewal.priceIncreaseStatus
            if let offer = renewal.offerType {
                state.offerType = offer
                state.offerIdentifier = renewal.offerIdentifier
                state.offerPeriod = renewal.offerPeriod ?? state.offerPeriod
                state.offerDiscountType = renewal.offerDiscountTypeRaw ?? state.offerDiscountType
            }
            state.eligibleWinBackOfferIds = renewal.eligibleWinBackOfferIds
            state.renewalPrice = renewal.renewalPrice ?? state.renewalPrice
            state.currency = renewal.currency ?? state.currency
        }
        if state.status == 1, state.inBillingRetry != true {  // paid again: the old billing trouble is over
            state.billingRetrySince = nil
            state.gracePeriodExpiresDate = nil
        }
        state.terms.merge(transaction, renewal)
        state.lastEvent = event
    }

    private func saveSubscriptionState(_ s: SubscriptionState) throws {
        let values: [SQLValue] = [
            .text(s.originalTransactionId), .text(s.customerId), .text(s.environment), .text(s.subscriptionGroup), .text(s.productId),
            .integer(s.status), .integer(s.autoRenew.map { $0 ? 1 : 0 }), .text(s.autoRenewProductId), .integer(s.expirationIntent),
            .date(s.expiresDate), .date(s.renewalDate), .date(s.gracePeriodExpiresDate), .integer(s.inBillingRetry.map { $0 ? 1 : 0 }),
            .date(s.billingRetrySince), .integer(s.priceIncreaseStatus), .integer(s.offerType), .text(s.offerIdentifier),
            .integer(s.price), .integer(s.renewalPrice), .text(s.currency), .text(s.storefront), .date(s.revocationDate),
            .integer(s.revocationReason), .integer(s.refundCount), .text(s.lastEvent), .text(s.source), .date(s.signedDate),
            .date(s.updatedAt), .text(s.offerPeriod), .text(s.offerDiscountType),
            .text(s.eligibleWinBackOfferIds.isEmpty ? nil : s.eligibleWinBackOfferIds.joined(separator: " ")),
        ] + s.terms.values
        try database.execute(Self.saveStateSQL, values)
    }

    /// The upsert of a subscription's state, built once (every notification runs it).
    private static let saveStateSQL: String = {
        let columns = stateColumns + SubscriptionTerms.columns
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        return """
            INSERT INTO subscription_states (\(columns.joined(separator: ", ")))
            VALUES (\(SQLDialect.placeholders(columns.count)))
            ON CONFLICT (original_transaction_id) DO UPDATE SET \(updates)
            """
    }()

    static let stateColumns = [
        "original_transaction_id", "customer_id", "environment", "subscription_group", "product_id", "status", "auto_renew",
        "auto_renew_product_id", "expiration_intent", "expires_date", "renewal_date", "grace_period_expires_date", "in_billing_retry",
        "billing_retry_since", "price_increase_status", "offer_type", "offer_identifier", "price", "renewal_price", "currency",
        "storefront", "revocation_date", "revocation_reason", "refund_count", "last_event", "source", "signed_date", "updated_at",
        "offer_period", "offer_discount_type", "eligible_win_back_offer_ids",
    ]

    func addSubscriptionEvent(original: String, customerId: String?, transactionId: String?, kind: String, type: String?,
                              subtype: String?, at: Date, detail: String, source: String) throws {
        try database.execute("""
            INSERT INTO subscription_events (original_transaction_id, customer_id, transaction_id, kind, notification_type, subtype,
                                             occurred_at, detail, source)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(original), .text(customerId), .text(transactionId), .text(kind), .text(type), .text(subtype), .date(at),
                  .text(detail), .text(source)])
    }

    /// The event's kind and one line of detail for a notification.
    static func describe(type: String, subtype: String?, transaction: SignedTransaction, renewal: RenewalInfo?) -> (String, String) {
        let purchase = transaction.purchase
        let day = { (date: Date?) in date.map(SubscriptionStory.utcDay) ?? "?" }
        let product = purchase.productId ?? "?"
        switch (type, subtype) {
        case ("SUBSCRIBED", let sub): return ("subscribed", "\(product)\(sub == "RESUBSCRIBE" ? " again" : ""), expires \(day(purchase.expiresDate))")
        case ("DID_RENEW", "BILLING_RECOVERY"): return ("billing recovered", "paid after billing retry, expires \(day(purchase.expiresDate))")
        case ("DID_RENEW", _): return ("renewed", "\(product), expires \(day(purchase.expiresDate))\(price(transaction))")
        case ("DID_FAIL_TO_RENEW", "GRACE_PERIOD"): return ("grace period", "renewal payment failed; grace period until \(day(renewal?.gracePeriodExpiresDate))")
        case ("DID_FAIL_TO_RENEW", _): return ("billing retry", "renewal payment failed; Apple retries the payment")
        case ("GRACE_PERIOD_EXPIRED", _): return ("grace period ended", "grace period ended; billing retry continues")
        case ("EXPIRED", let sub): return ("expired", "expired \(day(purchase.expiresDate)) (\(sub ?? "no subtype"))")
        case ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED"): return ("auto-renew off", "the customer turned off auto-renew")
        case ("DID_CHANGE_RENEWAL_STATUS", _): return ("auto-renew on", "the customer turned auto-renew back on")
        case ("DID_CHANGE_RENEWAL_PREF", "UPGRADE"):
            return ("upgraded", "upgraded to \(product) on \(day(purchase.purchaseDate)), at once")
        case ("DID_CHANGE_RENEWAL_PREF", let sub): return ("renewal preference", "renews into \(renewal?.autoRenewProductId ?? "?")\(sub.map { " (\($0.lowercased()))" } ?? "")")
        case ("OFFER_REDEEMED", _): return ("offer", "offer \(renewal?.offerIdentifier ?? transaction.offerIdentifier ?? "?") redeemed")
        case ("PRICE_INCREASE", "ACCEPTED"): return ("price increase", "the customer accepted the price increase to \(AppleMoney.format(renewal?.renewalPrice, currency: renewal?.currency) ?? "?")")
        case ("PRICE_INCREASE", _): return ("price increase", "price increase to \(AppleMoney.format(renewal?.renewalPrice, currency: renewal?.currency) ?? "?") awaiting consent")
        case ("REFUND", _):
            let kind = RevocationType.describe(raw: purchase.revocationTypeRaw, percentage: purchase.revocationPercentage).map { " (\($0))" } ?? ""
            return ("refund", "Apple refunded \(purchase.transactionId ?? "?")\(purchase.revocationReason == "1" ? ": an issue with the purchase" : "")\(kind)")
        case ("REFUND_DECLINED", _): return ("refund declined", "Apple declined the refund request for \(purchase.transactionId ?? "?")")
        case ("REFUND_REVERSED", _): return ("refund reversed", "Apple reversed the refund of \(purchase.transactionId ?? "?")")
        case ("REVOKE", _): return ("revoked", "family sharing of \(product) ended for this family member (transaction \(purchase.transactionId ?? "?")); the organiser's purchase is untouched")
        case ("RENEWAL_EXTENDED", _): return ("extended", "renewal date extended to \(day(purchase.expiresDate))")
        case ("RENEWAL_EXTENSION", let sub): return ("mass extension", "mass extension \(sub?.lowercased() ?? "update")")
        case ("CONSUMPTION_REQUEST", _): return ("refund requested", "the customer asked Apple for a refund of \(purchase.transactionId ?? "?"); Apple asks for consumption information")
        case ("ONE_TIME_CHARGE", _): return ("charged", "\(product)\(price(transaction))")
        // Advanced Commerce API subscriptions.
        case ("METADATA_UPDATE", _): return ("metadata update", "Apple changed \(product)'s metadata (Advanced Commerce); access unchanged")
        case ("MIGRATION", _): return ("migrated", "\(product) migrated to an Advanced Commerce subscription; access unchanged")
        case ("PRICE_CHANGE", _): return ("price change", "the price of \(product) changed to \(AppleMoney.format(renewal?.renewalPrice ?? transaction.price, currency: renewal?.currency ?? transaction.currency) ?? "?") (Advanced Commerce)")
        default: return (type.lowercased().replacingOccurrences(of: "_", with: " "), [type, subtype].compactMap { $0 }.joined(separator: "/"))
        }
    }

    private static func price(_ transaction: SignedTransaction) -> String {
        AppleMoney.format(transaction.price, currency: transaction.currency).map { " at \($0)" } ?? ""
    }
}

/// Apple's subscription status numbers in words (the same words as `SubscriptionState.statusName`).
enum SubscriptionLastStatus {
    static func name(_ status: Int64) -> String {
        var state = SubscriptionState(originalTransactionId: "", environment: "", source: "", signedDate: Date(), updatedAt: Date())
        state.status = status
        return state.statusName
    }
}
