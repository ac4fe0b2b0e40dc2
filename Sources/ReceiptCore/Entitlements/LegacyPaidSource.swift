import Foundation

/// The paid-to-free rule applied to the app purchase: customers who bought the app while it was
/// paid keep `PaidToFreeRule.entitlement`, with no end.
///
/// The build rule grants when `original_application_version` < `beforeBuild` (numerically, part
/// by part); the date rule when `original_purchase_date` < `beforeDate`; either is enough, the
/// build rule is named first. Outside production the build "1.0" is the sandbox's constant and
/// is not trusted (flagged; the date rule may still grant). Facts from a sandbox receipt follow
/// the sandbox policy like purchases do.
///
/// A source is listed when the rule grants, or when it does not but something needs an
/// operator's eye (the sandbox constant, a build that is not numeric); a plain "bought after the
/// switch" produces no source.
enum LegacyPaidSource {
    static func make(rule: PaidToFreeRule?, facts: AppPurchaseFacts?, sandboxAllowed: Bool, now: Date) -> DraftSource? {
        guard let rule, let facts else { return nil }
        let entitlement = rule.entitlement
        var flags: [String] = []
        var grants: String?
        var notes: [String] = []

        if let beforeBuild = rule.beforeBuild {
            if let build = facts.originalAppVersion {
                if facts.environment != .production && build == "1.0" {
                    flags.append("sandbox constant 1.0 not trusted")
                    notes.append("original build 1.0 is the sandbox constant, not trusted")
                } else {
                    switch VersionNumber.compare(build, beforeBuild) {
                    case .orderedAscending?:
                        grants = "\(entitlement) via legacy paid purchase: original build \(build) < \(beforeBuild)"
                    case nil:
                        flags.append("original build not numeric")
                        notes.append("original build '\(build)' is not a build number")
                    case .orderedSame?, .orderedDescending?:
                        notes.append("original build \(build) is not before \(beforeBuild)")
                    }
                }
            } else {
                notes.append("no original build")
            }
        }
        if let beforeDate = rule.beforeDate, grants == nil {
            if let purchased = facts.originalPurchaseDate {
                if purchased < beforeDate {
                    grants = "\(entitlement) via legacy paid purchase: original purchase \(RFC3339.format(purchased)) before \(RFC3339.format(beforeDate))"
                } else {
                    notes.append("original purchase \(RFC3339.format(purchased)) is not before \(RFC3339.format(beforeDate))")
                }
            } else {
                notes.append("no original purchase date")
            }
        }
        guard grants != nil || !flags.isEmpty else { return nil }

        if facts.environment.isTestEnvironment { flags.append("sandbox") }
        if facts.environment == .unknown { flags.append("environment unknown") }
        let blocked = grants != nil && facts.environment.isTestEnvironment && !sandboxAllowed
        let starts = facts.originalPurchaseDate
        let started = starts.map { $0 <= now } ?? true
        let reason: String
        if let grants {
            if blocked {
                reason = sandboxGrantsNothing(entitlement)
            } else if let starts, !started {
                reason = "\(entitlement) legacy paid purchase starts \(RFC3339.format(starts))"
            } else {
                reason = grants
            }
        } else {
            reason = "\(entitlement) not via legacy paid purchase: " + notes.joined(separator: "; ")
        }
        return DraftSource(
            entitlement: entitlement,
            source: EntitlementSource(kind: .legacyPaid, starts: starts, ends: nil, isActive: grants != nil && !blocked && started,
                                      reason: reason, flags: flags),
            grantsNothing: blocked || grants == nil)
    }
}
