import Foundation

/// Folds the sources of one entitlement into its `EntitlementState`.
enum EntitlementSummary {
    static func state(name: String, sources unsorted: [EntitlementSource]) -> EntitlementState {
        let sources = unsorted.sorted(by: listedBefore)
        let active = sources.filter(\.isActive)
        let hasConsumables = sources.contains { $0.units != nil }
        let activeConsumables = active.filter { $0.units != nil }
        let balance: Int64? = hasConsumables
            ? activeConsumables.reduce(Int64(0)) { total, source in
                let (sum, overflow) = total.addingReportingOverflow(source.units ?? 0)
                return overflow ? Int64.max : sum
            }
            : nil

        let ends: Date?
        if active.isEmpty || active.contains(where: { $0.ends == nil }) {
            ends = nil
        } else {
            ends = active.compactMap(\.ends).max()
        }

        let reason: String
        let timeLimited = active.filter { $0.units == nil }
        if let longest = timeLimited.first(where: { $0.ends == nil })
            ?? timeLimited.max(by: { ($0.ends ?? .distantFuture) < ($1.ends ?? .distantFuture) }) {
            reason = longest.reason
        } else if !activeConsumables.isEmpty {
            let count = activeConsumables.count
            reason = "\(name): \(unitCount(balance ?? 0)) via \(count) consumable purchase\(count == 1 ? "" : "s")"
        } else {
            reason = sources.first?.reason ?? "\(name) not held"
        }
        return EntitlementState(name: name, isActive: !active.isEmpty, ends: ends, balance: balance,
                                reason: reason, sources: sources)
    }

    /// Active first, then newest first (no start date counts as oldest), then a fixed order.
    static func listedBefore(_ a: EntitlementSource, _ b: EntitlementSource) -> Bool {
        if a.isActive != b.isActive { return a.isActive }
        let aStart = a.starts ?? .distantPast, bStart = b.starts ?? .distantPast
        if aStart != bStart { return aStart > bStart }
        let aKind = rank(a.kind), bKind = rank(b.kind)
        if aKind != bKind { return aKind < bKind }
        if a.transactionId != b.transactionId { return (a.transactionId ?? "") < (b.transactionId ?? "") }
        return (a.grantId ?? 0) < (b.grantId ?? 0)
    }

    /// Purchases, then a legacy paid purchase, then manual grants (no array built per comparison:
    /// a sort calls this n log n times).
    private static func rank(_ kind: EntitlementSourceKind) -> Int {
        switch kind {
        case .purchase: return 0
        case .legacyPaid: return 1
        case .manual: return 2
        }
    }
}
