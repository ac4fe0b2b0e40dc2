import Foundation

/// What one OCSP answer, once believed, says about one certificate.
public enum RevocationOutcome: Sendable, Equatable {
    /// The responder vouches the certificate is not revoked between `thisUpdate` and `nextUpdate`
    /// (nil: the responder gave no end, the answer is as fresh as `thisUpdate` only).
    case good(thisUpdate: Date, nextUpdate: Date?, responder: String)
    /// The responder says the certificate was revoked at `at`, for `reason` (RFC 5280 CRLReason
    /// as OpenSSL names it, "unspecified" when the answer gives none).
    case revoked(at: Date, reason: String, responder: String)
    /// Nothing believable was learnt: the answer was missing, malformed, not for this
    /// certificate, not signed by the issuer (or a responder it delegated to), stale, or the
    /// responder itself answered "unknown". `why` says which.
    case unknown(why: String)

    /// A short phrase: "good", "revoked at 2026-…: keyCompromise", "unknown: …".
    public var phrase: String {
        switch self {
        case .good: return "good"
        case .revoked(let at, let reason, _): return "revoked at \(RFC3339.format(at)) (\(reason))"
        case .unknown(let why): return "unknown: \(why)"
        }
    }
}
