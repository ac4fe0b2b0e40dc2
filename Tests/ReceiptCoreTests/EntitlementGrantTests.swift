import Foundation
import Testing
@testable import ReceiptCore

private func date(_ text: String) -> Date { EntitlementFixture.date(text) }
private let now = EntitlementFixture.now
private let catalogue = EntitlementFixture.catalogue
private func tx(_ id: String, _ product: String, _ purchased: String, expires: String? = nil, revoked: String? = nil,
                cancelled: String? = nil, environment: Environment = .production, type: ProductType? = nil,
                quantity: Int64 = 1) -> OwnedTransaction {
    EntitlementFixture.tx(id, product, purchased, expires: expires, revoked: revoked, cancelled: cancelled,
                          environment: environment, type: type, quantity: quantity)
}
private func compute(_ input: EntitlementInput, configuration: StoreConfiguration = EntitlementFixture.catalogue,
                     at time: Date = EntitlementFixture.now) -> [String: EntitlementState] {
    EntitlementFixture.compute(input, configuration: configuration, at: time)
}

@Suite("Entitlements from the paid-to-free rule")
struct EntitlementPaidToFreeTests {
    private func legacy(_ version: String?, _ purchased: String?, _ environment: Environment = .production,
                        isTester: Bool = false) -> EntitlementState? {
        let facts = AppPurchaseFacts(originalAppVersion: version, originalPurchaseDate: purchased.map(date), environment: environment)
        return compute(EntitlementInput(appPurchase: facts, isTester: isTester))["pro"]
    }

    @Test func grantsByBuild() throws {
        let pro = try #require(legacy("41", "2021-05-01T00:00:00Z"))
        #expect(pro.isActive)
        #expect(pro.ends == nil)
        #expect(pro.reason == "pro via legacy paid purchase: original build 41 < 42")
        #expect(pro.sources == [EntitlementSource(kind: .legacyPaid, starts: date("2021-05-01T00:00:00Z"), ends: nil,
                                                 isActive: true, reason: pro.reason, flags: [])])
        #expect(legacy("9", nil)?.reason == "pro via legacy paid purchase: original build 9 < 42")
        #expect(legacy("41.9.9", nil)?.isActive == true)
    }

    @Test func grantsByDate() throws {
        let pro = try #require(legacy("50", "2019-05-01T00:00:00Z"))
        #expect(pro.isActive)
        #expect(pro.reason == "pro via legacy paid purchase: original purchase 2019-05-01T00:00:00Z before 2020-01-01T00:00:00Z")
    }

    @Test func grantsNothingToCustomersAfterTheSwitch() {
        #expect(legacy("42", "2020-01-01T00:00:00Z") == nil)
        #expect(legacy("42.0", "2021-01-01T00:00:00Z") == nil)
        #expect(legacy(nil, nil) == nil)
        #expect(compute(EntitlementInput(appPurchase: AppPurchaseFacts(originalAppVersion: "1", originalPurchaseDate: nil, environment: .production)),
                        configuration: StoreConfiguration()).isEmpty)
    }

    @Test func aBuildThatIsNotNumericIsFlagged() throws {
        let pro = try #require(legacy("1.0b3", "2021-05-01T00:00:00Z"))
        #expect(!pro.isActive)
        #expect(pro.sources.first?.flags == ["original build not numeric"])
        #expect(pro.reason == "pro not via legacy paid purchase: original build '1.0b3' is not a build number; original purchase 2021-05-01T00:00:00Z is not before 2020-01-01T00:00:00Z")
    }

    @Test func theSandboxConstantIsNotTrusted() throws {
        let pro = try #require(legacy("1.0", "2025-05-01T00:00:00Z", .sandbox, isTester: true))
        #expect(!pro.isActive)
        #expect(pro.sources.first?.flags == ["sandbox constant 1.0 not trusted", "sandbox"])
        #expect(pro.reason == "pro not via legacy paid purchase: original build 1.0 is the sandbox constant, not trusted; original purchase 2025-05-01T00:00:00Z is not before 2020-01-01T00:00:00Z")
        // In production "1.0" is a real build.
        #expect(legacy("1.0", "2025-05-01T00:00:00Z")?.reason == "pro via legacy paid purchase: original build 1.0 < 42")
    }

    @Test func theDateRuleStillAppliesInTheSandbox() throws {
        let pro = try #require(legacy("1.0", "2019-05-01T00:00:00Z", .sandbox, isTester: true))
        #expect(pro.isActive)
        #expect(pro.sources.first?.flags == ["sandbox constant 1.0 not trusted", "sandbox"])
        #expect(pro.reason == "pro via legacy paid purchase: original purchase 2019-05-01T00:00:00Z before 2020-01-01T00:00:00Z")
        // A customer who is not a tester gets nothing from a sandbox receipt.
        let stranger = try #require(legacy("1.0", "2019-05-01T00:00:00Z", .sandbox))
        #expect(!stranger.isActive)
        #expect(stranger.reason == "pro from a sandbox purchase grants nothing: the customer is not a tester and allowSandbox is off")
    }

    @Test func buildOnlyAndDateOnlyRules() {
        var configuration = catalogue
        configuration.paidToFree = PaidToFreeRule(entitlement: "legacy", beforeBuild: "1.10", beforeDate: nil)
        let old = AppPurchaseFacts(originalAppVersion: "1.9", originalPurchaseDate: date("2010-01-01T00:00:00Z"), environment: .production)
        #expect(compute(EntitlementInput(appPurchase: old), configuration: configuration)["legacy"]?.reason
            == "legacy via legacy paid purchase: original build 1.9 < 1.10")
        configuration.paidToFree = PaidToFreeRule(entitlement: "legacy", beforeBuild: nil, beforeDate: date("2009-01-01T00:00:00Z"))
        #expect(compute(EntitlementInput(appPurchase: old), configuration: configuration)["legacy"] == nil)
    }
}

