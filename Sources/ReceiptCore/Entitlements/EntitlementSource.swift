import Foundation

/// What gave an entitlement.
public enum EntitlementSourceKind: String, Sendable {
    /// A transaction, through the catalogue.
    case purchase
    /// An operator's grant.
    case manual
    /// The paid-to-free rule.
    case legacyPaid = "legacy-paid"
}

/// One reason a customer holds, or once held, an entitlement: a purchase, a manual grant or the
/// paid-to-free rule, with its interval, whether it holds at `now`, and why in one line
/// ("pro via transaction 1000000359369424, auto-renewable, expires 2026-12-01T00:00:00Z",
/// "pro expired 2025-01-01T00:00:00Z (transaction 1000000359369424)").
public struct EntitlementSource: Sendable, Equatable {
    public var kind: EntitlementSourceKind
    /// For purchases.
    public var transactionId: String?
    /// For manual grants.
    public var grantId: Int64?
    /// When it started; nil when the artefact gave no date.
    public var starts: Date?
    /// When it ends (expiry, duration, revocation, cancellation, an operator's revocation);
    /// nil: no end.
    public var ends: Date?
    /// Consumables: quantity × units; nil for every other kind of product.
    public var units: Int64?
    /// Whether it holds at `now`.
    public var isActive: Bool
    /// Why it holds or does not, one line.
    public var reason: String
    /// Warnings for the operator: "sandbox", "not in catalogue", "sandbox constant 1.0 not trusted",
    /// "revoked by <operator>", "revoked by operator", "no expiry date", "no duration in catalogue",
    /// "no purchase date", "environment unknown", "quantity <n>", "original build not numeric".
    public var flags: [String]

    public init(kind: EntitlementSourceKind, transactionId: String? = nil, grantId: Int64? = nil, starts: Date?,
                ends: Date?, units: Int64? = nil, isActive: Bool, reason: String, flags: [String] = []) {
        self.kind = kind
        self.transactionId = transactionId
        self.grantId = grantId
        self.starts = starts
        self.ends = ends
        self.units = units
        self.isActive = isActive
        self.reason = reason
        self.flags = flags
    }
}
