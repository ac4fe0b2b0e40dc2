import AppStoreAPI
import Foundation
import ReceiptCore

/// What extending one subscription's renewal date would do, checked against Apple's rules before
/// anything is asked: 1–90 days, at most two extensions in 365 days, an active subscription.
public struct RenewalExtensionPlan: Sendable {
    public let originalTransactionId: String
    public let customerId: String
    public let productId: String
    public let environment: Environment
    public let days: Int
    public let reasonCode: ExtendReasonCode
    /// The expiry the ledger knows now (signed by Apple), and that expiry plus `days`.
    public let currentExpiry: Date?
    public let expectedExpiry: Date?
    /// Extensions asked in the last 365 days (pending ones included).
    public let extensionsThisYear: [Date]
    /// The request identifier sent: a new UUID, or the one of an extension whose answer never
    /// arrived (Apple applies a request identifier once, so asking again is safe).
    public let requestIdentifier: String
    /// True when this retries an extension whose answer never arrived.
    public let isRetry: Bool

    /// The preview, one fact a line.
    public var lines: [String] {
        let day = SubscriptionStory.utcDay
        var out = ["Extend \(productId) of \(customerId) (original \(originalTransactionId), \(environment.rawValue.lowercased())) by \(days) day\(days == 1 ? "" : "s")",
                   "Apple's reason code \(reasonCode.rawValue): \(reasonCode.words)",
                   "expires \(currentExpiry.map(day) ?? "?") → about \(expectedExpiry.map(day) ?? "?") (Apple answers the exact date)",
                   "extensions in the last 365 days: \(extensionsThisYear.count) of \(AppStoreServerAPIClient.maxExtensionsPerYear)"]
        if isRetry { out.append("retries the earlier request \(requestIdentifier), whose answer never arrived") }
        out.append("Apple emails the customer their new renewal date; an extension cannot be undone")
        return out
    }
}

/// What one extension came to.
public struct RenewalExtensionOutcome: Sendable {
    public let plan: RenewalExtensionPlan
    public let effectiveDate: Date?
    /// The subscription as Apple reports it after the extension (nil when the follow-up look-up failed).
    public let state: SubscriptionState?
    /// Why the follow-up look-up failed, when it did.
    public let refreshProblem: String?
}

extension PurchaseLedger {
    /// Checks an extension of `days` for the subscription `original` against Apple's rules and
    /// what the ledger knows; throws a one-line `StoreError` naming the rule it breaks.
    public func planRenewalExtension(original: String, days: Int, reasonCode: ExtendReasonCode) throws -> RenewalExtensionPlan {
        let now = clock()
        guard (1...AppStoreServerAPIClient.maxExtensionDays).contains(days) else {
            throw StoreError(.invalidInput, "Apple extends a renewal date by 1–\(AppStoreServerAPIClient.maxExtensionDays) days at a time; \(days) is not")
        }
        guard let row = try database.queryFirst("""
            SELECT customer_id, product_id, product_type, environment, original_transaction_id FROM transactions
            WHERE original_transaction_id = ? OR transaction_id = ? ORDER BY purchase_date DESC LIMIT 1
            """, [.text(original), .text(original)]) else {
            throw StoreError(.notFound, "no transaction \(original) in the ledger: give the subscription's original transaction id")
        }
        guard row.string("product_type") == ProductType.autoRenewable.rawValue else {
            throw StoreError(.invalidRequest, "\(original) is a \(row.string("product_type") ?? "purchase") of \(row.string("product_id") ?? "?"), not an auto-renewable subscription: only those can be extended")
        }
        let originalId = row.string("original_transaction_id") ?? original
        let environment = Environment(rawValue: row.string("environment") ?? "") ?? .unknown
        guard environment == .production || environment == .sandbox else {
            throw StoreError(.invalidRequest, "subscription \(originalId) is from \(environment.rawValue): Apple extends only production and sandbox subscriptions")
        }
        let state = try subscriptionState(original: originalId)
        let expiry = try database.queryFirst("""
            SELECT MAX(expires_date) AS expiry FROM transactions WHERE original_transaction_id = ? OR transaction_id = ?
            """, [.text(originalId), .text(originalId)])?.date("expiry")
        let current = [state?.expiresDate, expiry].compactMap { $0 }.max()
        if let refusal = ExtensionEligibility.refusal(originalId, state: state, current: try currentPeriod(original: originalId),
                                                      ledgerExpiry: expiry, now: now) {
            throw StoreError(.invalidRequest, refusal)
        }
        let recent = try database.query("""
            SELECT requested_at, outcome, request_identifier, days FROM renewal_extensions
            WHERE original_transaction_id = ? AND requested_at > ? AND outcome IN ('pending', 'extended') ORDER BY requested_at
            """, [.text(originalId), .date(now.addingTimeInterval(-365 * 86_400))])
        let pending = recent.first { $0.string("outcome") == "pending" }
        if pending == nil, recent.count >= AppStoreServerAPIClient.maxExtensionsPerYear {
            let dates = recent.compactMap { $0.date("requested_at") }.map(SubscriptionStory.utcDay).joined(separator: " and ")
            throw StoreError(.invalidRequest, "subscription \(originalId) was already extended twice in the last 365 days (\(dates)): Apple allows at most \(AppStoreServerAPIClient.maxExtensionsPerYear)")
        }
        if let pending, let pendingDays = pending.int("days"), pendingDays != Int64(days) {
            // Asking again is safe only with the same request: a new one could be a second extension.
            throw StoreError(.invalidRequest, "subscription \(originalId) has an extension of \(Plural.of(pendingDays, "day")) whose answer never arrived (request \(pending.string("request_identifier") ?? "?")): run it again with --days \(pendingDays) to retry it (Apple applies a request once), not \(days)")
        }
        return RenewalExtensionPlan(originalTransactionId: originalId, customerId: row.string("customer_id") ?? "",
                                    productId: row.string("product_id") ?? "", environment: environment, days: days,
                                    reasonCode: reasonCode, currentExpiry: current,
                                    expectedExpiry: current.map { $0.addingTimeInterval(Double(days) * 86_400) },
                                    extensionsThisYear: recent.compactMap { $0.date("requested_at") },
                                    requestIdentifier: pending?.string("request_identifier") ?? UUID().uuidString.lowercased(),
                                    isRetry: pending != nil)
    }

