import Foundation
import ReceiptCore

/// The App Store Server API endpoints that act at Apple or read what Apple sent:
///
///     Extend a Subscription Renewal Date   PUT  /inApps/v1/subscriptions/extend/{originalTransactionId}
///     Extend for All Active Subscribers    POST /inApps/v1/subscriptions/extend/mass
///     Get Status of Renewal Extensions     GET  /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}
///     Send Consumption Information         PUT  /inApps/v2/transactions/consumption/{transactionId}
///                                          (version 1: PUT /inApps/v1/…, where the config asks for it)
///     Get Notification History             POST /inApps/v1/notifications/history?paginationToken=…
///     Request a Test Notification          POST /inApps/v1/notifications/test
///     Get Test Notification Status         GET  /inApps/v1/notifications/test/{testNotificationToken}
///     Set App Account Token                PUT  /inApps/v1/transactions/{originalTransactionId}/appAccountToken
///     Finish Transaction                   POST /inApps/v1/transactions/{transactionId}/finish
///
/// Unlike the look-ups, these go to the one environment given (the subscription's, known from the
/// ledger): changing something in the other environment by fallback would be wrong. Retries are
/// safe: extensions carry a request identifier Apple deduplicates on, the PUTs set a value, and
/// finishing a finished transaction is answered 200 again.
extension AppStoreServerAPIClient {
    /// The most days one extension may add, and the most extensions per subscription in 365 days.
    public static let maxExtensionDays = 90
    public static let maxExtensionsPerYear = 2

    /// Extends one subscription's renewal date by `days` (1–90).
    public func extendRenewalDate(originalTransactionId: String, days: Int, reason: ExtendReasonCode, requestIdentifier: String,
                                  environment: Environment) async throws -> RenewalExtensionAnswer {
        let id = try Self.identifier(originalTransactionId, "original transaction id")
        try Self.checkExtension(days: days, requestIdentifier: requestIdentifier)
        var loop = makeLoop()
        let body = try await send("PUT", "/inApps/v1/subscriptions/extend/\(id)", environment, &loop, body: .object([
            ("extendByDays", .int(Int64(days))), ("extendReasonCode", .int(Int64(reason.rawValue))),
            ("requestIdentifier", .string(requestIdentifier.lowercased())),
        ]))
        let answer = try ServerAPIAnswer.object(body, "Extend a Subscription Renewal Date answer")
        return RenewalExtensionAnswer(
            originalTransactionId: try ServerAPIAnswer.field { try answer.string("originalTransactionId") },
            webOrderLineItemId: try ServerAPIAnswer.field { try answer.string("webOrderLineItemId") },
            success: try ServerAPIAnswer.field { try answer.bool("success") } ?? false,
            effectiveDate: try ServerAPIAnswer.field { try answer.millisecondsDate("effectiveDate") },
            environment: environment, attempts: loop.attempts)
    }

    /// Asks Apple to extend every eligible active subscriber of `productId` by `days`; returns the
    /// attempts once Apple accepted the request (`massExtensionStatus` tells how it went).
    public func massExtendRenewalDate(productId: String, days: Int, reason: ExtendReasonCode, requestIdentifier: String,
                                      storefrontCountryCodes: [String] = [], environment: Environment) async throws -> [AppStoreAttempt] {
        try Self.checkExtension(days: days, requestIdentifier: requestIdentifier)
        try Self.productIdentifier(productId)
        var members: [(String, JSONValue)] = [
            ("extendByDays", .int(Int64(days))), ("extendReasonCode", .int(Int64(reason.rawValue))),
            ("requestIdentifier", .string(requestIdentifier.lowercased())), ("productId", .string(productId)),
        ]
        if !storefrontCountryCodes.isEmpty { members.append(("storefrontCountryCodes", .array(storefrontCountryCodes.map { .string($0) }))) }
        var loop = makeLoop()
        let body = try await send("POST", "/inApps/v1/subscriptions/extend/mass", environment, &loop, body: .object(members))
        let answer = try ServerAPIAnswer.object(body, "Extend Subscription Renewal Dates for All Active Subscribers answer")
        let echoed = try ServerAPIAnswer.field { try answer.string("requestIdentifier") }
        guard echoed?.lowercased() == requestIdentifier.lowercased() else {
            throw loop.failure(AppStoreError(.badResponse, "mass extension answer names request '\(echoed ?? "none")', not \(requestIdentifier)", httpStatus: 200))
        }
        return loop.attempts
    }

