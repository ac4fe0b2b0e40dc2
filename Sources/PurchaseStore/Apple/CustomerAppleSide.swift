import Foundation

/// Apple's side of one customer: their subscriptions as Apple last reported them, what Apple said
/// happened (the timeline's events), refund requests and renewal extensions.
public struct CustomerAppleSide: Sendable {
    public let states: [SubscriptionState]
    public let events: [SubscriptionEvent]
    public let refundRequests: [RefundRequest]
    public let extensions: [(original: String, days: Int64, requestedAt: Date?, outcome: String, by: String)]

    /// Whether Apple has told anything about this customer.
    public var isEmpty: Bool { states.isEmpty && events.isEmpty && refundRequests.isEmpty && extensions.isEmpty }
}

extension PurchaseLedger {
    /// Everything Apple's side holds for `customerId` (the newest `eventLimit` events).
    public func appleSide(of customerId: String, eventLimit: Int = 200) throws -> CustomerAppleSide {
        CustomerAppleSide(states: try subscriptionStates(of: customerId), events: try subscriptionEvents(of: customerId, limit: eventLimit),
                          refundRequests: try refundRequests(all: true, customerId: customerId),
                          extensions: try renewalExtensions(of: customerId))
    }
}
