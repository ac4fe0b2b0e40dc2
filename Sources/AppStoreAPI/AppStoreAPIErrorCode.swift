import ReceiptCore
/// An App Store Server API error code, from an error answer's body:
///
///     HTTP 404  {"errorCode":4040010,"errorMessage":"Transaction id not found."}
///
/// The raw value is always kept, so a code Apple adds later decodes too (its `name` is then
/// "unknown error NNNNNNN" and it is not retried). Known codes are constants, so a `switch` reads
/// `case .transactionIdNotFound:`. Apple marks the codes that may be retried by name
/// ("…Retryable") plus the rate limit; those are the ones `isRetryable` accepts.
public struct AppStoreAPIErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number Apple sent.
    public let rawValue: Int64

    /// The code for Apple's number, known or not.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// Apple's name for the code ("transactionIdNotFound"), or "unknown error NNNNNNN".
    public var name: String { AppStoreAPIErrorCode.names[rawValue] ?? "unknown error \(rawValue)" }

    /// Whether Apple lists this code.
    public var isKnown: Bool { AppStoreAPIErrorCode.names[rawValue] != nil }

    /// Whether sending the same request again later may succeed.
    public var isRetryable: Bool { AppStoreAPIErrorCode.retryable.contains(rawValue) }

    /// "4040010 transactionIdNotFound".
    public var description: String { "\(rawValue) \(name)" }

    public static let generalBadRequest = AppStoreAPIErrorCode(rawValue: 4000000)
    public static let invalidAppIdentifier = AppStoreAPIErrorCode(rawValue: 4000002)
    public static let invalidRequestRevision = AppStoreAPIErrorCode(rawValue: 4000005)
    public static let invalidTransactionId = AppStoreAPIErrorCode(rawValue: 4000006)
    public static let invalidOriginalTransactionId = AppStoreAPIErrorCode(rawValue: 4000008)
    public static let invalidPaginationToken = AppStoreAPIErrorCode(rawValue: 4000014)
    public static let paginationTokenExpired = AppStoreAPIErrorCode(rawValue: 4000017)
    public static let transactionIdNotOriginalTransactionId = AppStoreAPIErrorCode(rawValue: 4000187)
    public static let accountNotFound = AppStoreAPIErrorCode(rawValue: 4040001)
    public static let accountNotFoundRetryable = AppStoreAPIErrorCode(rawValue: 4040002)
    public static let appNotFound = AppStoreAPIErrorCode(rawValue: 4040003)
    public static let appNotFoundRetryable = AppStoreAPIErrorCode(rawValue: 4040004)
    public static let originalTransactionIdNotFound = AppStoreAPIErrorCode(rawValue: 4040005)
    public static let originalTransactionIdNotFoundRetryable = AppStoreAPIErrorCode(rawValue: 4040006)
    public static let transactionIdNotFound = AppStoreAPIErrorCode(rawValue: 4040010)
    public static let appTransactionDoesNotExist = AppStoreAPIErrorCode(rawValue: 4040019)
    public static let rateLimitExceeded = AppStoreAPIErrorCode(rawValue: 4290000)
    public static let generalInternal = AppStoreAPIErrorCode(rawValue: 5000000)
    public static let generalInternalRetryable = AppStoreAPIErrorCode(rawValue: 5000001)

    /// Every code Apple documents (App Store Server API `APIError`), by value.
    public static let names: [Int64: String] = [
        4000000: "generalBadRequest",
        4000002: "invalidAppIdentifier",
        4000005: "invalidRequestRevision",
        4000006: "invalidTransactionId",
        4000008: "invalidOriginalTransactionId",
        4000009: "invalidExtendByDays",
        4000010: "invalidExtendReasonCode",
        4000011: "invalidRequestIdentifier",
        4000012: "startDateTooFarInPast",
        4000013: "startDateAfterEndDate",
        4000014: "invalidPaginationToken",
        4000015: "invalidStartDate",
        4000016: "invalidEndDate",
        4000017: "paginationTokenExpired",
        4000018: "invalidNotificationType",
        4000019: "multipleFiltersSupplied",
        4000020: "invalidTestNotificationToken",
        4000021: "invalidSort",
        4000022: "invalidProductType",
        4000023: "invalidProductId",
        4000024: "invalidSubscriptionGroupIdentifier",
        4000025: "invalidExcludeRevoked",
        4000026: "invalidInAppOwnershipType",
        4000027: "invalidEmptyStorefrontCountryCodeList",
        4000028: "invalidStorefrontCountryCode",
        4000030: "invalidRevoked",
        4000031: "invalidStatus",
        4000032: "invalidAccountTenure",
        4000033: "invalidAppAccountToken",
        4000034: "invalidConsumptionStatus",
        4000035: "invalidCustomerConsented",
        4000036: "invalidDeliveryStatus",
        4000037: "invalidLifetimeDollarsPurchased",
        4000038: "invalidLifetimeDollarsRefunded",
        4000039: "invalidPlatform",
        4000040: "invalidPlayTime",
        4000041: "invalidSampleContentProvided",
        4000042: "invalidUserStatus",
        4000043: "invalidTransactionNotConsumable",
        4000047: "invalidTransactionTypeNotSupported",
        4000048: "appTransactionIdNotSupported",
        4000187: "transactionIdNotOriginalTransactionId",
        4030004: "subscriptionExtensionIneligible",
        4030005: "subscriptionMaxExtension",
        4030007: "familySharedSubscriptionExtensionIneligible",
        4040001: "accountNotFound",
        4040002: "accountNotFoundRetryable",
        4040003: "appNotFound",
        4040004: "appNotFoundRetryable",
        4040005: "originalTransactionIdNotFound",
        4040006: "originalTransactionIdNotFoundRetryable",
        4040007: "serverNotificationUrlNotFound",
        4040008: "testNotificationNotFound",
        4040009: "statusRequestNotFound",
        4040010: "transactionIdNotFound",
        4040019: "appTransactionDoesNotExist",
        4290000: "rateLimitExceeded",
        5000000: "generalInternal",
        5000001: "generalInternalRetryable",
    ]

    /// The codes Apple says may succeed on a later try.
    public static let retryable: Set<Int64> = [4040002, 4040004, 4040006, 4290000, 5000001]

    /// Every known code, ascending.
    public static var allKnown: [AppStoreAPIErrorCode] { names.keys.sorted().map(AppStoreAPIErrorCode.init(rawValue:)) }
}
