import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// What changes an entitlement, through the ledger on both backends: a prorated refund keeps the
/// unrefunded part, a family revoke ends only the member's copy, a family member's copy is no
/// conflict and no double count, an upgrade ends the old period at once, a commitment plan is
/// kept with the subscription's state and told in its story.
@Suite("Entitlement changes in the ledger")
struct EntitlementChangeLedgerTests {
    static func day(_ n: Double) -> Date { LedgerFixture.date("2025-01-01T00:00:00Z").addingTimeInterval(n * 86_400) }
    static let configuration: StoreConfiguration = {
        var c = LedgerFixture.configuration
        c.products["com.example.pro.yearly"] = CatalogueProduct(entitlement: "pro", type: .autoRenewable)
        c.products["com.example.basic.monthly"] = CatalogueProduct(entitlement: "basic", type: .autoRenewable)
        return c
    }()

    /// A fixture, the simulator, and `customer`'s monthly subscription bought on day 0 (30 days).
    static func subscribed(_ backend: TestBackend, customer: String = "eva", product: String = "com.example.pro.monthly")
        throws -> (BackendLedgerFixture, SimulatorState, IssuedTransaction) {
        let f = try BackendLedgerFixture(backend, configuration: configuration, now: "2025-01-01T00:00:00Z")
        let state = SimulatorState(authority: f.authority, bundleId: "com.example.app")
        var purchase = SimulatedPurchase(productId: product, type: .autoRenewable, purchaseDate: day(0), expiresDate: day(30))
        purchase.price = 9_990
        purchase.currency = "USD"
        let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [purchase], account: customer, originalAppVersion: "50")
        _ = try f.ledger.importArtefact(Array(receipt.base64.utf8), customer: customer, source: "test", operatorName: "mei")
        return (f, state, try #require(receipt.transactions.first))
    }

    static func apply(_ f: BackendLedgerFixture, _ minted: MintedNotification, at day: Double) throws -> NotificationResult {
        f.now = Self.day(day)
        return try f.ledger.applyNotification(Array(minted.body.utf8), operatorName: "apple")
    }

    static func entitlement(_ f: BackendLedgerFixture, _ customer: String, _ name: String = "pro") throws -> EntitlementState? {
        try f.ledger.entitlements(customer, now: f.now).first { $0.name == name }
    }

    @Test(arguments: TestBackend.available) func proratedRefundKeepsTheUnrefundedPart(_ backend: TestBackend) throws {
        let (f, state, bought) = try Self.subscribed(backend)
        let result = try Self.apply(f, try state.refundProratedAndNotify(transactionId: bought.transactionId, date: Self.day(18), percentage: 40_000), at: 18)
        #expect(result.changes.map(\.detail) == ["refunded 2025-01-19T00:00:00Z (prorated refund 40%)"])
        let row = try #require(try f.ledger.transaction(bought.transactionId))
        #expect(row.revocationType == "REFUND_PRORATED" && row.revocationPercentage == 40_000)
        #expect(row.revocationWords == "prorated refund 40%")
        // 60% of 30 days: access to day 18, whatever day Apple refunded.
        f.now = Self.day(17)
        let held = try #require(try Self.entitlement(f, "eva"))
        #expect(held.isActive && held.ends == Self.day(18), "\(held.reason)")
        f.now = Self.day(20)
        let ended = try #require(try Self.entitlement(f, "eva"))
        #expect(!ended.isActive)
        #expect(ended.reason.contains("prorated refund 40%") && ended.reason.contains("kept the unrefunded 60% of the period"), "\(ended.reason)")
        let story = try #require(try f.ledger.subscriptionState(original: bought.originalTransactionId))
        #expect(story.terms.revocationType == "REFUND_PRORATED" && story.terms.revocationPercentage == 40_000)
    }

    @Test(arguments: TestBackend.available) func familyMemberCopyIsNoConflictAndItsRevokeEndsOnlyIt(_ backend: TestBackend) throws {
        let (f, state, bought) = try Self.subscribed(backend, customer: "organiser")
        let member = try state.shareWithFamily(transactionId: bought.transactionId, account: "kid")
        let jws = try JWSBuilder(authority: f.authority).signedTransaction(member.payload(signedDate: Self.day(1)))
        f.now = Self.day(1)
        let imported = try f.ledger.importArtefact(Array(jws.utf8), customer: "kid", source: "test", operatorName: "mei")
        #expect(imported.transactions.map(\.outcome) == [.recorded(binding: .unbound, orderId: nil)], "\(imported.transactions)")
        #expect(try f.ledger.conflicts().isEmpty, "one original reaching two family members is no order mix-up")
        let kid = try #require(try Self.entitlement(f, "kid"))
        #expect(kid.isActive && kid.sources.first?.flags.contains("family shared") == true)
        #expect(try f.ledger.transaction(member.transactionId)?.isFamilyShared == true)
        // The organiser paid: the member's copy is no spend of hers, and says so.
        let spend = try f.ledger.lifetimeSpend(of: "kid")
        #expect(spend.amounts.isEmpty && spend.familyShared == 1, "\(spend)")
        #expect(spend.line == "1 purchase shared by a family organiser (paid by them, not counted)", "\(String(describing: spend.line))")

        let revoke = try Self.apply(f, try state.revokeFamilySharing(transactionId: member.transactionId, date: Self.day(5)), at: 5)
        #expect(revoke.customerId == "kid" && revoke.changes.map(\.detail) == ["family sharing revoked 2025-01-06T00:00:00Z"])
        let gone = try #require(try Self.entitlement(f, "kid"))
        #expect(!gone.isActive && gone.reason.contains("the organiser's purchase is untouched"), "\(gone.reason)")
        #expect(try Self.entitlement(f, "organiser")?.isActive == true, "the organiser keeps their purchase")
        #expect(try f.ledger.transaction(bought.transactionId)?.revocationDate == nil)
    }

