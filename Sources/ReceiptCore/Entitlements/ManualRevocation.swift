import Foundation

/// An operator revoked an entitlement that purchases (or the paid-to-free rule) gave: every
/// purchase and legacy-paid source of `entitlement` that started before `at` ends at `at`.
/// Purchases made after `at` count again; manual grants are not touched (they are revoked on
/// their own, `ManualGrant.revokedAt`).
public struct ManualRevocation: Sendable, Equatable {
    /// The revocation's number in the ledger.
    public var id: Int64
    public var entitlement: String
    public var at: Date
    /// Why, one line.
    public var reason: String
    /// The operator who revoked.
    public var by: String

    public init(id: Int64, entitlement: String, at: Date, reason: String, by: String) {
        self.id = id
        self.entitlement = entitlement
        self.at = at
        self.reason = reason
        self.by = by
    }
}
