import Foundation
import ReceiptCore

/// A client for the App Store Server API (`Authorization: Bearer <JWT>`). Its read endpoints are
/// here; the ones that act at Apple (extensions, consumption, notification history, test
/// notifications, app account tokens, finishing a transaction) are in `AppStoreServerAPIClient+Actions.swift`:
///
///     Get Transaction Info          /inApps/v1/transactions/{transactionId}
///     Get Transaction History (v2)  /inApps/v2/history/{transactionId}?revision=…
///     Look Up Order ID              /inApps/v1/lookup/{orderId}
///     Get All Subscription Statuses /inApps/v1/subscriptions/{transactionId}
///     Get Refund History (v2)       /inApps/v2/refund/lookup/{transactionId}?revision=…
///
/// Environments: the one given first (the environment already known for the transaction), else
/// production; on 4040010 (transaction id not found) the other one is asked once. Retried with
/// backoff: HTTP 429 (honouring `Retry-After`), 5xx without an Apple code, Apple's retryable codes
/// (4040002, 4040004, 4040006, 4290000, 5000001), timeouts and dropped connections. HTTP 401 fails
/// at once. Every signed transaction and renewal info is decoded and verified with the
/// `ReceiptVerifier` (and checked against the bundle id and the endpoint's environment) before it
/// is returned; what does not verify is an error (Get Transaction Info) or reported in `rejected`.
public struct AppStoreServerAPIClient: Sendable, CustomStringConvertible {
    /// The default most pages read from one paginated endpoint.
    public static let defaultMaxPages = 200

    /// The production Server API base.
    public let productionURL: URL
    /// The sandbox Server API base.
    public let sandboxURL: URL
    /// Sends the requests.
    public let transport: any HTTPTransport
    /// When to try again.
    public let retry: RetryPolicy
    /// Each request's deadline.
    public let timeout: RequestTimeout
    /// The most pages read before giving up on an endpoint that never says `hasMore: false`.
    public let maxPages: Int
    /// The bearer token source, shared by every request of this client.
    public let token: ServerAPIToken
    let check: SignedDataCheck
    private let clock: @Sendable () -> Date
    private let monotonic: MonotonicClock

    /// A client. Throws `.configuration` when a base URL is not https (or http to loopback).
    /// - Parameters:
    ///   - productionURL, sandboxURL: the Server API bases; request paths are appended.
    ///   - verifier: checks every JWS Apple returns.
    ///   - clock: wall-clock time, for token `iat`/`exp` and `Retry-After` dates.
    public init(productionURL: URL, sandboxURL: URL, transport: any HTTPTransport, credentials: ServerAPICredentials,
                verifier: ReceiptVerifier, retry: RetryPolicy = .standard, timeout: RequestTimeout = .default,
                clock: @escaping @Sendable () -> Date, monotonic: MonotonicClock = .system,
                maxPages: Int = AppStoreServerAPIClient.defaultMaxPages) throws {
        try AppStoreEndpoints.validate(productionURL, "Server API production")
        try AppStoreEndpoints.validate(sandboxURL, "Server API sandbox")
        self.productionURL = productionURL
        self.sandboxURL = sandboxURL
        self.transport = transport
        self.retry = retry
        self.timeout = timeout
        self.maxPages = min(max(maxPages, 1), 10_000)
        token = ServerAPIToken(credentials: credentials, clock: clock)
        check = SignedDataCheck(verifier: verifier, bundleId: credentials.bundleId)
        self.clock = clock
        self.monotonic = monotonic
    }

    /// A client for `endpoints`' two Server API bases.
    public init(endpoints: AppStoreEndpoints, transport: any HTTPTransport, credentials: ServerAPICredentials,
                verifier: ReceiptVerifier, retry: RetryPolicy = .standard, timeout: RequestTimeout = .default,
                clock: @escaping @Sendable () -> Date, monotonic: MonotonicClock = .system,
                maxPages: Int = AppStoreServerAPIClient.defaultMaxPages) throws {
        try self.init(productionURL: endpoints.serverAPIProduction, sandboxURL: endpoints.serverAPISandbox, transport: transport,
                      credentials: credentials, verifier: verifier, retry: retry, timeout: timeout, clock: clock,
                      monotonic: monotonic, maxPages: maxPages)
    }

    // MARK: Endpoints

