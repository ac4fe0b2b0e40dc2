import Foundation

/// Whether, and how strictly, the chain of an artefact is checked for revocation: the
/// `appStore.revocation` config, a string or an object:
///
/// ```json
/// "revocation": "prefer"
/// "revocation": {"mode": "require", "responderURL": "http://127.0.0.1:8123/ocsp", "timeoutSeconds": 5}
/// ```
public struct RevocationPolicy: Sendable, Equatable {
    /// How an outcome changes the verdict.
    public enum Mode: String, Sendable, CaseIterable {
        /// No check, no request (the default): the verdict says "not checked (off)".
        case off
        /// Check; a certificate that could not be checked leaves the verdict valid but says, loudly,
        /// that revocation was not checked and why.
        case prefer
        /// Check; a certificate that could not be checked makes the artefact unverifiable.
        case require
    }

    /// The mode.
    public var mode: Mode
    /// Asks this responder for every certificate instead of the one its Authority Information
    /// Access extension names (plain http is fine: OCSP answers are signed).
    public var responderURL: URL?
    /// Per-request timeout, 1–30 s.
    public var timeoutSeconds: Double

    /// A policy; `.off` by default.
    public init(mode: Mode = .off, responderURL: URL? = nil, timeoutSeconds: Double = 5) {
        self.mode = mode
        self.responderURL = responderURL
        self.timeoutSeconds = timeoutSeconds
    }

    /// No check at all.
    public static let off = RevocationPolicy()
}
