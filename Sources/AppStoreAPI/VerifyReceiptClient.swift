import Foundation
import ReceiptCore

/// A client for Apple's (deprecated) verifyReceipt endpoints.
///
/// Request (POST, JSON; `password` only when a shared secret is given):
///
///     {"receipt-data":"MIIT…","password":"0123abcd…","exclude-old-transactions":false}
///
/// Rules: production first; status 21007 resends the same body to sandbox and 21008 to
/// production, each at most once per call. Retried with backoff (`RetryPolicy`): 21005, 21009,
/// 21100–21199 and anything Apple marks `is-retryable: true`; HTTP 429 and 5xx (honouring
/// `Retry-After`); timeouts and dropped connections. Never retried: `is-retryable: false`, 0,
/// 21000, 21002, 21003, 21004, 21006, 21007/21008 (redirected instead), 21010, unknown statuses,
/// other HTTP statuses, refused connections. The shared secret is never part of any description,
/// attempt record or error.
public struct VerifyReceiptClient: Sendable, CustomStringConvertible, CustomReflectable {
    /// The largest `receipt-data` sent, in UTF-8 bytes (8 MiB).
    public static let maxReceiptBytes = 8 << 20

    /// verifyReceipt for production receipts (asked first).
    public let productionURL: URL
    /// verifyReceipt for sandbox receipts (asked on 21007).
    public let sandboxURL: URL
    /// Sends the requests.
    public let transport: any HTTPTransport
    /// Sent as `exclude-old-transactions` (only the latest renewal of each subscription).
    public let excludeOldTransactions: Bool
    /// When to try again.
    public let retry: RetryPolicy
    /// Each request's deadline.
    public let timeout: RequestTimeout
    private let sharedSecret: SharedSecret?
    private let clock: @Sendable () -> Date
    private let monotonic: MonotonicClock

    /// A client. Throws `.configuration` when an endpoint is not https (or http to loopback).
    /// - Parameters:
    ///   - sharedSecret: the app's shared secret, read by the caller from a file or the
    ///     environment; nil or blank sends no `password`.
    ///   - clock: wall-clock time, used only to read `Retry-After` dates.
    ///   - monotonic: the source of attempt latencies.
    public init(productionURL: URL, sandboxURL: URL, transport: any HTTPTransport, sharedSecret: String?,
                excludeOldTransactions: Bool = false, retry: RetryPolicy = .standard, timeout: RequestTimeout = .default,
                clock: @escaping @Sendable () -> Date = { Date() }, monotonic: MonotonicClock = .system) throws {
        try AppStoreEndpoints.validate(productionURL, "verifyReceipt production")
        try AppStoreEndpoints.validate(sandboxURL, "verifyReceipt sandbox")
        self.productionURL = productionURL
        self.sandboxURL = sandboxURL
        self.transport = transport
        self.sharedSecret = SharedSecret(sharedSecret)
        self.excludeOldTransactions = excludeOldTransactions
        self.retry = retry
        self.timeout = timeout
        self.clock = clock
        self.monotonic = monotonic
    }

    /// A client for `endpoints`' two verifyReceipt URLs.
    public init(endpoints: AppStoreEndpoints, transport: any HTTPTransport, sharedSecret: String?,
                excludeOldTransactions: Bool = false, retry: RetryPolicy = .standard, timeout: RequestTimeout = .default,
                clock: @escaping @Sendable () -> Date = { Date() }, monotonic: MonotonicClock = .system) throws {
        try self.init(productionURL: endpoints.verifyReceiptProduction, sandboxURL: endpoints.verifyReceiptSandbox,
                      transport: transport, sharedSecret: sharedSecret, excludeOldTransactions: excludeOldTransactions,
                      retry: retry, timeout: timeout, clock: clock, monotonic: monotonic)
    }

    /// Whether a shared secret will be sent (never what it is).
    public var hasSharedSecret: Bool { sharedSecret != nil }

