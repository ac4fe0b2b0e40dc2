import Foundation

/// What a verdict says about revocation: whether the chain was checked, when, by whom, and what
/// was learnt. Made by the network layer (a revocation checker), folded into a verdict by
/// `Verdict.applying(_:mode:)`; ReceiptCore itself never asks anyone.
public struct RevocationStatus: Sendable, Equatable {
    /// The outcome for the chain as a whole.
    public enum State: Sendable, Equatable {
        /// No check was made because revocation checking is off.
        case off
        /// Every certificate checked was vouched good.
        case good
        /// `certificate` was revoked at `at` for `reason`.
        case revoked(certificate: String, at: Date, reason: String)
        /// At least one certificate could not be checked; `why` names it and the cause.
        case notChecked(why: String)
    }

    /// The outcome.
    public let state: State
    /// When the answers were obtained (the oldest, when some came from the cache); nil when off.
    public let checkedAt: Date?
    /// The responder asked (its URL), when one answered.
    public let responder: String?
    /// The earliest nextUpdate of the answers believed: until then the check stands.
    public let validUntil: Date?

    /// A status.
    public init(_ state: State, checkedAt: Date? = nil, responder: String? = nil, validUntil: Date? = nil) {
        self.state = state
        self.checkedAt = checkedAt
        self.responder = responder
        self.validUntil = validUntil
    }

    /// Revocation checking is off.
    public static let off = RevocationStatus(.off)

    /// Whether the chain was checked and found good.
    public var isCheckedGood: Bool { state == .good }

    /// One line: "revocation: checked 2026-12-03T09:00:00Z by http://…: good",
    /// "revocation: not checked (off)", "revocation: could not be checked: …".
    public var summary: String {
        let by = responder.map { " by \($0)" } ?? ""
        let at = checkedAt.map { " \(RFC3339.format($0))" } ?? ""
        switch state {
        case .off: return "revocation: not checked (off)"
        case .good:
            let until = validUntil.map { " (answer valid until \(RFC3339.format($0)))" } ?? ""
            return "revocation: checked\(at)\(by): good\(until)"
        case .revoked(let certificate, let when, let reason):
            return "revocation: checked\(at)\(by): \(certificate) REVOKED at \(RFC3339.format(when)) (\(reason))"
        case .notChecked(let why): return "revocation: could not be checked: \(why)"
        }
    }
}
