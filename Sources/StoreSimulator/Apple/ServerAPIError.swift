import Foundation
import ReceiptCore

/// An App Store Server API error answer: `{"errorCode":4040010,"errorMessage":"Transaction id not found."}`,
/// with the HTTP status Apple sends it with (400, 403, 404, 429, 500).
struct ServerAPIError: Error, Equatable {
    let status: Int
    let code: Int64
    let message: String

    static func body(_ code: Int64, _ message: String) -> JSONValue {
        .object([("errorCode", .int(code)), ("errorMessage", .string(message))])
    }

    /// What Apple sends with an HTTP status the simulator was told to fail with.
    static func forStatus(_ status: Int) -> JSONValue {
        switch status {
        case 429: return body(4290000, "Rate limit exceeded.")
        case 500: return body(5000000, "An unknown error occurred.")
        case 500...599: return body(5000001, "An unknown error occurred. Please try again.")
        case 404: return body(4040010, "Transaction id not found.")
        default: return body(4000000, "An error occurred.")
        }
    }

    private static func bad(_ code: Int64, _ message: String) -> ServerAPIError { ServerAPIError(status: 400, code: code, message: message) }

    // 400: the request is wrong.
    static let generalBadRequest = bad(4000000, "Bad request.")
    static let invalidTransactionId = bad(4000006, "Invalid transaction id.")
    static let invalidOriginalTransactionId = bad(4000008, "Invalid original transaction id.")
    static let invalidExtendByDays = bad(4000009, "Invalid extend by days value.")
    static let invalidExtendReasonCode = bad(4000010, "Invalid extend reason code.")
    static let invalidRequestIdentifier = bad(4000011, "Invalid request identifier.")
    static let startDateTooFarInPast = bad(4000012, "Invalid request. The start date is more than 180 days in the past.")
    static let startDateAfterEndDate = bad(4000013, "Invalid request. The start date is after the end date.")
    static let invalidPaginationToken = bad(4000014, "Invalid pagination token.")
    static let invalidStartDate = bad(4000015, "Invalid start date.")
    static let invalidEndDate = bad(4000016, "Invalid end date.")
    static let invalidNotificationType = bad(4000018, "Invalid notification type.")
    static let multipleFiltersSupplied = bad(4000019, "Invalid request. Supply either a transaction id or a notification type, not both.")
    static let invalidTestNotificationToken = bad(4000020, "Invalid test notification token.")
    static let invalidProductId = bad(4000023, "Invalid product id.")
    static let invalidAccountTenure = bad(4000032, "Invalid account tenure.")
    static let invalidAppAccountToken = bad(4000033, "Invalid app account token.")
    static let invalidConsumptionStatus = bad(4000034, "Invalid consumption status.")
    static let invalidCustomerConsented = bad(4000035, "Invalid customer consented. The customer must consent.")
    static let invalidDeliveryStatus = bad(4000036, "Invalid delivery status.")
    static let invalidLifetimeDollarsPurchased = bad(4000037, "Invalid lifetime dollars purchased.")
    static let invalidLifetimeDollarsRefunded = bad(4000038, "Invalid lifetime dollars refunded.")
    static let invalidPlatform = bad(4000039, "Invalid platform.")
    static let invalidPlayTime = bad(4000040, "Invalid play time.")
    static let invalidSampleContentProvided = bad(4000041, "Invalid sample content provided.")
    static let invalidUserStatus = bad(4000042, "Invalid user status.")
    static let invalidTransactionNotConsumable = bad(4000043, "Invalid transaction. The transaction is not a consumable or an auto-renewable subscription.")
    static let invalidRefundPreference = bad(4000044, "Invalid refund preference.")
    static let invalidTransactionTypeNotSupported = bad(4000047, "Invalid transaction type. The transaction's in-app purchase type is not supported.")
    static let transactionIdNotOriginalTransactionId = bad(4000187, "Invalid transaction id. It is not an original transaction id.")

    // 403: not allowed for this subscription.
    static let subscriptionExtensionIneligible = ServerAPIError(status: 403, code: 4030004, message: "Subscription extension ineligible.")
    static let subscriptionMaxExtension = ServerAPIError(status: 403, code: 4030005, message: "Subscription max extension.")

    // 404: not found in this environment.
    static let originalTransactionIdNotFound = ServerAPIError(status: 404, code: 4040005, message: "Original transaction id not found.")
    static let serverNotificationURLNotFound = ServerAPIError(status: 404, code: 4040007, message: "Server notification URL not found.")
    static let testNotificationNotFound = ServerAPIError(status: 404, code: 4040008, message: "Test notification not found.")
    static let statusRequestNotFound = ServerAPIError(status: 404, code: 4040009, message: "Status request not found.")
    static let transactionIdNotFound = ServerAPIError(status: 404, code: 4040010, message: "Transaction id not found.")

    // 500.
    static let generalInternal = ServerAPIError(status: 500, code: 5000000, message: "An unknown error occurred.")
}
