import Foundation
import Testing
@testable import AppStoreAPI
@testable import ReceiptCore

/// The acting endpoints over a scripted transport: method, path, JSON body as Apple documents it,
/// one environment only (never the other by fallback), checks before anything is sent, and
/// Apple's refusals not retried.
@Suite("AppStore: the App Store Server API endpoints that act")
struct AppStoreServerAPIActionTests {
    typealias F = ServerAPIFixtures

    static func body(_ request: HTTPRequest) throws -> JSONObject {
        try JSONObject(parsing: try #require(request.body), what: "request body")
    }

    @Test func extendSendsThePUTAppleDocumentsAndReadsTheAnswer() async throws {
        let transport = ScriptedTransport([ScriptedTransport.json(
            #"{"originalTransactionId":"2000000000000001","webOrderLineItemId":"7","success":true,"effectiveDate":1767225600000}"#)])
        let (client, _) = try F.client(transport)
        let id = "9F1C8B56-5D7A-4C66-9D0E-2B1F0F9A7E11"
        let answer = try await client.extendRenewalDate(originalTransactionId: "2000000000000001", days: 30, reason: .serviceIssueOrOutage,
                                                        requestIdentifier: id, environment: .sandbox)
        #expect(answer.success && answer.effectiveDate == Date(timeIntervalSince1970: 1_767_225_600))
        let request = try #require(transport.requests.first)
        #expect(request.method == "PUT" && request.url.path == "/sandbox/inApps/v1/subscriptions/extend/2000000000000001")
        #expect(request.header("Content-Type") == "application/json" && request.header("Authorization")?.hasPrefix("Bearer ") == true)
        let body = try Self.body(request)
        #expect(try body.int("extendByDays") == 30 && body.int("extendReasonCode") == 3 && body.string("requestIdentifier") == id.lowercased())
        // Apple's rules are checked before anything is sent.
        for days in [0, 91] {
            await #expect(throws: AppStoreError.self) {
                _ = try await client.extendRenewalDate(originalTransactionId: "1", days: days, reason: .other, requestIdentifier: id, environment: .production)
            }
        }
        await #expect(throws: AppStoreError.self) {
            _ = try await client.extendRenewalDate(originalTransactionId: "1", days: 5, reason: .other, requestIdentifier: "nope", environment: .production)
        }
        #expect(transport.requests.count == 1)
    }

    @Test func aRefusalIsNotRetriedAndNeverFallsBackToTheOtherEnvironment() async throws {
        let transport = ScriptedTransport([ScriptedTransport.json(#"{"errorCode":4030005,"errorMessage":"Subscription max extension."}"#, status: 403),
                                           F.notFound()])
        let (client, _) = try F.client(transport)
        let error = await #expect(throws: AppStoreError.self) {
            _ = try await client.extendRenewalDate(originalTransactionId: "1", days: 5, reason: .other,
                                                   requestIdentifier: UUID().uuidString, environment: .production)
        }
        #expect(error?.apiError?.name == "subscriptionMaxExtension" && error?.isTemporary == false)
        let unknown = await #expect(throws: AppStoreError.self) {
            _ = try await client.setAppAccountToken(originalTransactionId: "1", token: UUID().uuidString, environment: .production)
        }
        #expect(unknown?.apiError == .transactionIdNotFound)
        #expect(transport.paths == ["/production/inApps/v1/subscriptions/extend/1", "/production/inApps/v1/transactions/1/appAccountToken"])
    }

    /// Version 2, Apple's since 2025: its path, its five members with names for the codes, the
    /// share consumed in milliunits, and what it refuses before anything is sent.
    @Test func consumptionInformationVersion2IsSentAsApplesLibrarySendsIt() async throws {
        let transport = ScriptedTransport([ScriptedTransport.status(202), ScriptedTransport.status(202)])
        let (client, _) = try F.client(transport)
        var information = ConsumptionInformation(customerConsented: true, consumptionStatus: 2, platform: 1, sampleContentProvided: true,
                                                 deliveryStatus: 3, appAccountToken: "", accountTenure: 3, playTime: 4,
                                                 lifetimeDollarsRefunded: 1, lifetimeDollarsPurchased: 2, userStatus: 1, refundPreference: 4)
        #expect(information.version == 2, "version 2 unless asked otherwise")
        information.consumptionPercentage = 25_000
        _ = try await client.sendConsumptionInformation(transactionId: "2000000000000042", information, environment: .production)
        let body = try Self.body(try #require(transport.requests.first))
        #expect(transport.paths == ["/production/inApps/v2/transactions/consumption/2000000000000042"])
        #expect(try body.bool("customerConsented") == true && body.int("consumptionPercentage") == 25_000)
        #expect(try body.string("deliveryStatus") == "UNDELIVERED_SERVER_OUTAGE" && body.string("refundPreference") == "GRANT_PRORATED")
        #expect(try body.bool("sampleContentProvided") == true)
        #expect(Set(body.values.keys) == ["customerConsented", "consumptionPercentage", "deliveryStatus", "refundPreference", "sampleContentProvided"],
                "version 1's members are not sent")
        #expect(ConsumptionInformation(json: body) == information.withVersion1FieldsCleared, "read back as kept in the ledger")
        // Unknown share and no preference: both left out.
        information.consumptionPercentage = nil
        information.refundPreference = 3
        _ = try await client.sendConsumptionInformation(transactionId: "2000000000000042", information, environment: .production)
        let second = try Self.body(transport.requests[1])
        #expect(Set(second.values.keys) == ["customerConsented", "deliveryStatus", "sampleContentProvided"])
        var refused = information
        refused.consumptionPercentage = 100_001
        await #expect(throws: AppStoreError.self) { _ = try await client.sendConsumptionInformation(transactionId: "1", refused, environment: .production) }
        #expect(transport.requests.count == 2, "nothing sent for a share over 100 %")
    }

    @Test func massExtensionStatusConsumptionHistoryTestAndToken() async throws {
        let id = "5b3d7a60-0f55-4b3e-9a53-1f2a3b4c5d6e"
        let transport = ScriptedTransport([
            ScriptedTransport.json(#"{"requestIdentifier":"\#(id)"}"#),
            ScriptedTransport.json(#"{"requestIdentifier":"\#(id)","complete":true,"completeDate":1767225600000,"succeededCount":30,"failedCount":2}"#),
            ScriptedTransport.status(202),
            ScriptedTransport.json(#"{"notificationHistory":[{"signedPayload":"a.b.c","sendAttempts":[{"attemptDate":1767225600000,"sendAttemptResult":"TIMED_OUT"}]}],"hasMore":true,"paginationToken":"tok-2"}"#),
            ScriptedTransport.json(#"{"testNotificationToken":"ce3af791-365e-4c60-841b-1674b43c1609_1767225600000"}"#),
            ScriptedTransport.json(#"{"signedPayload":"a.b.c","sendAttempts":[{"attemptDate":1767225600000,"sendAttemptResult":"SUCCESS"}]}"#),
            ScriptedTransport.status(200),
        ])
        let (client, _) = try F.client(transport)
        _ = try await client.massExtendRenewalDate(productId: "pro.monthly", days: 7, reason: .serviceIssueOrOutage, requestIdentifier: id,
                                                   storefrontCountryCodes: ["USA"], environment: .production)
        let status = try await client.massExtensionStatus(productId: "pro.monthly", requestIdentifier: id, environment: .production)
        #expect(status.complete && status.succeededCount == 30 && status.failedCount == 2)
        var information = ConsumptionInformation(customerConsented: true, consumptionStatus: 2, platform: 1, sampleContentProvided: false,
                                                 deliveryStatus: 0, appAccountToken: "", accountTenure: 3, playTime: 4,
                                                 lifetimeDollarsRefunded: 1, lifetimeDollarsPurchased: 2, userStatus: 1, refundPreference: 2)
        information.version = 1  // the deprecated version, where a config still asks for it (version 2 below)
        _ = try await client.sendConsumptionInformation(transactionId: "2000000000000042", information, environment: .production)
        let page = try await client.notificationHistory(NotificationHistoryQuery(startDate: F.now.addingTimeInterval(-86_400), endDate: F.now),
                                                        paginationToken: nil, environment: .production)
        #expect(page.hasMore && page.paginationToken == "tok-2" && page.items.first?.sendAttempts.first?.result == "TIMED_OUT")
        let test = try await client.requestTestNotification(environment: .production)
        let delivered = try await client.testNotificationStatus(token: test.token, environment: .production)
        #expect(delivered.lastResult == "SUCCESS")
        _ = try await client.setAppAccountToken(originalTransactionId: "2000000000000001", token: "7E3FB20B-4CDB-47CC-936D-99D65F608138",
                                                environment: .production)
        let requests = transport.requests
        #expect(requests.map { "\($0.method) \($0.url.path)" } == [
            "POST /production/inApps/v1/subscriptions/extend/mass",
            "GET /production/inApps/v1/subscriptions/extend/mass/pro.monthly/\(id)",
            "PUT /production/inApps/v1/transactions/consumption/2000000000000042",
            "POST /production/inApps/v1/notifications/history",
            "POST /production/inApps/v1/notifications/test",
            "GET /production/inApps/v1/notifications/test/ce3af791-365e-4c60-841b-1674b43c1609_1767225600000",
            "PUT /production/inApps/v1/transactions/2000000000000001/appAccountToken",
        ])
        let mass = try Self.body(requests[0])
        #expect(try mass.string("productId") == "pro.monthly" && mass.int("extendByDays") == 7)
        let consumption = try Self.body(requests[2])
        #expect(try consumption.bool("customerConsented") == true && consumption.int("refundPreference") == 2 && consumption.string("appAccountToken") == "")
        #expect(try consumption.int("playTime") == 4 && consumption.int("lifetimeDollarsPurchased") == 2 && consumption.bool("sampleContentProvided") == false)
        let history = try Self.body(requests[3])
        #expect(try history.int("startDate") == Int64(F.now.addingTimeInterval(-86_400).timeIntervalSince1970 * 1000))
        #expect(try Self.body(requests[6]).string("appAccountToken") == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        // Without consent, or with a code out of range, nothing is sent.
        var refused = information
        refused.customerConsented = false
        await #expect(throws: AppStoreError.self) { _ = try await client.sendConsumptionInformation(transactionId: "1", refused, environment: .production) }
        refused = information
        refused.refundPreference = 4  // a prorated refund exists in version 2 only
        await #expect(throws: AppStoreError.self) { _ = try await client.sendConsumptionInformation(transactionId: "1", refused, environment: .production) }
        refused = information
        refused.deliveryStatus = 6
        await #expect(throws: AppStoreError.self) { _ = try await client.sendConsumptionInformation(transactionId: "1", refused, environment: .production) }
        #expect(transport.requests.count == 7)
    }
}

extension ConsumptionInformation {
    /// What version 2 keeps: its own members; version 1's codes back to 0 (refund preference
    /// 3, "no preference", is left out and reads back as 0).
    var withVersion1FieldsCleared: ConsumptionInformation {
        var copy = ConsumptionInformation(customerConsented: customerConsented, consumptionStatus: 0, platform: 0,
                                          sampleContentProvided: sampleContentProvided, deliveryStatus: deliveryStatus, appAccountToken: "",
                                          accountTenure: 0, playTime: 0, lifetimeDollarsRefunded: 0, lifetimeDollarsPurchased: 0, userStatus: 0,
                                          refundPreference: ConsumptionInformation.refundPreferenceNames[refundPreference] == nil ? 0 : refundPreference)
        copy.consumptionPercentage = consumptionPercentage
        return copy
    }
}
