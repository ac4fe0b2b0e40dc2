import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// Apple's side of a subscription kept from notifications: the state, the one line that says why
/// it stopped, the timeline's events, refund requests, reversed refunds, and the rules an
/// extension is checked against before Apple is asked. Both backends.
@Suite("Subscription state from Apple, on both backends")
struct SubscriptionStateTests {
    static let product = "com.example.pro.monthly"

    func transaction(_ id: String, original: String, bought: String, expires: String) -> TransactionPayload {
        var payload = TransactionPayload(transactionId: id, originalTransactionId: original, bundleId: "com.example.app",
                                         productId: Self.product, type: "Auto-Renewable Subscription",
                                         purchaseDate: LedgerFixture.date(bought), expiresDate: LedgerFixture.date(expires),
                                         signedDate: LedgerFixture.date(bought), environment: "Production")
        payload.price = 9990
        payload.currency = "EUR"
        payload.subscriptionGroupIdentifier = "pro"
        return payload
    }

    func renewal(_ original: String, signed: String, configure: (inout RenewalInfoPayload) -> Void = { _ in }) -> RenewalInfoPayload {
        var info = RenewalInfoPayload(originalTransactionId: original, productId: Self.product, signedDate: LedgerFixture.date(signed),
                                      environment: "Production")
        info.renewalPrice = 9990
        info.currency = "EUR"
        configure(&info)
        return info
    }

    func notify(_ f: BackendLedgerFixture, _ type: String, _ subtype: String? = nil, uuid: String, signed: String, status: Int64?,
                transaction: TransactionPayload, renewal: RenewalInfoPayload? = nil) throws -> NotificationResult {
        let data = NotificationData(bundleId: "com.example.app", environment: "Production", signedTransactionInfo: .payload(transaction),
                                    signedRenewalInfo: renewal.map { .payload($0) }, status: status)
        let payload = NotificationPayload(notificationType: type, subtype: subtype, notificationUUID: uuid,
                                          signedDate: LedgerFixture.date(signed), data: data)
        return try f.ledger.applyNotification(Array(try JWSBuilder(authority: f.authority).notificationBody(payload).utf8), operatorName: "apple")
    }

    func subscriber(_ f: BackendLedgerFixture, _ id: String, customer: String) throws {
        _ = try f.ledger.importArtefact(try f.receipt([LedgerFixture.purchase(id, bought: "2025-05-01T00:00:00Z", expires: "2025-06-01T00:00:00Z")]),
                                        customer: customer, source: "test", operatorName: "mei")
    }

