import Foundation
import PurchaseStore
import ReceiptCore

/// Apple's side of a customer as text (customer show, subscription status) and as JSON.
enum AppleSideText {
    static func day(_ date: Date?) -> String { date.map(SubscriptionStory.utcDay) ?? "–" }

    static func lines(_ side: CustomerAppleSide, now: Date) -> [String] {
        var lines: [String] = []
        lines += ["", "subscriptions (Apple):"]
        if side.states.isEmpty { lines.append("  none reported by Apple yet (`receiptdesk subscription status ID` asks)") }
        for s in side.states {
            lines.append("  \(s.subscriptionGroup ?? "–")  \(s.productId ?? "?")  original \(s.originalTransactionId)  \(s.statusName.uppercased())  \(s.environment.uppercased())")
            lines.append("      why: \(SubscriptionStory.line(s, now: now))")
            var facts: [String] = []
            if let renew = s.autoRenew { facts.append("auto-renew \(renew ? "on" : "off")\(s.autoRenewProductId.map { " → \($0)" } ?? "")") }
            if let price = AppleMoney.format(s.price, currency: s.currency) { facts.append("paid \(price)\(s.storefront.map { " (\($0))" } ?? "")") }
            if let next = AppleMoney.format(s.renewalPrice, currency: s.currency) { facts.append("next \(next)") }
            if let offer = s.offerName { facts.append(offer) }
            if let winBack = s.winBackEligibility { facts.append(winBack) }
            if !facts.isEmpty { lines.append("      " + facts.joined(separator: "; ")) }
            lines.append("      source: \(s.source), signed by Apple \(RFC3339.format(s.signedDate))\(s.lastEvent.map { ", last \($0)" } ?? "")")
        }
        if !side.refundRequests.isEmpty {
            lines += ["", "refund requests:"]
            for r in side.refundRequests {
                lines.append("  #\(r.requestId)  transaction \(r.transactionId)  \(r.productId ?? "?")  \(r.timing(at: now))  deadline \(RFC3339.format(r.deadline))" +
                             (r.sentBy.map { "  sent by \($0)" } ?? ""))
            }
        }
        if !side.extensions.isEmpty {
            lines += ["", "renewal extensions:"]
            for e in side.extensions {
                lines.append("  \(day(e.requestedAt))  original \(e.original)  +\(Plural.of(e.days, "day"))  \(e.outcome)  by \(e.by)")
            }
        }
        if !side.events.isEmpty {
            lines += ["", "Apple timeline:"]
            for event in side.events { lines.append("  \(day(event.occurredAt))  \(event.kind): \(event.detail)") }
        }
        return lines
    }

    static func json(_ side: CustomerAppleSide, now: Date) -> [(String, JSONValue)] {
        [("subscriptions", .array(side.states.map { state($0, now: now) })),
         ("refundRequests", .array(side.refundRequests.map { refund($0, now: now) })),
         ("renewalExtensions", .array(side.extensions.map {
             .object([("originalTransactionId", .string($0.original)), ("days", .int($0.days)),
                      ("requestedAt", .string($0.requestedAt.map(RFC3339.format))), ("outcome", .string($0.outcome)), ("operator", .string($0.by))])
         })),
         ("appleEvents", .array(side.events.map {
             .object([("occurredAt", .string(RFC3339.format($0.occurredAt))), ("kind", .string($0.kind)), ("detail", .string($0.detail)),
                      ("notificationType", .string($0.notificationType)), ("subtype", .string($0.subtype)),
                      ("originalTransactionId", .string($0.originalTransactionId)), ("transactionId", .string($0.transactionId)),
                      ("source", .string($0.source))])
         }))]
    }

    static func money(_ milliunits: Int64?, _ currency: String?, storefront: String? = nil) -> JSONValue {
        guard let milliunits else { return .null }
        return .object([("milliunits", .int(milliunits)), ("currency", .string(currency)),
                        ("formatted", .string(AppleMoney.format(milliunits, currency: currency))), ("storefront", .string(storefront))])
    }

    static func state(_ s: SubscriptionState, now: Date = Date()) -> JSONValue {
        .object([("originalTransactionId", .string(s.originalTransactionId)), ("subscriptionGroup", .string(s.subscriptionGroup)),
                 ("productId", .string(s.productId)), ("environment", .string(s.environment)),
                 ("status", s.status.map { .int($0) } ?? .null), ("statusName", .string(s.statusName)),
                 ("why", .string(SubscriptionStory.line(s, now: now))),
                 ("autoRenew", s.autoRenew.map { .bool($0) } ?? .null), ("autoRenewProductId", .string(s.autoRenewProductId)),
                 ("expirationIntent", s.expirationIntent.map { .int($0) } ?? .null), ("expirationReason", .string(s.expirationIntentName)),
                 ("expiresDate", .string(s.expiresDate.map(RFC3339.format))), ("renewalDate", .string(s.renewalDate.map(RFC3339.format))),
                 ("gracePeriodExpiresDate", .string(s.gracePeriodExpiresDate.map(RFC3339.format))),
                 ("inBillingRetry", s.inBillingRetry.map { .bool($0) } ?? .null),
                 ("billingRetrySince", .string(s.billingRetrySince.map(RFC3339.format))),
                 ("priceIncreaseStatus", s.priceIncreaseStatus.map { .int($0) } ?? .null), ("offer", .string(s.offerName)),
                 ("eligibleWinBackOfferIds", .array(s.eligibleWinBackOfferIds.map { .string($0) })),
                 ("price", money(s.price, s.currency, storefront: s.storefront)), ("renewalPrice", money(s.renewalPrice, s.currency)),
                 ("revocationDate", .string(s.revocationDate.map(RFC3339.format))),
                 ("revocationReason", s.revocationReason.map { .int($0) } ?? .null), ("refunds", .int(s.refundCount)),
                 ("lastEvent", .string(s.lastEvent)),
                 ("source", .object([("from", .string(s.source)), ("signed", .bool(true)), ("signedDate", .string(RFC3339.format(s.signedDate)))]))])
    }

    static func refund(_ r: RefundRequest, now: Date) -> JSONValue {
        .object([("requestId", .int(r.requestId)), ("notificationUUID", .string(r.notificationUUID)), ("transactionId", .string(r.transactionId)),
                 ("customerId", .string(r.customerId)), ("productId", .string(r.productId)), ("environment", .string(r.environment)),
                 ("requestedAt", .string(RFC3339.format(r.requestedAt))), ("deadline", .string(RFC3339.format(r.deadline))),
                 ("status", .string(r.status.rawValue)), ("overdue", .bool(r.isOverdue(at: now))), ("timing", .string(r.timing(at: now))),
                 ("sentAt", .string(r.sentAt.map(RFC3339.format))), ("sentBy", .string(r.sentBy)), ("reason", .string(r.reason)),
                 ("consumption", r.consumption.map { .string($0) } ?? .null), ("requestReason", .string(r.requestReason))])
    }
}
