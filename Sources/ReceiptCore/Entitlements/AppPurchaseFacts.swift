import Foundation

/// What the customer's newest valid app receipt (or StoreKit 2 app transaction) says about the
/// app purchase itself: the input of the paid-to-free rule.
public struct AppPurchaseFacts: Sendable, Equatable {
    /// `original_application_version` (field 19): the build first bought or downloaded; always
    /// "1.0" in the sandbox.
    public var originalAppVersion: String?
    /// `original_purchase_date` (field 18).
    public var originalPurchaseDate: Date?
    /// The environment of the receipt these facts come from.
    public var environment: Environment

    public init(originalAppVersion: String?, originalPurchaseDate: Date?, environment: Environment) {
        self.originalAppVersion = originalAppVersion
        self.originalPurchaseDate = originalPurchaseDate
        self.environment = environment
    }
}