    @Test(arguments: TestBackend.available) func billingRetryThenGracePeriodEndThenExpiryTellWhyItStopped(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-06-20T00:00:00Z")
        try subscriber(f, "7100", customer: "ana")
        let first = transaction("7100", original: "7100", bought: "2025-05-01T00:00:00Z", expires: "2025-06-01T00:00:00Z")
        _ = try notify(f, "DID_FAIL_TO_RENEW", "GRACE_PERIOD", uuid: "u1", signed: "2025-06-01T00:00:00Z", status: 4, transaction: first,
                       renewal: renewal("7100", signed: "2025-06-01T00:00:00Z") {
                           $0.isInBillingRetryPeriod = true
                           $0.gracePeriodExpiresDate = LedgerFixture.date("2025-06-17T00:00:00Z")
                       })
        var state = try #require(try f.ledger.subscriptionState(original: "7100"))
        #expect(state.status == 4 && state.customerId == "ana")
        #expect(SubscriptionStory.line(state) == "billing problem since 2025-06-01: in the grace period until 2025-06-17, access continues while Apple retries the payment")
        _ = try notify(f, "GRACE_PERIOD_EXPIRED", uuid: "u2", signed: "2025-06-17T00:00:00Z", status: 3, transaction: first,
                       renewal: renewal("7100", signed: "2025-06-17T00:00:00Z") {
                           $0.isInBillingRetryPeriod = true
                           $0.gracePeriodExpiresDate = LedgerFixture.date("2025-06-17T00:00:00Z")
                       })
        state = try #require(try f.ledger.subscriptionState(original: "7100"))
        #expect(SubscriptionStory.line(state) == "in billing retry since 2025-06-01: Apple is retrying the payment, no access, grace period ended 2025-06-17")
        _ = try notify(f, "EXPIRED", "BILLING_RETRY", uuid: "u3", signed: "2025-07-01T00:00:00Z", status: 2, transaction: first,
                       renewal: renewal("7100", signed: "2025-07-01T00:00:00Z") {
                           $0.autoRenewStatus = 0
                           $0.expirationIntent = 2
                           $0.isInBillingRetryPeriod = false
                       })
        state = try #require(try f.ledger.subscriptionState(original: "7100"))
        #expect(SubscriptionStory.line(state) == "expired 2025-06-01: billing retry failed since 2025-06-01, grace period ended 2025-06-17")
        #expect(state.renewalPrice == 9990 && AppleMoney.format(state.renewalPrice, currency: state.currency) == "9.99 EUR")
        let kinds = try f.ledger.subscriptionEvents(of: "ana").map(\.kind)
        #expect(kinds == ["grace period", "grace period ended", "expired"])
        // An older notification arriving late adds its event but does not roll the state back.
        _ = try notify(f, "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED", uuid: "u0", signed: "2025-05-20T00:00:00Z", status: 1,
                       transaction: first, renewal: renewal("7100", signed: "2025-05-20T00:00:00Z"))
        #expect(try f.ledger.subscriptionState(original: "7100")?.status == 2)
        #expect(try f.ledger.subscriptionEvents(of: "ana").first?.kind == "auto-renew on")
    }

