import Foundation

/// Turns transactions into sources through the catalogue.
enum PurchaseSources {
    /// Why a purchase source ends, in the order preferred when two end at the same instant.
    private enum Ending { case revoked, cancelled, expired }

    /// One source per distinct transaction id. A transaction id given twice counts once; a
    /// revocation or cancellation date on any copy applies (the earliest wins).
    static func make(_ transactions: [OwnedTransaction], configuration: StoreConfiguration,
                     sandboxAllowed: Bool, now: Date) -> [DraftSource] {
        var merged: [OwnedTransaction] = []
        var index: [String: Int] = [:]
        for transaction in transactions {
            guard let at = index[transaction.transactionId] else {
                index[transaction.transactionId] = merged.count
                merged.append(transaction)
                continue
            }
            merged[at].revocationDate = earliest(merged[at].revocationDate, transaction.revocationDate)
            merged[at].cancellationDate = earliest(merged[at].cancellationDate, transaction.cancellationDate)
        }
        return merged.map { source(for: $0, configuration: configuration, sandboxAllowed: sandboxAllowed, now: now) }
    }

    static func source(for transaction: OwnedTransaction, configuration: StoreConfiguration,
                       sandboxAllowed: Bool, now: Date) -> DraftSource {
        let product = configuration.products[transaction.productId]
        let entitlement = product?.entitlement ?? transaction.productId
        let type = product?.type ?? transaction.productType ?? .nonConsumable
        let id = transaction.transactionId
        var flags: [String] = []
        if product == nil { flags.append("not in catalogue") }
        if transaction.environment.isTestEnvironment { flags.append("sandbox") }
        if transaction.environment == .unknown { flags.append("environment unknown") }
        let starts = transaction.purchaseDate

        // The end the product type gives, before Apple's revocations and cancellations.
        var naturalEnd: Date?
        switch type {
        case .autoRenewable:
            naturalEnd = transaction.expiresDate
            if naturalEnd == nil { flags.append("no expiry date") }
            if let grace = transaction.gracePeriodEnd, let paid = naturalEnd, grace > paid {
                naturalEnd = grace
                flags.append("billing grace period")
            }
        case .nonRenewing:
            if let duration = product?.duration, let starts {
                naturalEnd = duration.adding(to: starts)
            } else {
                flags.append(product?.duration == nil ? "no duration in catalogue" : "no purchase date")
            }
        case .nonConsumable, .consumable:
            naturalEnd = nil
        }
        let endings: [(Date?, Ending)] = [(transaction.revocationDate, .revoked), (transaction.cancellationDate, .cancelled),
                                         (naturalEnd, .expired)]
        var end: (date: Date, why: Ending)?
        for case let (date?, why) in endings where end.map({ date < $0.date }) ?? true {
            end = (date, why)
        }

        var units: Int64?
        if type == .consumable {
            let perQuantity = product?.units ?? 1
            let (product, overflow) = max(transaction.quantity, 0).multipliedReportingOverflow(by: perQuantity)
            units = overflow ? Int64.max : product
            if transaction.quantity <= 0 { flags.append("quantity \(transaction.quantity)") }
        }

        let blocked = transaction.environment.isTestEnvironment && !sandboxAllowed
        let started = starts.map { $0 <= now } ?? true
        let ended = end.map { now >= $0.date } ?? false
        let isActive = !blocked && started && !ended && (units ?? 1) > 0

        let reason: String
        if blocked {
            reason = sandboxGrantsNothing(entitlement)
        } else if let end, ended {
            let date = RFC3339.format(end.date)
            switch end.why {
            case .expired: reason = "\(entitlement) expired \(date) (transaction \(id))"
            case .revoked: reason = "\(entitlement) revoked by Apple \(date) (transaction \(id))"
            case .cancelled: reason = "\(entitlement) cancelled (refunded) \(date) (transaction \(id))"
            }
        } else if let starts, !started {
            reason = "\(entitlement) starts \(RFC3339.format(starts)) (transaction \(id))"
        } else if let units, units <= 0 {
            reason = "\(entitlement) via transaction \(id) grants nothing: quantity \(transaction.quantity)"
        } else {
            let ends = end.map { RFC3339.format($0.date) }
            switch type {
            case .autoRenewable where transaction.gracePeriodEnd != nil && ends != nil && flags.contains("billing grace period"):
                reason = "\(entitlement) via transaction \(id), auto-renewable, in Apple's billing grace period until \(ends ?? "")"
                    + (transaction.expiresDate.map { " (the paid period ended \(RFC3339.format($0)))" } ?? "")
            case .autoRenewable:
                reason = "\(entitlement) via transaction \(id), auto-renewable, " + (ends.map { "expires \($0)" } ?? "no expiry date")
            case .nonRenewing:
                reason = "\(entitlement) via transaction \(id), non-renewing, " + (ends.map { "expires \($0)" } ?? "until revoked")
            case .nonConsumable:
                reason = "\(entitlement) via transaction \(id), non-consumable" + (ends.map { ", ends \($0)" } ?? "")
            case .consumable:
                reason = "\(entitlement) via transaction \(id), consumable, \(unitCount(units ?? 0))"
            }
        }
        return DraftSource(
            entitlement: entitlement,
            source: EntitlementSource(kind: .purchase, transactionId: id, starts: starts, ends: end?.date, units: units,
                                      isActive: isActive, reason: reason, flags: flags),
            grantsNothing: blocked || (units ?? 1) <= 0)
    }

    private static func earliest(_ a: Date?, _ b: Date?) -> Date? {
        switch (a, b) {
        case let (a?, b?): return min(a, b)
        default: return a ?? b
        }
    }
}
