import Foundation

/// What a merchant sent with Send Consumption Information for a transaction, and when. The
/// simulator keeps every one, oldest first (`SimulatorState.consumptionRecords(transactionId:)`).
/// Field meanings follow Apple's ConsumptionRequest:
///
///     {"customerConsented":true,"consumptionStatus":1,"platform":1,"sampleContentProvided":false,
///      "deliveryStatus":0,"appAccountToken":"","accountTenure":3,"playTime":2,
///      "lifetimeDollarsRefunded":0,"lifetimeDollarsPurchased":2,"userStatus":1,"refundPreference":2}
public struct ConsumptionRecord: Codable, Sendable, Equatable {
    /// The transaction the refund request is about.
    public var transactionId: String
    /// Where it was sent.
    public var environment: SimulatorEnvironment
    /// When the simulator received it.
    public var receivedDate: Date
    /// Whether the customer consented to sharing the data (must be true).
    public var customerConsented: Bool
    /// 0 undeclared, 1 not consumed, 2 partially, 3 fully consumed.
    public var consumptionStatus: Int64
    /// 0 undeclared, 1 Apple platform, 2 other.
    public var platform: Int64
    /// Whether a free sample or trial was provided.
    public var sampleContentProvided: Bool
    /// 0 delivered and working, 1–5 a delivery problem.
    public var deliveryStatus: Int64
    /// The customer's UUID in the merchant's system, or "" when there is none.
    public var appAccountToken: String
    /// 0…7: how long the customer has had an account.
    public var accountTenure: Int64
    /// 0…7: how much the customer used the app.
    public var playTime: Int64
    /// 0…7: lifetime refunds, in bands of US dollars.
    public var lifetimeDollarsRefunded: Int64
    /// 0…7: lifetime purchases, in bands of US dollars.
    public var lifetimeDollarsPurchased: Int64
    /// 0 undeclared, 1 active, 2 suspended, 3 terminated, 4 limited access.
    public var userStatus: Int64
    /// 0 undeclared, 1 grant, 2 decline, 3 no preference.
    public var refundPreference: Int64?
    /// Which Send Consumption Information it came through: 2, or nil for version 1 (state files
    /// from before version 2 have none).
    public var version: Int64?
    /// Version 2: the consumed share in milliunits of a percent (0…100000), when sent.
    public var consumptionPercentage: Int64?
    /// Version 2: `deliveryStatus` and `refundPreference` as Apple names them (version 1's
    /// numeric fields are then 0).
    public var deliveryStatusName: String?
    public var refundPreferenceName: String?
}