    /// Asks Apple about `receiptData` (the base64 receipt, surrounding whitespace ignored).
    ///
    /// Returns Apple's final answer whatever its status. Throws `ReceiptError` (`.missingField`,
    /// `.tooLarge`) for a receipt that cannot be sent, `AppStoreError` when no usable answer came
    /// (its `attempts` say what happened), and `CancellationError` when the task is cancelled.
    public func verify(receiptData: String) async throws -> VerifyReceiptOutcome {
        let receipt = receiptData.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !receipt.isEmpty else { throw ReceiptError(.missingField, "verifyReceipt: the receipt data is empty") }
        guard receipt.utf8.count <= VerifyReceiptClient.maxReceiptBytes else {
            throw ReceiptError(.tooLarge, "verifyReceipt: the receipt data is \(receipt.utf8.count) bytes, more than the \(VerifyReceiptClient.maxReceiptBytes) sent")
        }
        let body = requestBody(receipt)
        let secret = sharedSecret
        var loop = AttemptLoop(transport: transport, retry: retry, monotonic: monotonic, wallClock: clock,
                               redact: { secret?.redact($0) ?? $0 })
        var environment = Environment.production
        var sentToSandbox = false, sentBackToProduction = false
        while true {
            let url = environment == .sandbox ? sandboxURL : productionURL
            let request = HTTPRequest(method: "POST", url: url, headers: ["Content-Type": "application/json", "Accept": "application/json",
                                                                             "User-Agent": "receiptdesk"],
                                      body: body, timeout: timeout)
            let target = URLSessionTransport.target(url)
            let response = try await loop.run(environment: environment, endpoint: url, makeRequest: { request },
                                              judge: { VerifyReceiptClient.judge($0, target: target) })
            if response.status == 21007, environment == .production, !sentToSandbox {
                sentToSandbox = true
                environment = .sandbox
                loop.markLast(.redirected(to: .sandbox))
            } else if response.status == 21008, environment == .sandbox, !sentBackToProduction {
                sentBackToProduction = true
                environment = .production
                loop.markLast(.redirected(to: .production))
            } else {
                return VerifyReceiptOutcome(response: response, endpoint: url, environment: environment, attempts: loop.attempts)
            }
        }
    }

    /// The request JSON, members in Apple's order.
    func requestBody(_ receipt: String) -> [UInt8] {
        var members: [(String, JSONValue)] = [("receipt-data", .string(receipt))]
        if let sharedSecret { members.append(("password", .string(sharedSecret.value))) }
        members.append(("exclude-old-transactions", .bool(excludeOldTransactions)))
        return Array(JSONValue.object(members).serialized().utf8)
    }

    /// Statuses never retried, whatever `is-retryable` says.
    static let neverRetried: Set<Int64> = [0, 21000, 21002, 21003, 21004, 21006, 21007, 21008, 21010]

    /// Whether a verifyReceipt answer with `status` (and Apple's `is-retryable`) is worth retrying.
    public static func isRetryable(status: Int64, isRetryable flag: Bool?) -> Bool {
        if neverRetried.contains(status) { return false }
        if let flag { return flag }
        return VerifyReceiptStatus.isRetryable(status)
    }

    static func judge(_ response: HTTPResponse, target: String) -> AnswerJudgement<VerifyReceiptResponse> {
        let status = response.status
        switch status {
        case 200:
            let answer: VerifyReceiptResponse
            do {
                answer = try VerifyReceiptResponse(json: response.body)
            } catch {
                return .refuse(.http(200, apiError: nil),
                               AppStoreError(.badResponse, "\(target) answered HTTP 200 with a body that is not a verifyReceipt answer: \(AttemptLoop.describe(error))",
                                             httpStatus: 200))
            }
            let result = AppStoreAttempt.Result.status(answer.status)
            guard isRetryable(status: answer.status, isRetryable: answer.isRetryable) else { return .accept(answer, result) }
            return .retry(result, retryAfter: response.header("retry-after"), exhausted: answer,
                          error: AppStoreError(.badResponse, "\(target): status \(answer.status)", httpStatus: 200))
        case 429, 500...599:
            return .retry(.http(status, apiError: nil), retryAfter: response.header("retry-after"), exhausted: nil,
                          error: AppStoreError(status == 429 ? .rateLimited : .httpStatus,
                                               "\(target) answered HTTP \(status) on every attempt", httpStatus: status))
        default:
            let snippet = AttemptLoop.snippet(response.body)
            return .refuse(.http(status, apiError: nil),
                           AppStoreError(.httpStatus, "\(target) answered HTTP \(status)\(snippet.isEmpty ? "" : ": \(snippet)")", httpStatus: status))
        }
    }

    public var description: String {
        "VerifyReceiptClient(production: \(productionURL.absoluteString), sandbox: \(sandboxURL.absoluteString), shared secret: \(sharedSecret == nil ? "none" : SharedSecret.placeholder), exclude-old-transactions: \(excludeOldTransactions), attempts: \(retry.maxAttempts), timeout: \(timeout))"
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["productionURL": productionURL.absoluteString, "sandboxURL": sandboxURL.absoluteString,
                                "sharedSecret": sharedSecret == nil ? "none" : SharedSecret.placeholder,
                                "excludeOldTransactions": excludeOldTransactions, "maxAttempts": retry.maxAttempts,
                                "timeout": timeout.description])
    }
}
