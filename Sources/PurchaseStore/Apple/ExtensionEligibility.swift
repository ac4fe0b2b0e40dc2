import Foundation
import ReceiptCore

/// Apple's rule for who may have a renewal date extended (App Store Server API,
/// `SubscriptionExtensionIneligibleError`, 4030004): not a subscription in a free offer period,
/// an inactive one in billing retry, one in a billing grace period whose expiration date has
/// passed, or an expired one (the yearly limit of two is checked apart, against the ledger's own
/// extensions). Each is decided from values Apple signed: the subscription's state
/// (`subscription_states`, from a verified notification or Get All Subscription Statuses, whose
/// `source` and signing date the reason names), the expiry of its signed transactions when
/// Apple has reported no state, and, for a free offer period, its current period's own signed
/// transaction (`CurrentPeriod`: the newest transaction's offer, whose id and signing date the
/// reason names), never the renewal info's offer, which is for the next renewal.
enum ExtensionEligibility {
    /// Why `original` may not be extended at `now`, in one line naming the signed value it was
    /// decided from; nil when Apple's rule lets it through. `ledgerExpiry`: the latest expiry of
    /// its signed transactions; `current`: its current period.
    static func refusal(_ original: String, state: SubscriptionState?, current: CurrentPeriod?, ledgerExpiry: Date?,
                        now: Date) -> String? {
        if let refusal = stateRefusal(original, state: state, ledgerExpiry: ledgerExpiry, now: now) { return refusal }
        if let current, let offer = current.offer, let until = current.freeUntil(now) {
            let day = SubscriptionStory.utcDay
            return "subscription \(original) is in a free offer period until \(day(until)) (\(offer.name ?? "free trial"); Apple refuses extensions during one): the offer of its current transaction \(current.transactionId), signed \(day(offer.signedDate))"
        }
        return nil
    }

    /// The refusals Apple's status and the signed expiries decide.
    private static func stateRefusal(_ original: String, state: SubscriptionState?, ledgerExpiry: Date?, now: Date) -> String? {
        let day = SubscriptionStory.utcDay
        guard let state, state.status != nil else {
            guard let expiry = [state?.expiresDate, ledgerExpiry].compactMap({ $0 }).max(), expiry <= now else { return nil }
            return "subscription \(original) expired \(StoreDates.format(expiry)) (its signed expiry; Apple has reported no status): Apple extends only active subscriptions"
        }
        let signed = "\(state.source), signed \(day(state.signedDate))"
        switch state.status {
        case 3:
            let since = state.billingRetrySince ?? state.expiresDate
            return "subscription \(original) is in billing retry since \(since.map(day) ?? "?") (Apple refuses inactive subscriptions in billing retry): Apple's status 3 in \(signed)"
        case 4:
            guard let expired = state.expiresDate, expired <= now else { return nil }
            return "subscription \(original) is in billing grace period since \(day(expired)) (Apple refuses extensions after expiry): Apple's status 4 and expiry in \(signed)"
        case 1:
            guard let expires = [state.expiresDate, ledgerExpiry].compactMap({ $0 }).max(), expires <= now else { return nil }
            return "subscription \(original) expired \(StoreDates.format(expires)) by its signed expiry, though Apple's last state (\(signed)) says active: Apple extends only active subscriptions (ask Apple for its status first)"
        default:
            return "subscription \(original) is \(state.statusName) (Apple, \(state.source)): Apple extends only active subscriptions"
        }
    }
}
