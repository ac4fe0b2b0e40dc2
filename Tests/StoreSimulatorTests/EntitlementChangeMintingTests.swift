import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// The simulator mints what changes an entitlement as Apple signs it: a prorated refund, a
/// family member's own copy and its revocation, an upgrade and a downgrade, a commitment plan.
@Suite("Simulator entitlement changes")
struct EntitlementChangeMintingTests {
    @Test("a prorated refund is REFUND with revocationType REFUND_PRORATED and the share in milliunits")
    func proratedRefund() throws {
        let fixture = try SimulatorFixture()
        let bought = try fixture.activeSubscription()
        let refund = try fixture.verifiedNotification(try fixture.state.refundProratedAndNotify(
            transactionId: bought.transactionId, date: SimulatorFixture.day(-2), percentage: 26_667).signedPayload)
        #expect(refund.notificationType == "REFUND")
        let p = try #require(refund.transaction?.purchase)
        #expect(p.revocationType == .refundProrated && p.revocationPercentage == 26_667)
        #expect(p.revocationDate == SimulatorFixture.day(-2))
    }

    @Test("a family member's copy has its own transaction id and the organiser's original; its revocation is FAMILY_REVOKE")
    func familySharing() throws {
        let fixture = try SimulatorFixture()
        let bought = try fixture.activeSubscription()
        let member = try fixture.state.shareWithFamily(transactionId: bought.transactionId, account: "family-member")
        #expect(member.transactionId != bought.transactionId && member.originalTransactionId == bought.originalTransactionId)
        let signed = try SignedTransaction(compactJWS: try JWSBuilder(authority: fixture.state.authority)
            .signedTransaction(member.payload(signedDate: SimulatorFixture.now)))
        #expect(signed.purchase.ownership == .familyShared)
        let revoke = try fixture.verifiedNotification(try fixture.state.revokeFamilySharing(
            transactionId: member.transactionId, date: SimulatorFixture.day(-1)).signedPayload)
        #expect(revoke.notificationType == "REVOKE")
        #expect(revoke.transaction?.purchase.revocationType == .familyRevoke)
        #expect(revoke.transaction?.purchase.transactionId == member.transactionId)
        #expect(fixture.state.transaction(bought.transactionId)?.isRevoked == false, "the organiser's purchase stays")
    }

    @Test("an upgrade marks the old period isUpgraded, ended at the upgrade; a downgrade shows in the renewal info")
    func upgradeAndDowngrade() throws {
        let fixture = try SimulatorFixture()
        let bought = try fixture.activeSubscription()
        let at = SimulatorFixture.day(-3)
        let upgrade = try fixture.verifiedNotification(try fixture.state.changeRenewalPreference(
            originalTransactionId: bought.originalTransactionId, to: "pro.yearly", upgrade: true, date: at).signedPayload)
        #expect(upgrade.notificationType == "DID_CHANGE_RENEWAL_PREF" && upgrade.subtype == "UPGRADE")
        #expect(upgrade.transaction?.purchase.productId == "pro.yearly" && upgrade.transaction?.purchase.purchaseDate == at)
        let old = try #require(fixture.state.transaction(bought.transactionId))
        let oldSigned = try SignedTransaction(compactJWS: try JWSBuilder(authority: fixture.state.authority).signedTransaction(old.payload(signedDate: at)))
        #expect(oldSigned.purchase.isUpgraded == true && oldSigned.purchase.revocationDate == at)
        #expect(oldSigned.purchase.revocationReason == nil && oldSigned.purchase.revocationTypeRaw == nil)

        let down = try fixture.verifiedNotification(try fixture.state.changeRenewalPreference(
            originalTransactionId: bought.originalTransactionId, to: "pro.monthly", upgrade: false, date: SimulatorFixture.day(-1)).signedPayload)
        #expect(down.subtype == "DOWNGRADE" && down.renewalInfo?.autoRenewProductId == "pro.monthly")
        #expect(down.renewalInfo?.productId == "pro.yearly" && down.renewalInfo?.changesProductAtRenewal == true)

        var again = SimulatorFixture.monthly(old.purchaseDate)
        again.transactionId = bought.transactionId  // the receipt the customer's device held before the upgrade
        let answer = try fixture.verify(.sandbox, body: SimulatorFixture.body(try fixture.state.mintUnifiedReceipt(
            environment: .sandbox, purchases: [again], account: old.account).base64))
        let entry = try #require(try answer.objects("latest_receipt_info").first { try $0.string("transaction_id") == bought.transactionId })
        #expect(try entry.bool("is_upgraded") == true)
    }

    @Test("a commitment plan's billingPlanType and commitmentInfo are signed as Apple's sample shapes them")
    func commitment() throws {
        let fixture = try SimulatorFixture()
        let bought = try fixture.activeSubscription()
        let ends = SimulatorFixture.day(355)
        try fixture.state.setCommitment(transactionId: bought.transactionId, billingPlanType: "MONTHLY",
                                        commitment: .init(billingPeriodNumber: 1, totalBillingPeriods: 12, commitmentPrice: 119_880,
                                                          commitmentExpiresDate: ends))
        let issued = try #require(fixture.state.transaction(bought.transactionId))
        let payload = issued.payload(signedDate: SimulatorFixture.now)
        let info = try #require(payload.json.serialized().range(of: #""commitmentInfo":{"billingPeriodNumber":1,"#))
        #expect(!info.isEmpty)
        let signed = try SignedTransaction(compactJWS: try JWSBuilder(authority: fixture.state.authority).signedTransaction(payload))
        #expect(signed.purchase.billingPlanType == .monthly)
        #expect(signed.purchase.commitment == TransactionCommitment(billingPeriodNumber: 1, totalBillingPeriods: 12,
                                                                     commitmentPrice: 119_880, commitmentExpiresDate: ends))

        var renewal = RenewalInfoPayload(originalTransactionId: bought.originalTransactionId, productId: "pro.monthly", signedDate: SimulatorFixture.now)
        renewal.renewalBillingPlanType = "MONTHLY"
        renewal.commitmentInfo = RenewalCommitment(autoRenewProductId: "pro.monthly", autoRenewStatus: 1, renewalBillingPlanTypeRaw: "MONTHLY",
                                                   renewalDate: ends, renewalPrice: 9_990)
        let decoded = try RenewalInfo(compactJWS: try JWSBuilder(authority: fixture.state.authority).signedRenewalInfo(renewal))
        #expect(decoded.renewalBillingPlanType == .monthly && decoded.commitment?.renewalPrice == 9_990 && decoded.commitment?.renewalDate == ends)
    }
}
