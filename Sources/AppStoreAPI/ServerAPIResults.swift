import Foundation
import ReceiptCore

/// Get Transaction Info's answer, verified:
///
///     {"signedTransactionInfo":"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlF…"}
public struct ServerAPITransactionInfo: Sendable {
    /// The transaction, verified.
    public let transaction: VerifiedTransaction
    /// The environment whose endpoint answered.
    public let environment: Environment
    /// Every attempt, oldest first.
    public let attempts: [AppStoreAttempt]
}

/// Every page of Get Transaction History (v2) or Get Refund History (v2), verified:
///
///     {"revision":"1733849340000_2000000000000003","hasMore":true,"bundleId":"com.example.game",
///      "appAppleId":1234567890,"environment":"Sandbox","signedTransactions":["eyJ…","eyJ…"]}
///
/// (refund history: `{"signedTransactions":[…],"revision":"…","hasMore":false}`). Signed
/// transactions that do not verify are in `rejected`, never in `transactions`.
public struct ServerAPITransactionList: Sendable {
    /// The transactions that verified, in Apple's order across pages.
    public let transactions: [VerifiedTransaction]
    /// The signed transactions refused, with why.
    public let rejected: [RejectedSignedData]
    /// The environment whose endpoint answered.
    public let environment: Environment
    /// How many pages were read.
    public let pages: Int
    /// The last page's `revision` (to ask later for what is new).
    public let revision: String?
    /// Every attempt, oldest first.
    public let attempts: [AppStoreAttempt]

    /// Whether every signed transaction verified.
    public var isFullyVerified: Bool { rejected.isEmpty }
}

/// Look Up Order ID's answer, verified:
///
///     {"status":0,"signedTransactions":["eyJ…"]}
///
/// `status` 0 is a valid order id, 1 an invalid one (then there are no transactions).
public struct ServerAPIOrderLookup: Sendable {
    /// Apple's `status`: 0 valid, 1 invalid.
    public let orderStatus: Int64
    /// The order's transactions that verified.
    public let transactions: [VerifiedTransaction]
    /// The signed transactions refused, with why.
    public let rejected: [RejectedSignedData]
    /// The environment whose endpoint answered.
    public let environment: Environment
    /// Every attempt, oldest first.
    public let attempts: [AppStoreAttempt]

    /// Whether Apple knows the order id.
    public var isValidOrder: Bool { orderStatus == 0 }
}

/// Get All Subscription Statuses' answer, verified:
///
///     {"environment":"Sandbox","bundleId":"com.example.game","appAppleId":1234567890,
///      "data":[{"subscriptionGroupIdentifier":"21752814","lastTransactions":[
///        {"originalTransactionId":"2000000000000001","status":1,
///         "signedTransactionInfo":"eyJ…","signedRenewalInfo":"eyJ…"}]}]}
///
/// A last transaction whose transaction or renewal info does not verify is left out of its group
/// and reported in `rejected`.
public struct ServerAPISubscriptionStatuses: Sendable {
    /// One entry per subscription group.
    public let groups: [SubscriptionGroupStatus]
    /// The signed data refused, with why.
    public let rejected: [RejectedSignedData]
    /// The environment whose endpoint answered.
    public let environment: Environment
    /// Every attempt, oldest first.
    public let attempts: [AppStoreAttempt]

    /// Whether every signed transaction and renewal info verified.
    public var isFullyVerified: Bool { rejected.isEmpty }
}

/// One subscription group of `ServerAPISubscriptionStatuses`.
public struct SubscriptionGroupStatus: Sendable {
    /// The group's identifier.
    public let subscriptionGroupIdentifier: String?
    /// The latest transaction of each subscription in the group that verified.
    public let lastTransactions: [SubscriptionLastTransaction]
}

/// The latest transaction of one subscription and its renewal info.
public struct SubscriptionLastTransaction: Sendable {
    /// The subscription's original transaction id.
    public let originalTransactionId: String?
    /// Apple's status: 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked.
    public let status: Int64?
    /// The latest transaction, verified.
    public let transaction: VerifiedTransaction
    /// Its renewal info, verified, when Apple sent one.
    public let renewalInfo: VerifiedRenewalInfo?

    /// `status` in words.
    public var statusName: String { SubscriptionLastTransaction.statusName(status) }

    /// Apple's subscription status in words.
    public static func statusName(_ status: Int64?) -> String {
        switch status {
        case 1: return "active"
        case 2: return "expired"
        case 3: return "in billing retry"
        case 4: return "in billing grace period"
        case 5: return "revoked"
        case let other?: return "unknown status \(other)"
        case nil: return "no status"
        }
    }
}

/// Reading the Server API's answer bodies.
enum ServerAPIAnswer {
    /// The most signed items accepted in one answer.
    static let maxItems = 1000

    static func object(_ body: [UInt8], _ what: String) throws -> JSONObject {
        do {
            return try JSONObject(parsing: body, what: what)
        } catch {
            throw AppStoreError(.badResponse, "\(what): \(AttemptLoop.describe(error))", httpStatus: 200)
        }
    }

    /// The string array `key` (absent: empty).
    static func strings(_ object: JSONObject, _ key: String) throws -> [String] {
        guard let raw = object.values[key], !(raw is NSNull) else { return [] }
        guard let array = raw as? [Any] else {
            throw AppStoreError(.badResponse, "\(object.what): `\(key)` is not an array", httpStatus: 200)
        }
        guard array.count <= maxItems else {
            throw AppStoreError(.badResponse, "\(object.what): `\(key)` has \(array.count) entries, more than the \(maxItems) accepted", httpStatus: 200)
        }
        return try array.enumerated().map { index, element in
            guard let text = element as? String else {
                throw AppStoreError(.badResponse, "\(object.what): `\(key)[\(index)]` is not a string", httpStatus: 200)
            }
            return text
        }
    }

    /// A member read through `JSONObject`'s typed accessors, its `ReceiptError` as `.badResponse`.
    static func field<T>(_ read: () throws -> T) throws -> T {
        do {
            return try read()
        } catch let error as ReceiptError {
            throw AppStoreError(.badResponse, error.reason, httpStatus: 200)
        }
    }

    /// `{"errorCode":4040010,"errorMessage":"Transaction id not found."}` → code and message.
    static func error(_ body: [UInt8]) -> (AppStoreAPIErrorCode?, String?) {
        // A body that is not Apple's error JSON simply carries no code: the HTTP status decides.
        guard !body.isEmpty, body.count <= 64 * 1024, let object = try? JSONObject(parsing: body, what: "error answer"),
              let code = try? object.int("errorCode") else { return (nil, nil) }
        let message = (try? object.string("errorMessage")).flatMap { $0 }.map { AttemptLoop.snippet(Array($0.utf8)) }
        return (AppStoreAPIErrorCode(rawValue: code), message)
    }
}
