import Foundation

/// One renewal-date extension Apple granted a subscription (Extend a Subscription Renewal Date,
/// or one subscription of a mass extension). Saved as JSON:
///
///     {"originalTransactionId":"2000000100000001","webOrderLineItemId":"2000000000000001",
///      "date":1700000000000,"days":30,"reasonCode":1,"requestIdentifier":"…uuid…",
///      "effectiveDate":1702592000000}
public struct SubscriptionExtension: Codable, Sendable, Equatable {
    /// The subscription extended.
    public var originalTransactionId: String
    /// The line item whose period moved.
    public var webOrderLineItemId: String?
    /// When Apple extended it.
    public var date: Date
    /// Days added (1…90).
    public var days: Int64
    /// 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue or outage.
    public var reasonCode: Int64
    /// The merchant's UUID for the request (mass extensions: the mass request's).
    public var requestIdentifier: String
    /// The new expiry date.
    public var effectiveDate: Date
}

/// A mass extension request (Extend Subscription Renewal Dates for All Active Subscribers) and
/// how far Apple has got with it. Completion is deterministic: it completes on the
/// `SimulatorState.massExtensionStatusPolls`-th status request. Saved as JSON.
public struct MassExtensionRequest: Codable, Sendable, Equatable {
    /// The merchant's UUID for the request.
    public var requestIdentifier: String
    /// Where it was asked.
    public var environment: SimulatorEnvironment
    /// The product whose active subscriptions are extended.
    public var productId: String
    /// Only subscribers of these storefronts (ISO 3166-1 alpha-3), nil: all.
    public var storefrontCountryCodes: [String]?
    /// Days added (1…90).
    public var days: Int64
    /// 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue or outage.
    public var reasonCode: Int64
    /// When the request arrived.
    public var requestDate: Date
    /// Status requests answered so far.
    public var statusPolls: Int
    /// When it completed; nil while in progress.
    public var completeDate: Date?
    /// Subscriptions extended (final once complete).
    public var succeededCount: Int64
    /// Subscriptions that could not be extended (final once complete).
    public var failedCount: Int64
}