@Suite("Entitlements from operators")
struct EntitlementManualTests {
    @Test func openEndedGrant() throws {
        let grant = ManualGrant(id: 3, entitlement: "pro", starts: date("2025-06-01T00:00:00Z"), ends: nil, reason: "goodwill after outage", grantedBy: "mei")
        let pro = try #require(compute(EntitlementInput(grants: [grant]))["pro"])
        #expect(pro.isActive)
        #expect(pro.ends == nil)
        #expect(pro.reason == "pro via manual grant #3 by mei forever: goodwill after outage")
        #expect(pro.sources.first?.kind == .manual)
        #expect(pro.sources.first?.grantId == 3)
    }

    @Test func grantWithAnEnd() throws {
        let grant = ManualGrant(id: 3, entitlement: "pro", starts: date("2025-06-01T00:00:00Z"), ends: date("2026-12-31T00:00:00Z"),
                                reason: "goodwill after outage", grantedBy: "mei")
        let pro = try #require(compute(EntitlementInput(grants: [grant]))["pro"])
        #expect(pro.isActive)
        #expect(pro.ends == date("2026-12-31T00:00:00Z"))
        #expect(pro.reason == "pro via manual grant #3 by mei until 2026-12-31T00:00:00Z: goodwill after outage")
        let later = try #require(compute(EntitlementInput(grants: [grant]), at: date("2026-12-31T00:00:00Z"))["pro"])
        #expect(!later.isActive)
        #expect(later.reason == "pro manual grant #3 ended 2026-12-31T00:00:00Z")
        let earlier = try #require(compute(EntitlementInput(grants: [grant]), at: date("2025-05-01T00:00:00Z"))["pro"])
        #expect(!earlier.isActive)
        #expect(earlier.reason == "pro manual grant #3 starts 2025-06-01T00:00:00Z")
    }

