import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// The demo's customers in every subscription state, delivered as notifications.
@Suite("Demo subscription states")
struct DemoSubscriptionStatesTests {
    @Test("the demo notifies every state, leaves one refund request pending inside its 12 hours, and statuses 1–5 all occur")
    func states() throws {
        let state = SimulatorState(authority: try TestCertificateAuthority.shared(), bundleId: DemoCatalogue.bundleId)
        var scenario = DemoScenario(state: state, now: SimulatorFixture.now, seed: 7)
        let events = try scenario.build(customers: 20)
        let notified = try events.compactMap { event -> ServerNotification? in
            guard case .notify(let body) = event else { return nil }
            let object = try JSONObject(parsing: body, what: "notification body")
            return try ServerNotification(compactJWS: try #require(try object.string("signedPayload")))
        }
        let kinds = Set(notified.map { "\($0.notificationType ?? "")/\($0.subtype ?? "")" })
        for kind in ["DID_FAIL_TO_RENEW/", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "GRACE_PERIOD_EXPIRED/", "EXPIRED/VOLUNTARY", "EXPIRED/BILLING_RETRY",
                     "EXPIRED/PRICE_INCREASE", "EXPIRED/PRODUCT_NOT_FOR_SALE", "REVOKE/", "REFUND/", "REFUND_DECLINED/", "REFUND_REVERSED/",
                     "PRICE_INCREASE/PENDING", "OFFER_REDEEMED/", "RENEWAL_EXTENDED/", "CONSUMPTION_REQUEST/",
                     "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "DID_CHANGE_RENEWAL_PREF/UPGRADE"] {
            #expect(kinds.contains(kind), "\(kind)")
        }
        let request = try #require(notified.first { $0.notificationType == "CONSUMPTION_REQUEST" })
        let id = try #require(request.transaction?.purchase.transactionId)
        let asked = try #require(state.pendingConsumptionRequest(transactionId: id))
        #expect(asked < SimulatorFixture.now && asked.addingTimeInterval(12 * 3600) > SimulatorFixture.now)
        let statuses = Set(state.transactions.filter { $0.productType == .autoRenewable }.compactMap { transaction -> Int64? in
            guard let body = try? fixtureStatus(state, transaction.originalTransactionId) else { return nil }  // nil: not a subscription
            return body
        })
        #expect(statuses.isSuperset(of: [1, 2, 3, 4, 5]))
        #expect(events.contains { if case .contact(let customer, _, let email) = $0 { return customer == "cust-state-grace-period" && email.hasSuffix("@example.com") }; return false })

        // Apple's 2024–2026 stories: a prorated refund, a commitment plan renewed into its second
        // period, and a Family Sharing member's own copy of the organiser's purchase.
        #expect(notified.contains { $0.transaction?.purchase.revocationTypeRaw == "REFUND_PRORATED" && $0.transaction?.purchase.revocationPercentage == 40_000 })
        let committed = state.transactions.filter { $0.commitment != nil }
        #expect(committed.contains { $0.commitment?.billingPeriodNumber == 2 && $0.commitment?.totalBillingPeriods == 12 && $0.billingPlanType == "MONTHLY" },
                "\(committed.map { ($0.transactionId, $0.commitment?.billingPeriodNumber) })")
        let shared = try #require(state.transactions.first { $0.inAppOwnershipType == "FAMILY_SHARED" })
        #expect(shared.account == "cust-state-family-member")
        #expect(events.contains { if case .importArtefact(_, let customer, _, _, _) = $0 { return customer == "cust-state-family-member" }; return false })

        let again = SimulatorState(authority: try TestCertificateAuthority.shared(), bundleId: DemoCatalogue.bundleId)
        var replay = DemoScenario(state: again, now: SimulatorFixture.now, seed: 7)
        #expect(try replay.build(customers: 20).count == events.count, "deterministic for a seed")
    }

    /// The status Apple would report for a subscription now, read from a minted notification.
    private func fixtureStatus(_ state: SimulatorState, _ original: String) throws -> Int64? {
        let note = try ServerNotification(compactJWS: try state.mintNotification(type: "TEST_STATUS", transactionId: original,
                                                                                  signedDate: SimulatorFixture.now).signedPayload)
        return note.status
    }
}