    /// How a mass extension is going.
    public func massExtensionStatus(productId: String, requestIdentifier: String, environment: Environment) async throws -> MassExtensionStatus {
        try Self.productIdentifier(productId)
        let request = try Self.identifier(requestIdentifier, "request identifier")
        var loop = makeLoop()
        let body = try await send("GET", "/inApps/v1/subscriptions/extend/mass/\(Self.percentEncodedSegment(productId))/\(request)", environment, &loop)
        let answer = try ServerAPIAnswer.object(body, "Get Status of Subscription Renewal Date Extensions answer")
        return MassExtensionStatus(
            requestIdentifier: try ServerAPIAnswer.field { try answer.string("requestIdentifier") } ?? requestIdentifier,
            complete: try ServerAPIAnswer.field { try answer.bool("complete") } ?? false,
            completeDate: try ServerAPIAnswer.field { try answer.millisecondsDate("completeDate") },
            succeededCount: try ServerAPIAnswer.field { try answer.int("succeededCount") } ?? 0,
            failedCount: try ServerAPIAnswer.field { try answer.int("failedCount") } ?? 0,
            attempts: loop.attempts)
    }

    /// Sends consumption information for a transaction Apple asked about (CONSUMPTION_REQUEST),
    /// in the information's version: `/inApps/v2/…` (the default), or `/inApps/v1/…`.
    public func sendConsumptionInformation(transactionId: String, _ information: ConsumptionInformation,
                                           environment: Environment) async throws -> [AppStoreAttempt] {
        let id = try Self.identifier(transactionId, "transaction id")
        try information.validate()
        var loop = makeLoop()
        _ = try await send("PUT", "/inApps/v\(information.version)/transactions/consumption/\(id)", environment, &loop, body: information.json)
        return loop.attempts
    }

