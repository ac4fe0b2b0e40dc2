import Foundation

/// Turns transactions into sources through the catalogue.
enum PurchaseSources {
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
            merged[at].revocationTypeRaw = merged[at].revocationTypeRaw ?? transaction.revocationTypeRaw
            merged[at].revocationPercentage = merged[at].revocationPercentage ?? transaction.revocationPercentage
            merged[at].ownershipType = merged[at].ownershipType ?? transaction.ownershipType
            merged[at].isUpgraded = merged[at].isUpgraded || transaction.isUpgraded
        }
        let copies = EntitlementChanges.familyCopiesOfOwnPurchases(merged)
        return merged.map { transaction in
            var draft = source(for: transaction, configuration: configuration, sandboxAllowed: sandboxAllowed, now: now,
                               upgrade: transaction.isUpgraded ? EntitlementChanges.upgrade(of: transaction, among: merged) : nil)
            if copies.contains(transaction.transactionId) {
                // The customer bought this original themselves: their own purchase counts, once.
                draft.grantsNothing = true
                draft.source.isActive = false
                draft.source.units = draft.source.units.map { _ in 0 }
                draft.source.reason = "\(draft.entitlement) via transaction \(transaction.transactionId) grants nothing of its own: a family-shared copy of original \(transaction.originalTransactionId ?? "?"), which this customer bought themselves (counted once)"
            }
            return draft
        }
    }

    static func source(for transaction: OwnedTransaction, configuration: StoreConfiguration,
                       sandboxAllowed: Bool, now: Date, upgrade: (product: String, at: Date?)? = nil) -> DraftSource {
        typealias Ending = EntitlementChanges.Ending
        let product = configuration.products[transaction.productId]
        let entitlement = product?.entitlement ?? transaction.productId
        let type = product?.type ?? transaction.productType ?? .nonConsumable
        let id = transaction.transactionId
        var flags: [String] = []
        if product == nil { flags.append("not in catalogue") }
        if transaction.environment.isTestEnvironment { flags.append("sandbox") }
        if transaction.environment == .unknown { flags.append("environment unknown") }
        if transaction.isFamilyShared { flags.append("family shared") }
        let revocationType = transaction.revocationTypeRaw.flatMap(RevocationType.init(rawValue:))
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
        // Apple's revocation: a prorated refund of a period keeps its unrefunded part (see
        // `EntitlementChanges`); an upgrade ends the period at the upgrade.
        var revocation: (Date?, Ending) = (transaction.revocationDate, .revoked(revocationType))
        var keptShare: Int64?
        if transaction.isUpgraded {
            let at = transaction.revocationDate ?? transaction.cancellationDate ?? upgrade?.at
            revocation = (at, .upgraded(to: upgrade?.product))
            flags.append("upgraded")
        } else if transaction.revocationDate != nil || transaction.cancellationDate != nil, revocationType == .refundProrated {
            if let share = transaction.revocationPercentage {
                flags.append("prorated refund \(RevocationPercentage.format(share))")
                if type == .consumable {
                    keptShare = share
                    revocation = (nil, .revoked(revocationType))
                } else if type != .nonConsumable, let starts, let natural = naturalEnd {
                    revocation = (EntitlementChanges.keptEnd(start: starts, end: natural, percentage: share),
                                  .prorated(percentage: share, refundedAt: transaction.revocationDate ?? transaction.cancellationDate))
                }
            } else {
                flags.append("prorated refund without a percentage: treated as full")
            }
        }
        let cancellation: (Date?, Ending) = transaction.isUpgraded || keptShare != nil || revocationType == .refundProrated
            ? (nil, .cancelled) : (transaction.cancellationDate, .cancelled)
        if revocationType == .refundProrated, keptShare == nil, transaction.revocationDate == nil, case .revoked = revocation.1 {
            revocation = (transaction.cancellationDate, .revoked(revocationType))  // treated as full
        }
        let endings: [(Date?, Ending)] = [revocation, cancellation, (naturalEnd, .expired)]
        var end: (date: Date, why: Ending)?
        for case let (date?, why) in endings where end.map({ date < $0.date }) ?? true {
            end = (date, why)
        }

        var units: Int64?
        if type == .consumable {
            let perQuantity = product?.units ?? 1
            let (product, overflow) = max(transaction.quantity, 0).multipliedReportingOverflow(by: perQuantity)
            units = overflow ? Int64.max : product
            if let keptShare, let all = units {
                // ⌊(100000 − p) × units / 100000⌋, in integers that cannot overflow.
                let whole = RevocationPercentage.whole
                let keep = whole - min(max(keptShare, 0), whole)
                units = all / whole * keep + (all % whole) * keep / whole
            }
            if transaction.quantity <= 0 { flags.append("quantity \(transaction.quantity)") }
        }

        let blocked = transaction.environment.isTestEnvironment && !sandboxAllowed
        let started = starts.map { $0 <= now } ?? true
        let ended = end.map { now >= $0.date } ?? false
        let isActive = !blocked && started && !ended && (units ?? 1) > 0

        var reason: String
        if blocked {
            reason = sandboxGrantsNothing(entitlement)
        } else if let end, ended {
            let date = RFC3339.format(end.date)
            switch end.why {
            case .expired: reason = "\(entitlement) expired \(date) (transaction \(id))"
            case .revoked(let kind):
                reason = EntitlementChanges.revokedReason(entitlement, kind, raw: transaction.revocationTypeRaw,
                                                          percentage: transaction.revocationPercentage, date: date, id: id)
            case .cancelled: reason = "\(entitlement) cancelled (refunded) \(date) (transaction \(id))"
            case .prorated(let share, let refundedAt):
                reason = "\(entitlement) ended \(date): prorated refund \(RevocationPercentage.format(share))"
                    + (refundedAt.map { " on \(RFC3339.format($0))" } ?? "")
                    + " kept the unrefunded \(RevocationPercentage.format(RevocationPercentage.whole - min(max(share, 0), RevocationPercentage.whole))) of the period (transaction \(id))"
            case .upgraded(let product):
                reason = "\(entitlement) upgraded to \(product ?? "another product of the group") on \(date) (transaction \(id))"
            }
        } else if let starts, !started {
            reason = "\(entitlement) starts \(RFC3339.format(starts)) (transaction \(id))"
        } else if let units, units <= 0 {
            reason = keptShare.map { "\(entitlement) via transaction \(id) grants nothing: prorated refund \(RevocationPercentage.format($0)) left no unit" }
                ?? "\(entitlement) via transaction \(id) grants nothing: quantity \(transaction.quantity)"
        } else if let end, case .prorated(let share, _) = end.why {
            reason = "\(entitlement) via transaction \(id), \(type.rawValue), until \(RFC3339.format(end.date)): prorated refund \(RevocationPercentage.format(share)) keeps the unrefunded part of the period"
        } else if let end, case .upgraded(let product) = end.why {
            reason = "\(entitlement) via transaction \(id), \(type.rawValue), until \(RFC3339.format(end.date)), upgraded to \(product ?? "another product of the group")"
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
                    + (keptShare.map { " kept after a prorated refund of \(RevocationPercentage.format($0))" } ?? "")
            }
            if transaction.isFamilyShared { reason += " (family shared)" }
        }
        return DraftSource(
            entitlement: entitlement,
            source: EntitlementSource(kind: .purchase, transactionId: id, starts: starts, ends: end?.date, units: units,
                                      isActive: isActive, reason: reason, flags: flags),
            grantsNothing: blocked || ((units ?? 1) <= 0 && keptShare == nil))
    }

    private static func earliest(_ a: Date?, _ b: Date?) -> Date? {
        switch (a, b) {
        case let (a?, b?): return min(a, b)
        default: return a ?? b
        }
    }
}