    @Test(arguments: TestBackend.available) func familyCopyForTheOrganiserCountsOnce(_ backend: TestBackend) throws {
        let (f, state, bought) = try Self.subscribed(backend, customer: "organiser")
        let copy = try state.shareWithFamily(transactionId: bought.transactionId, account: "organiser")
        let jws = try JWSBuilder(authority: f.authority).signedTransaction(copy.payload(signedDate: Self.day(1)))
        f.now = Self.day(1)
        _ = try f.ledger.importArtefact(Array(jws.utf8), customer: "organiser", source: "test", operatorName: "mei")
        #expect(try f.ledger.conflicts().isEmpty)
        let pro = try #require(try Self.entitlement(f, "organiser"))
        #expect(pro.isActive && pro.sources.filter(\.isActive).count == 1, "\(pro.sources.map(\.reason))")
        #expect(pro.sources.contains { $0.transactionId == copy.transactionId && $0.reason.contains("counted once") })
        // Another member's copy Apple tells about is not given to the organiser by its original.
        let other = try state.shareWithFamily(transactionId: bought.transactionId, account: "cousin")
        let told = try Self.apply(f, try state.revokeFamilySharing(transactionId: other.transactionId, date: Self.day(2)), at: 2)
        #expect(told.customerId == nil && told.outcome.hasPrefix("unmatched"), "\(told.outcome)")
        #expect(try f.ledger.transaction(other.transactionId) == nil)
    }

    @Test(arguments: TestBackend.available) func upgradeEndsTheOldPeriodAtOnce(_ backend: TestBackend) throws {
        let (f, state, bought) = try Self.subscribed(backend, product: "com.example.basic.monthly")
        let result = try Self.apply(f, try state.changeRenewalPreference(originalTransactionId: bought.originalTransactionId,
                                                                       to: "com.example.pro.yearly", upgrade: true, date: Self.day(10)), at: 10)
        #expect(result.changes.map(\.kind) == [.added, .upgraded], "\(result.changes)")
        let old = try #require(try f.ledger.transaction(bought.transactionId))
        #expect(old.isUpgraded == true && old.revocationDate == Self.day(10) && old.revocationWords == "upgraded")
        f.now = Self.day(11)
        let basic = try #require(try Self.entitlement(f, "eva", "basic"))
        #expect(!basic.isActive && basic.reason.hasPrefix("basic upgraded to com.example.pro.yearly on 2025-01-11"), "\(basic.reason)")
        #expect(try Self.entitlement(f, "eva")?.isActive == true)
        #expect(try f.ledger.subscriptionEvents(of: "eva").last?.detail.hasPrefix("upgraded to com.example.pro.yearly") == true)
    }

    @Test(arguments: TestBackend.available) func commitmentPlanIsKeptAndTold(_ backend: TestBackend) throws {
        let (f, state, bought) = try Self.subscribed(backend)
        try state.setCommitment(transactionId: bought.transactionId, billingPlanType: "MONTHLY",
                                commitment: .init(billingPeriodNumber: 1, totalBillingPeriods: 12, commitmentPrice: 119_880,
                                                  commitmentExpiresDate: Self.day(360)))
        _ = try Self.apply(f, try state.setAutoRenew(originalTransactionId: bought.originalTransactionId, enabled: false, date: Self.day(3)), at: 3)
        let s = try #require(try f.ledger.subscriptionState(original: bought.originalTransactionId))
        #expect(s.terms.billingPlanType == "MONTHLY" && s.terms.commitment?.periodsLeft == 11)
        let line = SubscriptionStory.line(s, now: Self.day(3))
        #expect(line.contains("billed monthly at 9.99 USD a month, period 1 of 12, 11 left, commitment ends 2025-12-27, commitment price 119.88 USD"), "\(line)")
    }
}