    /// One page of Get Notification History: the first when `paginationToken` is nil, else the
    /// one the token names. The caller keeps the token, so a fetch that stops can resume.
    public func notificationHistory(_ query: NotificationHistoryQuery, paginationToken: String?,
                                    environment: Environment) async throws -> NotificationHistoryPage {
        if let paginationToken {
            guard (1...2048).contains(paginationToken.utf8.count), !paginationToken.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value > 0x7E }) else {
                throw AppStoreError(.configuration, "pagination token is not 1–2048 printable ASCII characters")
            }
        }
        var loop = makeLoop()
        let body = try await send("POST", "/inApps/v1/notifications/history", environment, &loop,
                                  query: paginationToken.map { [("paginationToken", $0)] } ?? [], body: query.json)
        let answer = try ServerAPIAnswer.object(body, "Get Notification History answer")
        var items: [NotificationHistoryItem] = []
        for (index, item) in try ServerAPIAnswer.field({ try answer.objects("notificationHistory", limit: ServerAPIAnswer.maxItems) }).enumerated() {
            guard let payload = try ServerAPIAnswer.field({ try item.string("signedPayload") }) else {
                throw loop.failure(AppStoreError(.badResponse, "Get Notification History: notificationHistory[\(index)] has no signedPayload", httpStatus: 200))
            }
            items.append(NotificationHistoryItem(signedPayload: payload, sendAttempts: try Self.sendAttempts(item)))
        }
        let hasMore = try ServerAPIAnswer.field { try answer.bool("hasMore") } ?? false
        let token = try ServerAPIAnswer.field { try answer.string("paginationToken") }
        if hasMore, token?.isEmpty ?? true {
            throw loop.failure(AppStoreError(.pagination, "Get Notification History says hasMore but gives no paginationToken", httpStatus: 200))
        }
        return NotificationHistoryPage(items: items, hasMore: hasMore, paginationToken: hasMore ? token : nil, attempts: loop.attempts)
    }

    /// Asks Apple to send a TEST notification to the app's configured URL; returns its token.
    public func requestTestNotification(environment: Environment) async throws -> (token: String, attempts: [AppStoreAttempt]) {
        var loop = makeLoop()
        let body = try await send("POST", "/inApps/v1/notifications/test", environment, &loop)
        let answer = try ServerAPIAnswer.object(body, "Request a Test Notification answer")
        guard let token = try ServerAPIAnswer.field({ try answer.string("testNotificationToken") }), !token.isEmpty else {
            throw loop.failure(AppStoreError(.badResponse, "Request a Test Notification answer has no testNotificationToken", httpStatus: 200))
        }
        return (token, loop.attempts)
    }

    /// Whether the test notification `token` reached the merchant's server.
    public func testNotificationStatus(token: String, environment: Environment) async throws -> TestNotificationStatus {
        let id = try Self.identifier(token, "test notification token")
        var loop = makeLoop()
        let body = try await send("GET", "/inApps/v1/notifications/test/\(id)", environment, &loop)
        let answer = try ServerAPIAnswer.object(body, "Get Test Notification Status answer")
        return TestNotificationStatus(signedPayload: try ServerAPIAnswer.field { try answer.string("signedPayload") },
                                      sendAttempts: try Self.sendAttempts(answer), attempts: loop.attempts)
    }

    /// Sets (or replaces) the app account token of a purchase at Apple, so later transactions and
    /// notifications of that original carry it.
    public func setAppAccountToken(originalTransactionId: String, token: String, environment: Environment) async throws -> [AppStoreAttempt] {
        let id = try Self.identifier(originalTransactionId, "original transaction id")
        guard let uuid = UUID(uuidString: token) else {
            throw AppStoreError(.configuration, "app account token '\(token.prefix(40))' is not a UUID")
        }
        var loop = makeLoop()
        _ = try await send("PUT", "/inApps/v1/transactions/\(id)/appAccountToken", environment, &loop,
                           body: .object([("appAccountToken", .string(uuid.uuidString.lowercased()))]))
        return loop.attempts
    }

    /// Finish Transaction (API 1.20): tells Apple the merchant has finished processing the
    /// transaction (delivered what it bought). No request body; 200 with an empty body, also for
    /// a transaction finished before (Apple is idempotent). Apple's refusals keep their names:
    /// 4040010 `transactionIdNotFound` (unknown in this environment), 4000006 `invalidTransactionId`.
    public func finishTransaction(transactionId: String, environment: Environment) async throws -> [AppStoreAttempt] {
        let id = try Self.identifier(transactionId, "transaction id")
        var loop = makeLoop()
        _ = try await send("POST", "/inApps/v1/transactions/\(id)/finish", environment, &loop)
        return loop.attempts
    }

    // MARK: Checks

    static func checkExtension(days: Int, requestIdentifier: String) throws {
        guard (1...maxExtensionDays).contains(days) else {
            throw AppStoreError(.configuration, "an extension is 1–\(maxExtensionDays) days; \(days) is not")
        }
        guard UUID(uuidString: requestIdentifier) != nil else {
            throw AppStoreError(.configuration, "request identifier '\(requestIdentifier.prefix(40))' is not a UUID")
        }
    }

    /// Product ids: 1–128 characters of letters, digits, '.', '-' and '_'.
    static func productIdentifier(_ productId: String) throws {
        guard (1...128).contains(productId.utf8.count),
              productId.utf8.allSatisfy({ [UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_")].contains($0) || (0x30...0x39).contains($0)
                  || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
            throw AppStoreError(.configuration, "product id '\(productId.prefix(60))' is not 1–128 letters, digits, '.', '-' or '_'")
        }
    }

    static func percentEncodedSegment(_ text: String) -> String { AppStoreEndpoints.percentEncoded(text) }

    /// `sendAttempts` of a history item or test status.
    static func sendAttempts(_ object: JSONObject) throws -> [NotificationSendAttempt] {
        try ServerAPIAnswer.field { try object.objects("sendAttempts", limit: ServerAPIAnswer.maxItems) }.map { attempt in
            NotificationSendAttempt(attemptDate: try ServerAPIAnswer.field { try attempt.millisecondsDate("attemptDate") },
                                    result: try ServerAPIAnswer.field { try attempt.string("sendAttemptResult") } ?? "unknown")
        }
    }
}