    /// Get Transaction Info. Throws `.unverified` when Apple's signed transaction does not verify.
    public func transactionInfo(_ transactionId: String, environment: Environment? = nil) async throws -> ServerAPITransactionInfo {
        let id = try AppStoreServerAPIClient.identifier(transactionId, "transaction id")
        var loop = makeLoop()
        let (transaction, used) = try await withFallback(environment, &loop) { env, loop in
            let body = try await get("/inApps/v1/transactions/\(id)", env, &loop)
            let answer = try ServerAPIAnswer.object(body, "Get Transaction Info answer")
            guard let jws = try ServerAPIAnswer.field({ try answer.string("signedTransactionInfo") }) else {
                throw loop.failure(AppStoreError(.badResponse, "Get Transaction Info answer has no `signedTransactionInfo`", httpStatus: 200))
            }
            switch check.transaction(jws, environment: env, location: "signedTransactionInfo") {
            case .success(let verified): return (verified, env)
            case .failure(let rejected):
                throw loop.failure(AppStoreError(.unverified, "Get Transaction Info \(transactionId): \(rejected)", httpStatus: 200))
            }
        }
        return ServerAPITransactionInfo(transaction: transaction, environment: used, attempts: loop.attempts)
    }

    /// Get Transaction History (v2), every page.
    public func transactionHistory(_ transactionId: String, environment: Environment? = nil) async throws -> ServerAPITransactionList {
        let id = try AppStoreServerAPIClient.identifier(transactionId, "transaction id")
        return try await paginated("/inApps/v2/history/\(id)", what: "Get Transaction History", environment: environment)
    }

    /// Get Refund History (v2), every page.
    public func refundHistory(_ transactionId: String, environment: Environment? = nil) async throws -> ServerAPITransactionList {
        let id = try AppStoreServerAPIClient.identifier(transactionId, "transaction id")
        return try await paginated("/inApps/v2/refund/lookup/\(id)", what: "Get Refund History", environment: environment)
    }

    /// Look Up Order ID (the order id from the customer's emailed receipt, "MK5TTTVWJH").
    public func lookUpOrder(_ orderId: String, environment: Environment? = nil) async throws -> ServerAPIOrderLookup {
        let id = try AppStoreServerAPIClient.identifier(orderId, "order id")
        var loop = makeLoop()
        let (status, transactions, rejected, used) = try await withFallback(environment, &loop) { env, loop in
            let body = try await get("/inApps/v1/lookup/\(id)", env, &loop)
            let answer = try ServerAPIAnswer.object(body, "Look Up Order ID answer")
            guard let status = try ServerAPIAnswer.field({ try answer.int("status") }) else {
                throw loop.failure(AppStoreError(.badResponse, "Look Up Order ID answer has no `status`", httpStatus: 200))
            }
            let (verified, rejected) = verifyAll(try ServerAPIAnswer.strings(answer, "signedTransactions"), env, "signedTransactions")
            return (status, verified, rejected, env)
        }
        return ServerAPIOrderLookup(orderStatus: status, transactions: transactions, rejected: rejected, environment: used,
                                    attempts: loop.attempts)
    }

    /// Get All Subscription Statuses.
    public func subscriptionStatuses(_ transactionId: String, environment: Environment? = nil) async throws -> ServerAPISubscriptionStatuses {
        let id = try AppStoreServerAPIClient.identifier(transactionId, "transaction id")
        var loop = makeLoop()
        let (groups, rejected, used) = try await withFallback(environment, &loop) { env, loop in
            let body = try await get("/inApps/v1/subscriptions/\(id)", env, &loop)
            let answer = try ServerAPIAnswer.object(body, "Get All Subscription Statuses answer")
            var rejected: [RejectedSignedData] = []
            var groups: [SubscriptionGroupStatus] = []
            for (g, group) in try ServerAPIAnswer.field({ try answer.objects("data", limit: ServerAPIAnswer.maxItems) }).enumerated() {
                var last: [SubscriptionLastTransaction] = []
                let items = try ServerAPIAnswer.field({ try group.objects("lastTransactions", limit: ServerAPIAnswer.maxItems) })
                for (t, item) in items.enumerated() {
                    let place = "data[\(g)].lastTransactions[\(t)]"
                    guard let jws = try ServerAPIAnswer.field({ try item.string("signedTransactionInfo") }) else {
                        rejected.append(RejectedSignedData(location: place, reason: "has no signedTransactionInfo", verdict: nil, claimedTransactionId: nil))
                        continue
                    }
                    let transaction: VerifiedTransaction
                    switch check.transaction(jws, environment: env, location: place + ".signedTransactionInfo") {
                    case .success(let verified): transaction = verified
                    case .failure(let refusal): rejected.append(refusal); continue
                    }
                    var renewal: VerifiedRenewalInfo?
                    if let renewalJWS = try ServerAPIAnswer.field({ try item.string("signedRenewalInfo") }) {
                        switch check.renewalInfo(renewalJWS, environment: env, location: place + ".signedRenewalInfo") {
                        case .success(let verified): renewal = verified
                        case .failure(let refusal): rejected.append(refusal); continue
                        }
                    }
                    last.append(SubscriptionLastTransaction(
                        originalTransactionId: try ServerAPIAnswer.field({ try item.string("originalTransactionId") }),
                        status: try ServerAPIAnswer.field({ try item.int("status") }), transaction: transaction, renewalInfo: renewal))
                }
                groups.append(SubscriptionGroupStatus(
                    subscriptionGroupIdentifier: try ServerAPIAnswer.field({ try group.string("subscriptionGroupIdentifier") }),
                    lastTransactions: last))
            }
            return (groups, rejected, env)
        }
        return ServerAPISubscriptionStatuses(groups: groups, rejected: rejected, environment: used, attempts: loop.attempts)
    }

