import Foundation

/// That the merchant told Apple it finished processing a transaction (Finish Transaction), when
/// first, and how many times it was told. Saved as JSON:
///
///     {"transactionId":"2000000100000001","environment":"Sandbox","finishedDate":1700000000000,
///      "requests":2,"lastRequestDate":1700000500000}
public struct TransactionFinish: Codable, Sendable, Equatable {
    /// The transaction finished.
    public var transactionId: String
    /// Where it was finished.
    public var environment: SimulatorEnvironment
    /// When the first Finish Transaction arrived (a repeat does not move it).
    public var finishedDate: Date
    /// How many Finish Transaction requests it got (each answered 200).
    public var requests: Int64
    /// When the latest one arrived.
    public var lastRequestDate: Date

    public init(transactionId: String, environment: SimulatorEnvironment, finishedDate: Date, requests: Int64, lastRequestDate: Date) {
        self.transactionId = transactionId
        self.environment = environment
        self.finishedDate = finishedDate
        self.requests = requests
        self.lastRequestDate = lastRequestDate
    }
}

extension SimulatorState {
    /// How `transactionId` was finished; nil when nobody has finished it.
    public func finish(transactionId: String) -> TransactionFinish? {
        withRecords { $0.finishedTransactions[transactionId] }
    }
}
