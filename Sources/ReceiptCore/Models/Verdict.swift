import Foundation

/// What verification concluded about an artefact, with the chain it saw.
public struct Verdict: Sendable, Equatable {
    /// The outcome.
    public enum Status: String, Sendable {
        /// Signature and chain check out under Apple's policy (or a named extra anchor).
        case valid
        /// Something is wrong: tampered content, a chain that does not lead to a trusted root,
        /// a chain without Apple's markers, a device hash that does not match.
        case invalid
        /// The artefact carries no signature at all.
        case unsigned
        /// The artefact is signed, but by nothing that can be checked (Xcode, LocalTesting).
        case unverifiable
    }

    public let status: Status
    /// One line saying why.
    public let reason: String
    /// Subject common names of the chain, leaf first.
    public let chain: [String]
    /// The time the chain was validated at (the artefact's own time).
    public let validationTime: Date?
    /// The name of the trust anchor when it is not one of Apple's bundled roots.
    public let extraAnchor: String?
    /// Whether the chain was checked for revocation, when, by whom and with what outcome; nil when
    /// nobody asked (the same as off: verification itself is offline).
    public let revocation: RevocationStatus?

    public init(_ status: Status, _ reason: String, chain: [String] = [], validationTime: Date? = nil, extraAnchor: String? = nil,
                revocation: RevocationStatus? = nil) {
        self.status = status
        self.reason = reason
        self.chain = chain
        self.validationTime = validationTime
        self.extraAnchor = extraAnchor
        self.revocation = revocation
    }

    public var isValid: Bool { status == .valid }
}
