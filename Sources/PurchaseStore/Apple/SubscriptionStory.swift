import Foundation

/// One thing Apple said happened to a purchase (table `subscription_events`): a renewal, a billing
/// retry, a grace period, a refund and its outcome, an extension, an expiry, an offer.
public struct SubscriptionEvent: Sendable, Equatable {
    public let eventId: Int64
    public let originalTransactionId: String
    public let customerId: String?
    public let transactionId: String?
    /// "renewed", "billing retry", "grace period", "refund", "extended", "expired", …
    public let kind: String
    public let notificationType: String?
    public let subtype: String?
    public let occurredAt: Date
    /// One line: what changed ("expires 2026-12-31, 30 days, customer satisfaction").
    public let detail: String
    /// "notification <uuid>", "Get All Subscription Statuses", "extension <request id>".
    public let source: String
}

/// The one line that answers "why did it stop?" (or "what will happen next?") from a
/// subscription's state: "expired 2026-11-18: billing retry failed since 2026-11-02, grace period
/// ended 2026-11-18".
public enum SubscriptionStory {
    /// `day` formats a date (the console passes the operator's zone; UTC days by default). With
    /// `now`, an active state whose period has run out since Apple's last word says so rather than
    /// "active".
    public static func line(_ state: SubscriptionState, now: Date? = nil, day: (Date) -> String = SubscriptionStory.utcDay) -> String {
        func on(_ date: Date?) -> String { date.map(day) ?? "(date unknown)" }
        var parts: [String] = []
        let ranOut = now.flatMap { now in state.expiresDate.map { $0 <= now } } ?? false
        switch state.status {
        case 1 where ranOut:
            if state.autoRenew == false {
                parts.append("ended \(on(state.expiresDate)): auto-renew was off (Apple's last word, \(on(state.signedDate)), said active until then)")
            } else {
                parts.append("renewal due \(on(state.expiresDate)) not reported by Apple yet: ask Apple for the current status")
            }
        case 1:
            if state.autoRenew == false {
                parts.append("active until \(on(state.expiresDate)), will not renew: auto-renew is off")
            } else {
                var renews = "active, renews \(on(state.renewalDate ?? state.expiresDate))"
                if let next = state.autoRenewProductId, next != state.productId {
                    // A downgrade or crossgrade takes effect at the renewal; an upgrade would have at once.
                    renews = "active as \(state.productId ?? "?") until \(on(state.renewalDate ?? state.expiresDate)), then changes to \(next) (a downgrade or crossgrade the customer chose)"
                }
                if let price = AppleMoney.format(state.renewalPrice, currency: state.currency) { renews += " at \(price)" }
                parts.append(renews)
            }
            if state.priceIncreaseStatus == 0 { parts.append("price increase awaiting the customer's consent") }
        case 4:
            parts.append("billing problem since \(on(state.billingRetrySince ?? state.expiresDate)): in the grace period until \(on(state.gracePeriodExpiresDate)), access continues while Apple retries the payment")
        case 3:
            var line = "in billing retry since \(on(state.billingRetrySince ?? state.expiresDate)): Apple is retrying the payment, no access"
            if let grace = state.gracePeriodExpiresDate { line += ", grace period ended \(on(grace))" }
            parts.append(line)
        case 5:
            let why = state.lastEvent?.hasPrefix("REVOKE") == true ? "family sharing ended for this family member" : state.revocationReasonName
            parts.append("revoked \(on(state.revocationDate)): \(why)")
        case 2:
            if state.revocationDate != nil {
                parts.append("revoked \(on(state.revocationDate)): \(state.revocationReasonName)")
            } else {
                parts.append(expired(state, on))
            }
        default:
            parts.append("state unknown (Apple's status \(state.status.map(String.init) ?? "missing"))")
        }
        if let offer = state.offerName, state.status == 1 { parts.append(offer) }
        if let money = state.terms.moneyLine(price: state.price, currency: state.currency, day: day) { parts.append(money) }
        if state.refundCount > 0 { parts.append("\(state.refundCount) refund\(state.refundCount == 1 ? "" : "s")") }
        return parts.joined(separator: "; ")
    }

    private static func expired(_ state: SubscriptionState, _ on: (Date?) -> String) -> String {
        let when = "expired \(on(state.expiresDate))"
        switch state.expirationIntent {
        case 2:
            var line = "\(when): billing retry failed since \(on(state.billingRetrySince ?? state.expiresDate))"
            if let grace = state.gracePeriodExpiresDate { line += ", grace period ended \(on(grace))" }
            return line
        case 1: return "\(when): the customer turned off auto-renew"
        case let intent?: return "\(when): \(state.expirationIntentName ?? "expiration intent \(intent)")"
        case nil: return state.autoRenew == false ? "\(when): auto-renew was off" : when
        }
    }

    /// "2026-11-02" in UTC.
    public static func utcDay(_ date: Date) -> String { String(StoreDates.format(date).prefix(10)) }
}