    // MARK: Machinery

    /// Every page of a v2 paginated endpoint: follows `revision` while `hasMore`, at most
    /// `maxPages` pages; a repeated revision, or `hasMore` without a revision, is `.pagination`.
    private func paginated(_ path: String, what: String, environment: Environment?) async throws -> ServerAPITransactionList {
        var loop = makeLoop()
        let list = try await withFallback(environment, &loop) { env, loop in
            var transactions: [VerifiedTransaction] = []
            var rejected: [RejectedSignedData] = []
            var revision: String?
            var seen: Set<String> = []
            var pages = 0
            while true {
                guard pages < maxPages else {
                    throw loop.failure(AppStoreError(.pagination, "\(what): still more pages after \(maxPages); stopped"))
                }
                let body = try await get(path, env, &loop, query: revision.map { [("revision", $0)] } ?? [])
                pages += 1
                let answer = try ServerAPIAnswer.object(body, "\(what) answer (page \(pages))")
                let (verified, refused) = verifyAll(try ServerAPIAnswer.strings(answer, "signedTransactions"), env,
                                                    pages == 1 ? "signedTransactions" : "page \(pages) signedTransactions")
                transactions += verified
                rejected += refused
                let next = try ServerAPIAnswer.field({ try answer.string("revision") })
                guard try ServerAPIAnswer.field({ try answer.bool("hasMore") }) == true else {
                    return (transactions, rejected, env, pages, next ?? revision)
                }
                guard let next, !next.isEmpty else {
                    throw loop.failure(AppStoreError(.pagination, "\(what): page \(pages) says hasMore but gives no revision"))
                }
                guard seen.insert(next).inserted, next != revision else {
                    throw loop.failure(AppStoreError(.pagination, "\(what): page \(pages) repeats revision '\(AttemptLoop.snippet(Array(next.utf8), limit: 60))'; stopped"))
                }
                revision = next
            }
        }
        return ServerAPITransactionList(transactions: list.0, rejected: list.1, environment: list.2, pages: list.3,
                                        revision: list.4, attempts: loop.attempts)
    }

    /// Runs `body` against the given environment (production when none or not a store
    /// environment), then once against the other when it fails with 4040010 before any answer of
    /// its own was accepted.
    func withFallback<T>(_ given: Environment?, _ loop: inout AttemptLoop,
                                 _ body: (Environment, inout AttemptLoop) async throws -> T) async throws -> T {
        let order: [Environment] = given == .sandbox ? [.sandbox, .production] : [.production, .sandbox]
        var index = 0
        while true {
            let before = loop.attempts.count
            do {
                return try await body(order[index], &loop)
            } catch let error as AppStoreError {
                let answered = loop.attempts[before...].contains { $0.outcome == .accepted }
                guard error.apiError == .transactionIdNotFound, index + 1 < order.count, !answered else {
                    throw loop.failure(error)  // every attempt so far, including those after the error was made
                }
                loop.markLast(.redirected(to: order[index + 1]))
                index += 1
            }
        }
    }

    /// GETs `path` (with `query`) from `environment`'s base; returns the 2xx body.
    func get(_ path: String, _ environment: Environment, _ loop: inout AttemptLoop,
                     query: [(String, String)] = []) async throws -> [UInt8] {
        try await send("GET", path, environment, &loop, query: query)
    }

