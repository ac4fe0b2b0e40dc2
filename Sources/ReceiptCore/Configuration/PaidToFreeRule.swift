import Foundation

/// The "paid app turned freemium" rule: customers who bought the app before it became free keep
/// an entitlement.
///
/// ```json
/// "paidToFree": { "entitlement": "pro", "beforeBuild": "42", "beforeDate": "2020-01-01T00:00:00Z" }
/// ```
/// At least one of `beforeBuild` and `beforeDate` is required in the config; either one holding
/// is enough to grant.
public struct PaidToFreeRule: Sendable, Equatable {
    /// The entitlement legacy customers keep.
    public var entitlement: String
    /// Grant when `original_application_version` < this build, compared numerically part by part
    /// (`VersionNumber.compare`). The sandbox's constant "1.0" is never trusted.
    public var beforeBuild: String?
    /// Or grant when `original_purchase_date` < this instant.
    public var beforeDate: Date?

    public init(entitlement: String, beforeBuild: String?, beforeDate: Date?) {
        self.entitlement = entitlement
        self.beforeBuild = beforeBuild
        self.beforeDate = beforeDate
    }
}
