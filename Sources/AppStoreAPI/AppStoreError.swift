import ReceiptCore
/// Why a call to Apple (verifyReceipt or the App Store Server API) produced no answer that can be
/// believed: the network failed, Apple refused, or what came back did not verify.
///
/// This is the AppStore folder's own error type rather than more `ReceiptError` codes because a
/// failed call carries more than a code and a reason: every attempt made (for the ledger's attempt
/// records), the HTTP status and Apple's error code, and whether trying later can help (the CLI's
/// exit code 75 against 69). It keeps `ReceiptError`'s shape: a `code` enum, a one-line `reason`,
/// and equality on the code only. A `ReceiptError` raised while decoding Apple's answer is carried
/// inside as `.badResponse` with its reason.
///
/// No reason, attempt or description ever contains the shared secret or a bearer token.
public struct AppStoreError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The kind of failure.
    public enum Code: String, Sendable, CaseIterable {
        /// No complete answer within the request's timeout.
        case timeout
        /// Nothing accepted the connection (nothing listening, or a firewall said no).
        case connectionRefused
        /// The connection was dropped or reset before a complete answer arrived.
        case connectionLost
        /// Any other network failure (no route, name not found, TLS failure).
        case transport
        /// The answer was larger than the transport accepts.
        case responseTooLarge
        /// An HTTP status with no answer in it (a 404 from a proxy, a 503 after every retry).
        case httpStatus
        /// The App Store Server API answered with one of its error codes (`apiError`).
        case appleError
        /// HTTP 401: the token was refused (key, issuer id or clock).
        case unauthorized
        /// HTTP 429 on every attempt.
        case rateLimited
        /// The answer could not be decoded, or did not have the shape Apple documents.
        case badResponse
        /// Signed data in the answer did not verify (or belongs to another app or environment).
        case unverified
        /// Paging did not end: too many pages, a repeated revision, or more pages without a revision.
        case pagination
        /// The client is set up wrongly (an endpoint, a timeout, a key, an identifier).
        case configuration
    }

    /// The kind of failure.
    public let code: Code
    /// What was wrong, one line.
    public let reason: String
    /// The HTTP status of the last answer, when there was one.
    public let httpStatus: Int?
    /// Apple's error code, for `.appleError` (and for `.rateLimited` when Apple sent 4290000).
    public let apiError: AppStoreAPIErrorCode?
    /// Every attempt made before giving up, oldest first.
    public let attempts: [AppStoreAttempt]

    /// An error; `attempts` is filled in by the clients.
    public init(_ code: Code, _ reason: String, httpStatus: Int? = nil, apiError: AppStoreAPIErrorCode? = nil,
                attempts: [AppStoreAttempt] = []) {
        self.code = code
        self.reason = reason
        self.httpStatus = httpStatus
        self.apiError = apiError
        self.attempts = attempts
    }

    /// Whether the same call later may succeed: timeouts, dropped connections, rate limiting,
    /// HTTP 5xx and Apple's retryable codes. The CLI maps these to exit code 75 (temporary
    /// failure) and the rest of the network failures to 69 (service unavailable).
    public var isTemporary: Bool {
        switch code {
        case .timeout, .connectionLost, .rateLimited: return true
        case .httpStatus: return (httpStatus ?? 0) >= 500
        case .appleError: return apiError?.isRetryable ?? false
        case .connectionRefused, .transport, .responseTooLarge, .unauthorized, .badResponse, .unverified,
             .pagination, .configuration:
            return false
        }
    }

    /// Whether this is a failure of the connection itself (no HTTP answer at all).
    public var isTransportFailure: Bool {
        [.timeout, .connectionRefused, .connectionLost, .transport, .responseTooLarge].contains(code)
    }

    public var description: String { reason }

    public static func == (lhs: AppStoreError, rhs: AppStoreError) -> Bool { lhs.code == rhs.code }

    /// The same error carrying `attempts`, with `redact` applied to the reason.
    func with(attempts: [AppStoreAttempt], redact: (String) -> String = { $0 }) -> AppStoreError {
        AppStoreError(code, redact(reason), httpStatus: httpStatus, apiError: apiError, attempts: attempts)
    }
}
