@testable import ConsoleUI
import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// Apple's side for the console fixture, from signed notifications (the StoreSimulator's test CA
/// signs them): alice's monthly subscription renewed in May, then its renewal payment failed on
/// 2025-06-01 (grace period until 06-17); two refund requests, one due at 14:00 (2 h after the
/// fixture's noon), one overdue since 08:00.
extension ConsoleFixture {
    static let original = "1000000359369424"
    static let renewalId = "1000000359369700"

    func transactionPayload(_ id: String, bought: String, expires: String) -> TransactionPayload {
        var payload = TransactionPayload(transactionId: id, originalTransactionId: Self.original, bundleId: "com.example.app",
                                         productId: "com.example.pro.monthly", type: "Auto-Renewable Subscription",
                                         purchaseDate: Self.date(bought), expiresDate: Self.date(expires), signedDate: Self.date(bought),
                                         environment: "Production")
        payload.price = 9990
        payload.currency = "EUR"
        payload.storefront = "DEU"
        payload.subscriptionGroupIdentifier = "pro"
        return payload
    }

    func renewalPayload(signed: String, configure: (inout RenewalInfoPayload) -> Void = { _ in }) -> RenewalInfoPayload {
        var info = RenewalInfoPayload(originalTransactionId: Self.original, productId: "com.example.pro.monthly", signedDate: Self.date(signed),
                                      environment: "Production")
        info.renewalPrice = 12990
        info.currency = "EUR"
        info.autoRenewStatus = 1
        configure(&info)
        return info
    }

    /// A signed notification as Apple would post it.
    func notificationBody(_ type: String, _ subtype: String? = nil, uuid: String, signed: String, status: Int64?,
                          transaction: TransactionPayload, renewal: RenewalInfoPayload? = nil) throws -> String {
        let data = NotificationData(bundleId: "com.example.app", environment: "Production", signedTransactionInfo: .payload(transaction),
                                    signedRenewalInfo: renewal.map { .payload($0) }, status: status)
        let payload = NotificationPayload(notificationType: type, subtype: subtype, notificationUUID: uuid, signedDate: Self.date(signed), data: data)
        return try JWSBuilder(authority: authority).notificationBody(payload)
    }

    /// The signed JWS of a notification (what Get Notification History lists).
    func signedNotification(_ type: String, uuid: String, signed: String, transaction: TransactionPayload) throws -> String {
        let data = NotificationData(bundleId: "com.example.app", environment: "Production", signedTransactionInfo: .payload(transaction),
                                    signedRenewalInfo: nil, status: 1)
        return try JWSBuilder(authority: authority).signedNotification(
            NotificationPayload(notificationType: type, subtype: nil, notificationUUID: uuid, signedDate: Self.date(signed), data: data))
    }

    @discardableResult
    func notify(_ type: String, _ subtype: String? = nil, uuid: String, signed: String, status: Int64?, transaction: TransactionPayload,
                renewal: RenewalInfoPayload? = nil) throws -> NotificationResult {
        try ledger.applyNotification(Array(try notificationBody(type, subtype, uuid: uuid, signed: signed, status: status,
                                                                transaction: transaction, renewal: renewal).utf8), operatorName: "apple")
    }

    /// alice's subscription in its grace period, with two refund requests.
    func addAppleSide() throws {
        let renewal = transactionPayload(Self.renewalId, bought: "2025-05-01T00:00:00Z", expires: "2025-06-01T00:00:00Z")
        try notify("DID_RENEW", uuid: "n-renew", signed: "2025-05-01T00:00:00Z", status: 1, transaction: renewal,
                   renewal: renewalPayload(signed: "2025-05-01T00:00:00Z"))
        try notify("DID_FAIL_TO_RENEW", "GRACE_PERIOD", uuid: "n-grace", signed: "2025-06-01T00:00:00Z", status: 4, transaction: renewal,
                   renewal: renewalPayload(signed: "2025-06-01T00:00:00Z") {
                       $0.isInBillingRetryPeriod = true
                       $0.gracePeriodExpiresDate = Self.date("2025-06-17T00:00:00Z")
                   })
        try notify("CONSUMPTION_REQUEST", uuid: "n-refund-due", signed: "2025-06-01T02:00:00Z", status: 4, transaction: renewal)
        let older = transactionPayload("1000000359369425", bought: "2025-03-01T00:00:00Z", expires: "2025-04-01T00:00:00Z")
        try notify("CONSUMPTION_REQUEST", uuid: "n-refund-late", signed: "2025-05-31T20:00:00Z", status: 4, transaction: older)
    }

    /// alice's subscription active again (as Apple would report it after an extension).
    func activeState(expires: String) -> (TransactionPayload, RenewalInfoPayload) {
        (transactionPayload(Self.renewalId, bought: "2025-05-01T00:00:00Z", expires: expires), renewalPayload(signed: "2025-06-01T12:00:00Z"))
    }
}

/// The App Store Server API for console tests, answered from a script over `ScriptedApple`.
enum FakeServerAPI {
    static let production = URL(string: "https://api.storekit.itunes.apple.com") ?? URL(fileURLWithPath: "/")
    static let sandbox = URL(string: "https://api.storekit-sandbox.itunes.apple.com") ?? URL(fileURLWithPath: "/")

    /// An `AppleService` with a Server API client over `transport` (no retries).
    static func service(_ transport: ScriptedApple, _ fixture: ConsoleFixture) throws -> AppleService {
        let credentials = try ServerAPICredentials(keyId: "2X9R4HXF34", issuerId: "57246542-96fe-1a63-e053-0824d011072a",
                                                   bundleId: "com.example.app", privateKey: try PrivateKey.generateP256())
        let verifier = ReceiptVerifier(trust: fixture.authority.trustStore())
        let now = ConsoleFixture.now
        let client = try AppStoreServerAPIClient(productionURL: production, sandboxURL: sandbox, transport: transport, credentials: credentials,
                                                 verifier: verifier, retry: .never, clock: { now })
        return AppleService(api: .serverAPI, verifyReceipt: nil, serverAPI: client, label: "TEST: Apple is scripted")
    }

    static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(value.serialized().utf8))
    }

    static func empty(status: Int = 200) -> HTTPResponse { HTTPResponse(status: status, headers: [:], body: []) }

    static func appleError(_ code: Int64, _ message: String, status: Int = 400) -> HTTPResponse {
        json(.object([("errorCode", .int(code)), ("errorMessage", .string(message))]), status: status)
    }

    /// Get All Subscription Statuses for alice's subscription, signed.
    static func statuses(_ fixture: ConsoleFixture, status: Int64, transaction: TransactionPayload, renewal: RenewalInfoPayload) throws -> HTTPResponse {
        let builder = JWSBuilder(authority: fixture.authority)
        let last = JSONValue.object([("originalTransactionId", .string(ConsoleFixture.original)), ("status", .int(status)),
                                     ("signedTransactionInfo", .string(try builder.signedTransaction(transaction))),
                                     ("signedRenewalInfo", .string(try builder.signedRenewalInfo(renewal)))])
        return json(.object([("environment", .string("Production")), ("bundleId", .string("com.example.app")),
                             ("data", .array([.object([("subscriptionGroupIdentifier", .string("pro")), ("lastTransactions", .array([last]))])]))]))
    }

    /// The JSON body of a request.
    static func body(_ request: HTTPRequest) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(request.body ?? []))) as? [String: Any] ?? [:]  // not JSON: no fields
    }
}
