import Foundation

/// An entitlement an operator granted by hand ("goodwill after outage"), held in
/// [`starts`, `ends`) unless revoked.
public struct ManualGrant: Sendable, Equatable {
    /// The grant's number in the ledger ("manual grant #3").
    public var id: Int64
    public var entitlement: String
    public var starts: Date
    /// nil: forever.
    public var ends: Date?
    /// When an operator revoked the grant; it ends there.
    public var revokedAt: Date?
    /// Why it was granted, one line.
    public var reason: String
    /// The operator who granted it.
    public var grantedBy: String

    public init(id: Int64, entitlement: String, starts: Date, ends: Date?, revokedAt: Date? = nil,
                reason: String, grantedBy: String) {
        self.id = id
        self.entitlement = entitlement
        self.starts = starts
        self.ends = ends
        self.revokedAt = revokedAt
        self.reason = reason
        self.grantedBy = grantedBy
    }
}