    @Test func revokedGrant() throws {
        let grant = ManualGrant(id: 4, entitlement: "pro", starts: date("2025-06-01T00:00:00Z"), ends: nil,
                                revokedAt: date("2025-07-01T00:00:00Z"), reason: "goodwill", grantedBy: "mei")
        let pro = try #require(compute(EntitlementInput(grants: [grant]))["pro"])
        #expect(!pro.isActive)
        #expect(pro.reason == "pro manual grant #4 revoked 2025-07-01T00:00:00Z")
        #expect(pro.sources.first?.ends == date("2025-07-01T00:00:00Z"))
        #expect(pro.sources.first?.flags == ["revoked by operator"])
        #expect(compute(EntitlementInput(grants: [grant]), at: date("2025-06-15T00:00:00Z"))["pro"]?.isActive == true)
    }

    @Test func manualRevocationEndsEarlierPurchasesOnly() throws {
        let revocation = ManualRevocation(id: 1, entitlement: "pro", at: date("2025-06-01T00:00:00Z"), reason: "chargeback fraud", by: "mei")
        let first = tx("1", "pro.lifetime", "2025-01-01T00:00:00Z")
        let pro = try #require(compute(EntitlementInput(transactions: [first], revocations: [revocation]))["pro"])
        #expect(!pro.isActive)
        #expect(pro.reason == "pro revoked by mei on 2025-06-01T00:00:00Z: chargeback fraud")
        #expect(pro.sources.first?.flags == ["revoked by mei"])
        #expect(pro.sources.first?.ends == date("2025-06-01T00:00:00Z"))

        // A purchase after the revocation counts again.
        let again = try #require(compute(EntitlementInput(transactions: [first, tx("2", "pro.lifetime", "2025-07-01T00:00:00Z")],
                                                          revocations: [revocation]))["pro"])
        #expect(again.isActive)
        #expect(again.reason == "pro via transaction 2, non-consumable")
        #expect(again.sources.map(\.isActive) == [true, false])

        // Before the revocation's date it has not happened.
        #expect(compute(EntitlementInput(transactions: [first], revocations: [revocation]), at: date("2025-05-01T00:00:00Z"))["pro"]?.isActive == true)
        // Other entitlements are untouched; so is an already expired subscription.
        let expired = tx("3", "pro.monthly", "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z")
        let other = compute(EntitlementInput(transactions: [expired, tx("4", "coins.100", "2025-01-01T00:00:00Z")], revocations: [revocation]))
        #expect(other["coins"]?.balance == 100)
        #expect(other["pro"]?.reason == "pro expired 2025-02-01T00:00:00Z (transaction 3)")
    }

    @Test func manualRevocationEndsLegacyPaidButNotManualGrants() throws {
        let revocation = ManualRevocation(id: 1, entitlement: "pro", at: date("2025-06-01T00:00:00Z"), reason: "shared account", by: "ana")
        let grant = ManualGrant(id: 7, entitlement: "pro", starts: date("2025-01-01T00:00:00Z"), ends: nil, reason: "press", grantedBy: "mei")
        let facts = AppPurchaseFacts(originalAppVersion: "41", originalPurchaseDate: date("2019-01-01T00:00:00Z"), environment: .production)
        let legacyOnly = try #require(compute(EntitlementInput(revocations: [revocation], appPurchase: facts))["pro"])
        #expect(!legacyOnly.isActive)
        #expect(legacyOnly.reason == "pro revoked by ana on 2025-06-01T00:00:00Z: shared account")
        #expect(legacyOnly.sources.first?.kind == .legacyPaid)

        let withGrant = try #require(compute(EntitlementInput(grants: [grant], revocations: [revocation], appPurchase: facts))["pro"])
        #expect(withGrant.isActive)
        #expect(withGrant.reason == "pro via manual grant #7 by mei forever: press")
        #expect(withGrant.sources.map(\.kind) == [.manual, .legacyPaid])
    }

    @Test func reasonsStayOnOneLine() throws {
        let grant = ManualGrant(id: 1, entitlement: "pro", starts: date("2025-01-01T00:00:00Z"), ends: nil, reason: "line one\nline two", grantedBy: "mei")
        let pro = try #require(compute(EntitlementInput(grants: [grant]))["pro"])
        #expect(pro.reason == #"pro via manual grant #1 by mei forever: line one\u{a}line two"#)
    }
}
