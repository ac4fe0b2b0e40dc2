import Foundation

/// Manual grants as sources: held in [`starts`, `ends`), cut short at `revokedAt` once that has
/// come. The sandbox policy and manual revocations do not touch them.
enum ManualGrantSources {
    static func make(_ grants: [ManualGrant], now: Date) -> [DraftSource] {
        grants.map { source(for: $0, now: now) }
    }

    static func source(for grant: ManualGrant, now: Date) -> DraftSource {
        let name = grant.entitlement
        var ends = grant.ends
        var flags: [String] = []
        if let revokedAt = grant.revokedAt {
            ends = ends.map { min($0, revokedAt) } ?? revokedAt
            if revokedAt <= now { flags.append("revoked by operator") }
        }
        let started = grant.starts <= now
        let ended = ends.map { now >= $0 } ?? false
        let reason: String
        if let revokedAt = grant.revokedAt, revokedAt <= now, ends == revokedAt {
            reason = "\(name) manual grant #\(grant.id) revoked \(RFC3339.format(revokedAt))"
        } else if let ends, ended {
            reason = "\(name) manual grant #\(grant.id) ended \(RFC3339.format(ends))"
        } else if !started {
            reason = "\(name) manual grant #\(grant.id) starts \(RFC3339.format(grant.starts))"
        } else {
            let until = ends.map { "until \(RFC3339.format($0))" } ?? "forever"
            reason = "\(name) via manual grant #\(grant.id) by \(grant.grantedBy) \(until): \(grant.reason)"
        }
        return DraftSource(
            entitlement: name,
            source: EntitlementSource(kind: .manual, grantId: grant.id, starts: grant.starts, ends: ends,
                                      isActive: started && !ended, reason: reason, flags: flags),
            grantsNothing: false)
    }
}