    @Test(arguments: TestBackend.available) func activeStatesSayWhatHappensNext(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-05-10T00:00:00Z")
        try subscriber(f, "7200", customer: "ben")
        let first = transaction("7200", original: "7200", bought: "2025-05-01T00:00:00Z", expires: "2025-06-01T00:00:00Z")
        _ = try notify(f, "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", uuid: "v1", signed: "2025-05-05T00:00:00Z", status: 1,
                       transaction: first, renewal: renewal("7200", signed: "2025-05-05T00:00:00Z") { $0.autoRenewStatus = 0 })
        #expect(SubscriptionStory.line(try #require(try f.ledger.subscriptionState(original: "7200")))
                == "active until 2025-06-01, will not renew: auto-renew is off")
        _ = try notify(f, "PRICE_INCREASE", "PENDING", uuid: "v2", signed: "2025-05-06T00:00:00Z", status: 1, transaction: first,
                       renewal: renewal("7200", signed: "2025-05-06T00:00:00Z") {
                           $0.priceIncreaseStatus = 0
                           $0.renewalPrice = 12990
                           $0.renewalDate = LedgerFixture.date("2025-06-01T00:00:00Z")
                       })
        #expect(SubscriptionStory.line(try #require(try f.ledger.subscriptionState(original: "7200")))
                == "active, renews 2025-06-01 at 12.99 EUR; price increase awaiting the customer's consent")
    }

    @Test(arguments: TestBackend.available) func consumptionRequestOpensARefundRequestThatTheRefundCloses(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-05-10T06:00:00Z")
        try subscriber(f, "7300", customer: "cho")
        let first = transaction("7300", original: "7300", bought: "2025-05-01T00:00:00Z", expires: "2025-06-01T00:00:00Z")
        _ = try notify(f, "CONSUMPTION_REQUEST", uuid: "w1", signed: "2025-05-10T00:00:00Z", status: 1, transaction: first)
        let open = try #require(try f.ledger.refundRequests().first)
        #expect(open.status == .open && open.customerId == "cho" && open.transactionId == "7300")
        #expect(open.deadline == LedgerFixture.date("2025-05-10T12:00:00Z"))
        #expect(open.timing(at: f.now) == "due in 6h 0m")
        #expect(open.timing(at: LedgerFixture.date("2025-05-10T13:30:00Z")) == "OVERDUE by 1h 30m")
        let draft = try f.ledger.consumptionDraft(open.requestId)
        #expect(draft.information.consumptionStatus == 2, "the paid period is under way")
        #expect(draft.information.deliveryStatus == 0 && !draft.information.customerConsented)
        // Version 2 by default: the share of the paid period gone by (9.25 of 31 days), with where it came from.
        #expect(draft.information.version == 2 && draft.information.consumptionPercentage == 29_839, "\(draft.information)")
        #expect(draft.lines.contains { $0.hasPrefix("consumptionPercentage 29839 29.8 % — 9 of the 31 days paid for (2025-05-01–2025-06-01) have passed") },
                "\(draft.lines)")
        #expect(!draft.lines.contains { $0.hasPrefix("consumptionStatus") }, "version 1's codes are not shown for version 2")
        var refunded = first
        refunded.revocationDate = LedgerFixture.date("2025-05-11T00:00:00Z")
        refunded.revocationReason = 1
        _ = try notify(f, "REFUND", uuid: "w2", signed: "2025-05-11T00:00:00Z", status: 5, transaction: refunded)
        #expect(try f.ledger.refundRequests().isEmpty)
        #expect(try f.ledger.refundRequests(all: true).first?.status == .refunded)
        let state = try #require(try f.ledger.subscriptionState(original: "7300"))
        #expect(SubscriptionStory.line(state) == "revoked 2025-05-11: refunded: an issue with the purchase; 1 refund")
        // Apple reverses the refund: the transaction grants again.
        _ = try notify(f, "REFUND_REVERSED", uuid: "w3", signed: "2025-05-12T00:00:00Z", status: 1, transaction: first)
        #expect(try f.ledger.transaction("7300")?.revocationDate == nil)
        f.now = LedgerFixture.date("2025-05-12T01:00:00Z")
        #expect(try f.ledger.entitlements("cho", now: f.now).first { $0.name == "pro" }?.isActive == true)
        #expect(try f.ledger.subscriptionEvents(of: "cho").map(\.kind) == ["refund requested", "refund", "refund reversed"])
    }

    /// Apple's reason for the request is kept and shown; a config that asks for version 1 gets
    /// version 1's draft, every coded field with where it came from.
    @Test(arguments: TestBackend.available) func theCustomersReasonIsKeptAndVersion1StaysAvailable(_ backend: TestBackend) throws {
        var configuration = LedgerFixture.configuration
        configuration.appStore.consumptionVersion = 1
        let f = try BackendLedgerFixture(backend, configuration: configuration, now: "2025-05-10T06:00:00Z")
        try subscriber(f, "7350", customer: "dee")
        let first = transaction("7350", original: "7350", bought: "2025-05-01T00:00:00Z", expires: "2025-06-01T00:00:00Z")
        var data = NotificationData(bundleId: "com.example.app", environment: "Production", signedTransactionInfo: .payload(first), status: 1)
        data.consumptionRequestReason = "UNINTENDED_PURCHASE"
        let payload = NotificationPayload(notificationType: "CONSUMPTION_REQUEST", subtype: nil, notificationUUID: "r1",
                                          signedDate: LedgerFixture.date("2025-05-10T00:00:00Z"), data: data)
        _ = try f.ledger.applyNotification(Array(try JWSBuilder(authority: f.authority).notificationBody(payload).utf8), operatorName: "apple")
        let open = try #require(try f.ledger.refundRequests().first)
        #expect(open.requestReason == "UNINTENDED_PURCHASE")
        #expect(RefundRequest.reasonWords("UNINTENDED_PURCHASE") == "did not mean to buy it (UNINTENDED_PURCHASE)")
        let draft = try f.ledger.consumptionDraft(open.requestId)
        #expect(draft.lines.first?.hasSuffix("(the customer's reason: did not mean to buy it (UNINTENDED_PURCHASE))") == true, "\(draft.lines)")
        #expect(draft.information.version == 1 && draft.information.codedFields.count == 9)
        #expect(draft.lines.contains { $0.hasPrefix("consumptionStatus 2 partially consumed — the paid period 2025-05-01–2025-06-01") })
        #expect(!draft.lines.contains { $0.hasPrefix("consumptionPercentage") })
    }

    @Test(arguments: TestBackend.available) func extensionPlansFollowApplesRules(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-05-10T00:00:00Z")
        try subscriber(f, "7400", customer: "dia")
        #expect(throws: StoreError.self) { try f.ledger.planRenewalExtension(original: "7400", days: 91, reasonCode: .serviceIssueOrOutage) }
        #expect(throws: StoreError.self) { try f.ledger.planRenewalExtension(original: "7400", days: 0, reasonCode: .serviceIssueOrOutage) }
        #expect(throws: StoreError.self) { try f.ledger.planRenewalExtension(original: "nope", days: 5, reasonCode: .other) }
        let plan = try f.ledger.planRenewalExtension(original: "7400", days: 30, reasonCode: .customerSatisfaction)
        #expect(plan.customerId == "dia" && plan.environment == .production && !plan.isRetry)
        #expect(plan.expectedExpiry == LedgerFixture.date("2025-07-01T00:00:00Z"))
        #expect(plan.lines.contains("extensions in the last 365 days: 0 of 2"))
        // Two extensions this year: a third is refused before Apple is asked.
        for (index, day) in ["2025-01-10", "2025-03-10"].enumerated() {
            _ = try f.database.execute("""
                INSERT INTO renewal_extensions (request_identifier, original_transaction_id, customer_id, days, reason_code, requested_at,
                                                operator, reason, outcome)
                VALUES (?, '7400', 'dia', 10, 3, ?, 'mei', 'outage', 'extended')
                """, [.text("00000000-0000-4000-8000-00000000000\(index)"), .text("\(day)T00:00:00.000Z")])
        }
        #expect {
            try f.ledger.planRenewalExtension(original: "7400", days: 5, reasonCode: .serviceIssueOrOutage)
        } throws: { error in
            "\(error)".contains("already extended twice in the last 365 days (2025-01-10 and 2025-03-10)")
        }
        // An expired subscription is not extended.
        f.now = LedgerFixture.date("2025-07-01T00:00:00Z")
        _ = try f.database.execute("DELETE FROM renewal_extensions", [])
        #expect {
            try f.ledger.planRenewalExtension(original: "7400", days: 5, reasonCode: .serviceIssueOrOutage)
        } throws: { error in
            "\(error)".contains("Apple extends only active subscriptions")
        }
    }

    @Test(arguments: TestBackend.available) func aRenewalExtensionSummaryCompletesItsMassExtension(_ backend: TestBackend) throws {
        let f = try BackendLedgerFixture(backend, now: "2025-05-10T00:00:00Z")
        let request = "5b3d7a60-0f55-4b3e-9a53-1f2a3b4c5d6e"
        _ = try f.database.execute("""
            INSERT INTO mass_extensions (request_identifier, product_id, environment, days, reason_code, storefronts, requested_at,
                                         operator, reason, status)
            VALUES (?, ?, 'Production', 3, 3, '', '2025-05-09T00:00:00.000Z', 'mei', 'outage', 'requested')
            """, [.text(request), .text(Self.product)])
        var payload = NotificationPayload(notificationType: "RENEWAL_EXTENSION", subtype: "SUMMARY", notificationUUID: "s1",
                                          signedDate: LedgerFixture.date("2025-05-09T06:00:00Z"), data: nil)
        payload.extraMembers = [("summary", .object([
            ("requestIdentifier", .string(request.uppercased())), ("environment", .string("Production")), ("appAppleId", .int(1)),
            ("bundleId", .string("com.example.app")), ("productId", .string(Self.product)), ("storefrontCountryCodes", .array([])),
            ("failedCount", .int(2)), ("succeededCount", .int(30)),
        ]))]
        let result = try f.ledger.applyNotification(Array(try JWSBuilder(authority: f.authority).notificationBody(payload).utf8), operatorName: "apple")
        #expect(result.applied && result.outcome == "recorded (no transaction in it)", "\(result.outcome)")
        let record = try #require(try f.ledger.massExtension(request))
        #expect(record.status == "complete" && record.succeeded == 30 && record.failed == 2, "\(record)")
        #expect(record.progress == "complete: 30 extended, 2 failed")
    }
}