    /// Sends `method` to `path` (with `query` and a JSON `body`) at `environment`'s base; returns
    /// the 2xx body (empty for 202 and 204).
    func send(_ method: String, _ path: String, _ environment: Environment, _ loop: inout AttemptLoop,
              query: [(String, String)] = [], body: JSONValue? = nil) async throws -> [UInt8] {
        let url = AppStoreEndpoints.join(environment == .sandbox ? sandboxURL : productionURL, path, query: query)
        let target = URLSessionTransport.target(url)
        let token = self.token, timeout = self.timeout
        let bytes = body.map { Array($0.serialized().utf8) }
        return try await loop.run(environment: environment, endpoint: url, makeRequest: {
            var headers = ["Authorization": "Bearer \(try token.bearer())", "Accept": "application/json", "User-Agent": "receiptdesk"]
            if bytes != nil { headers["Content-Type"] = "application/json" }
            return HTTPRequest(method: method, url: url, headers: headers, body: bytes, timeout: timeout)
        }, judge: { AppStoreServerAPIClient.judge($0, target: target) })
    }

    /// Verifies each signed transaction of a list.
    private func verifyAll(_ items: [String], _ environment: Environment, _ key: String) -> ([VerifiedTransaction], [RejectedSignedData]) {
        var verified: [VerifiedTransaction] = [], rejected: [RejectedSignedData] = []
        for (index, jws) in items.enumerated() {
            switch check.transaction(jws, environment: environment, location: "\(key)[\(index)]") {
            case .success(let transaction): verified.append(transaction)
            case .failure(let refusal): rejected.append(refusal)
            }
        }
        return (verified, rejected)
    }

    func makeLoop() -> AttemptLoop {
        AttemptLoop(transport: transport, retry: retry, monotonic: monotonic, wallClock: clock)
    }

    /// What one Server API answer means for the call.
    static func judge(_ response: HTTPResponse, target: String) -> AnswerJudgement<[UInt8]> {
        let status = response.status
        if (200...299).contains(status) { return .accept(response.body, .http(status, apiError: nil)) }
        let (apiError, message) = ServerAPIAnswer.error(response.body)
        let result = AppStoreAttempt.Result.http(status, apiError: apiError)
        let said = apiError.map { ", Apple error \($0)" } ?? ""
        let note = message.map { ": \($0)" } ?? ""
        if status == 401 {
            return .refuse(result, AppStoreError(.unauthorized, "\(target): HTTP 401, the App Store Server API refused the token: check the key, the issuer id and this machine's clock",
                                                 httpStatus: status, apiError: apiError))
        }
        if status == 429 || apiError == .rateLimitExceeded {
            return .retry(result, retryAfter: response.header("retry-after"), exhausted: nil,
                          error: AppStoreError(.rateLimited, "\(target): rate limited (HTTP \(status)\(said)) on every attempt",
                                               httpStatus: status, apiError: apiError))
        }
        if let apiError {
            let error = AppStoreError(.appleError, "\(target): HTTP \(status)\(said)\(note)", httpStatus: status, apiError: apiError)
            return apiError.isRetryable ? .retry(result, retryAfter: response.header("retry-after"), exhausted: nil, error: error)
                                        : .refuse(result, error)
        }
        let snippet = AttemptLoop.snippet(response.body)
        let error = AppStoreError(.httpStatus, "\(target): HTTP \(status)\(snippet.isEmpty ? "" : ": \(snippet)")", httpStatus: status)
        return status >= 500 ? .retry(result, retryAfter: response.header("retry-after"), exhausted: nil, error: error) : .refuse(result, error)
    }

    /// Checks an identifier that goes into a path: 1–128 characters of letters, digits, '-' and '_'.
    static func identifier(_ text: String, _ what: String) throws -> String {
        let value = text.trimmingCharacters(in: .whitespaces)
        guard (1...128).contains(value.utf8.count),
              value.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0)
                  || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
            throw ReceiptError(.badValue, "App Store Server API: \(what) '\(AttemptLoop.snippet(Array(text.utf8), limit: 60))' is not 1–128 letters, digits, '-' or '_'")
        }
        return value
    }

    public var description: String {
        "AppStoreServerAPIClient(production: \(productionURL.absoluteString), sandbox: \(sandboxURL.absoluteString), \(token.credentials), attempts: \(retry.maxAttempts), timeout: \(timeout))"
    }
}
