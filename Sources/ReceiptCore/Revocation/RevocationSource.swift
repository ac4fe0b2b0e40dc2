import Foundation

/// Where a synchronous caller (an import, a notification, a served request) gets the revocation
/// status of a verified chain: the network layer implements it (AppStoreAPI's
/// `BlockingRevocationSource`), ReceiptCore only asks. A source answers for `targets` as of the
/// moment it asks (its own clock: revocation is about the real present, not a ledger's injected
/// time) and never fails open: what it cannot learn it reports as `.notChecked` with the reason.
public protocol RevocationSource: Sendable {
    /// How a status changes a verdict (`Verdict.applying(_:mode:)`).
    var mode: RevocationPolicy.Mode { get }
    /// The combined status of `targets` now.
    func status(of targets: [RevocationTarget]) -> RevocationStatus
}

extension ReceiptVerifier {
    /// `verify(artefact)` with the revocation status of its chain folded in under the source's
    /// mode; without a source (or with mode `.off`), exactly `verify(artefact)`. A verdict that is
    /// already not valid is not asked about (nothing to check) and keeps its status.
    public func verify(_ artefact: DecodedArtefact, revocation source: (any RevocationSource)?) -> Verdict {
        let verdict = verify(artefact)
        guard let source, source.mode != .off else { return verdict }
        guard verdict.isValid else { return verdict }
        let status: RevocationStatus
        switch revocationTargets(of: artefact) {
        case .failure(let unavailable): status = RevocationStatus(.notChecked(why: unavailable.reason))
        case .success(let targets): status = source.status(of: targets)
        }
        return verdict.applying(status, mode: source.mode)
    }
}