    /// Reserves the extension's request identifier before Apple is asked, in one write
    /// transaction under the customer's lock: the plan is made again there, and when the ledger
    /// no longer matches the preview (another operator's extension was asked or answered since,
    /// or the yearly limit is now reached) nothing is reserved and the operator is told to look
    /// again. A reserved request is stored pending, so an answer lost on the way is retried with
    /// the same identifier. Call it while holding the subscription's `InFlightClaim`.
    func reserveRenewalExtension(_ plan: RenewalExtensionPlan, reason: String, operatorName: String) throws {
        try Validate.reason(reason)
        try Validate.operatorName(operatorName)
        let now = clock()
        try database.writeTransaction { () throws -> Void in
            try database.lockCustomer(plan.customerId)
            let fresh = try planRenewalExtension(original: plan.originalTransactionId, days: plan.days, reasonCode: plan.reasonCode)
            guard fresh.customerId == plan.customerId, fresh.isRetry == plan.isRetry,
                  !plan.isRetry || fresh.requestIdentifier == plan.requestIdentifier,
                  fresh.extensionsThisYear == plan.extensionsThisYear else {
                throw StoreError(.alreadyExists, "subscription \(plan.originalTransactionId) changed since the preview (\(fresh.extensionsThisYear.count) extension\(fresh.extensionsThisYear.count == 1 ? "" : "s") in the last 365 days now, \(plan.extensionsThisYear.count) then\(fresh.isRetry && !plan.isRetry ? ", one of them awaiting Apple's answer" : "")): nothing was asked of Apple; look again")
            }
            guard !plan.isRetry else { return }
            try database.executeChangingOne("""
                INSERT INTO renewal_extensions (request_identifier, original_transaction_id, customer_id, days, reason_code, requested_at,
                                                operator, reason, outcome)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending')
                ON CONFLICT (request_identifier) DO NOTHING
                """, [.text(plan.requestIdentifier), .text(plan.originalTransactionId), .text(plan.customerId), .integer(Int64(plan.days)),
                      .integer(Int64(plan.reasonCode.rawValue)), .date(now), .text(operatorName), .text(reason)],
                raced: StoreError(.alreadyExists, "extension request \(plan.requestIdentifier) is already stored: nothing was asked of Apple; look again"))
        }
    }

    /// Records Apple's answer to an extension (`effectiveDate` on success, `refusal` otherwise),
    /// audited, once per request identifier (`batch`: the goodwill it belongs to, named in the entry).
    func recordExtensionAnswer(_ plan: RenewalExtensionPlan, effectiveDate: Date?, refusal: String?, reason: String,
                               operatorName: String, attempts: Int, batch: String? = nil) throws {
        let now = clock()
        try database.writeTransaction {
            let outcome = refusal.map { "refused: \($0)" } ?? "extended"
            // Once per request: an answer already recorded (a retry of the same request) adds nothing.
            let answered = try database.execute("""
                UPDATE renewal_extensions SET outcome = ?, effective_date = ? WHERE request_identifier = ? AND outcome = 'pending'
                """, [.text(outcome), .date(effectiveDate), .text(plan.requestIdentifier)])
            guard answered == 1 else { return }
            if refusal == nil {
                try addSubscriptionEvent(original: plan.originalTransactionId, customerId: plan.customerId, transactionId: nil,
                                         kind: "extended", type: nil, subtype: nil, at: now,
                                         detail: "extended by \(Plural.of(plan.days, "day")) (\(plan.reasonCode.words)) to \(effectiveDate.map(SubscriptionStory.utcDay) ?? "?") by \(operatorName): \(reason)",
                                         source: "extension \(plan.requestIdentifier)")
            }
            try audit(now, operatorName, "apple-extend", "customer:\(plan.customerId)", .object([
                ("originalTransactionId", .string(plan.originalTransactionId)), ("days", .int(Int64(plan.days))),
                ("reasonCode", .int(Int64(plan.reasonCode.rawValue))), ("requestIdentifier", .string(plan.requestIdentifier)),
                ("outcome", .string(outcome)), ("effectiveDate", .string(effectiveDate.map(StoreDates.format))),
                ("reason", .string(reason)), ("attempts", .int(Int64(attempts))),
            ] + (batch.map { [("batch", .string($0))] } ?? [])))
        }
    }

    /// Extensions of a customer's subscriptions, newest first.
    public func renewalExtensions(of customerId: String) throws -> [(original: String, days: Int64, requestedAt: Date?, outcome: String, by: String)] {
        try database.query("""
            SELECT * FROM renewal_extensions WHERE customer_id = ? ORDER BY requested_at DESC, extension_id DESC
            """, [.text(customerId)]).map {
            ($0.string("original_transaction_id") ?? "", $0.int("days") ?? 0, $0.date("requested_at"), $0.string("outcome") ?? "",
             $0.string("operator") ?? "")
        }
    }
}
