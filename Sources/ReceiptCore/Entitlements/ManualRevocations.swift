import Foundation

/// Applies operators' revocations: each purchase or legacy-paid source of the revoked
/// entitlement that started before the revocation (or has no start date) and was still running
/// then ends at the revocation. Revocations later than `now` do not apply yet; a purchase made
/// after a revocation counts again; manual grants are left alone.
enum ManualRevocations {
    static func apply(_ revocations: [ManualRevocation], to drafts: inout [DraftSource], now: Date) {
        let due = revocations.filter { $0.at <= now }.sorted { ($0.at, $0.id) < ($1.at, $1.id) }
        guard !due.isEmpty else { return }
        for index in drafts.indices where drafts[index].source.kind != .manual && !drafts[index].grantsNothing {
            let draft = drafts[index]
            // The earliest revocation that catches this source.
            let catching = due.first { revocation in
                revocation.entitlement == draft.entitlement
                    && (draft.source.starts.map { $0 < revocation.at } ?? true)
                    && (draft.source.ends.map { $0 > revocation.at } ?? true)
            }
            guard let revocation = catching else { continue }
            drafts[index].source.ends = revocation.at
            drafts[index].source.isActive = false
            drafts[index].source.flags.append("revoked by \(revocation.by)")
            drafts[index].source.reason =
                "\(draft.entitlement) revoked by \(revocation.by) on \(RFC3339.format(revocation.at)): \(revocation.reason)"
        }
    }
}
