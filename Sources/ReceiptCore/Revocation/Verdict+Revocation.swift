import Foundation

extension Verdict {
    /// This verdict with the revocation status folded in under `mode`:
    /// - a revoked certificate makes a valid verdict invalid, saying which and why;
    /// - a status that is not `.good` under `.require` makes a valid verdict unverifiable;
    /// - under `.prefer` a valid verdict stays valid, and its revocation status says, loudly,
    ///   that it was not checked; never valid-as-checked.
    /// A verdict that is not valid keeps its status and reason; the status is attached either way.
    public func applying(_ revocation: RevocationStatus, mode: RevocationPolicy.Mode) -> Verdict {
        func with(_ status: Status, _ reason: String) -> Verdict {
            Verdict(status, reason, chain: chain, validationTime: validationTime, extraAnchor: extraAnchor, revocation: revocation)
        }
        guard status == .valid else { return with(status, reason) }
        switch revocation.state {
        case .revoked(let certificate, let at, let why):
            return with(.invalid, "certificate \(certificate) was revoked at \(RFC3339.format(at)) (\(why)); \(reason)")
        case .notChecked(let why) where mode == .require:
            return with(.unverifiable, "revocation is required but could not be checked: \(why); \(reason)")
        case .off where mode == .require:
            return with(.unverifiable, "revocation is required but was not checked; \(reason)")
        default:
            return with(.valid, reason)
        }
    }

    /// The one line on revocation a display shows: `revocation.summary`, or "revocation: not
    /// checked (off)" when no status was attached.
    public var revocationLine: String { (revocation ?? .off).summary }
}
