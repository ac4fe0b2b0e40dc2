import Foundation
import Testing
@testable import ReceiptCore

/// What each of Apple's entitlement changes grants: prorated and full refunds, family sharing and
/// its revocation, upgrades (see `EntitlementChanges`).
@Suite("Entitlement changes in the calculation")
struct EntitlementChangeCalculatorTests {
    typealias F = EntitlementFixture
    static let catalogue: StoreConfiguration = {
        var c = F.catalogue
        c.products["pro.yearly"] = CatalogueProduct(entitlement: "pro", type: .autoRenewable)
        c.products["pro.basic"] = CatalogueProduct(entitlement: "basic", type: .autoRenewable)
        return c
    }()

    static func tx(_ id: String, _ product: String, _ purchased: String, expires: String? = nil, revoked: String? = nil,
                   original: String? = nil, ownership: String? = nil, type: String? = nil, share: Int64? = nil,
                   upgraded: Bool = false, quantity: Int64 = 1) -> OwnedTransaction {
        var t = F.tx(id, product, purchased, expires: expires, revoked: revoked, quantity: quantity)
        t.originalTransactionId = original ?? id
        t.ownershipType = ownership
        t.revocationTypeRaw = type
        t.revocationPercentage = share
        t.isUpgraded = upgraded
        return t
    }

    static func compute(_ transactions: [OwnedTransaction], at time: Date = F.now) -> [String: EntitlementState] {
        F.compute(EntitlementInput(transactions: transactions), configuration: catalogue, at: time)
    }

    @Test("a prorated refund of a period keeps its unrefunded part: purchase + (1 − p) × period")
    func proratedSubscription() throws {
        // A 30-day period from Jan 1; 40% refunded on Jan 20 (Apple's share of the time left, about):
        // the kept 60% is 18 days, to Jan 19.
        let t = Self.tx("1", "pro.monthly", "2026-01-01T00:00:00Z", expires: "2026-01-31T00:00:00Z", revoked: "2026-01-20T00:00:00Z",
                        type: "REFUND_PRORATED", share: 40_000)
        let before = try #require(Self.compute([t], at: F.date("2026-01-10T00:00:00Z"))["pro"])
        #expect(before.isActive && before.ends == F.date("2026-01-19T00:00:00Z"))
        #expect(before.reason.contains("prorated refund 40% keeps the unrefunded part"), "\(before.reason)")
        let after = try #require(Self.compute([t], at: F.date("2026-01-25T00:00:00Z"))["pro"])
        #expect(!after.isActive)
        #expect(after.reason == "pro ended 2026-01-19T00:00:00Z: prorated refund 40% on 2026-01-20T00:00:00Z kept the unrefunded 60% of the period (transaction 1)")
        #expect(after.sources.first?.flags.contains("prorated refund 40%") == true)
    }

    @Test("refunded less than the time left: access runs on to the end of what was paid for")
    func proratedLessThanTimeLeft() throws {
        let t = Self.tx("1", "pro.monthly", "2026-01-01T00:00:00Z", expires: "2026-01-31T00:00:00Z", revoked: "2026-01-05T00:00:00Z",
                        type: "REFUND_PRORATED", share: 10_000)
        let state = try #require(Self.compute([t], at: F.date("2026-01-20T00:00:00Z"))["pro"])
        #expect(state.isActive && state.ends == F.date("2026-01-28T00:00:00Z"))
    }

    @Test("a prorated refund of consumables keeps ⌊(1 − p) × units⌋; of a non-consumable it revokes")
    func proratedOneTime() throws {
        let coins = Self.tx("2", "coins.100", "2026-01-01T00:00:00Z", revoked: "2026-01-02T00:00:00Z", type: "REFUND_PRORATED",
                            share: 33_333, quantity: 3)
        let c = try #require(Self.compute([coins])["coins"])
        #expect(c.isActive && c.balance == 200)
        #expect(c.sources.first?.reason.contains("kept after a prorated refund of 33.333%") == true)
        let all = Self.tx("3", "coins.100", "2026-01-01T00:00:00Z", revoked: "2026-01-02T00:00:00Z", type: "REFUND_PRORATED", share: 100_000)
        #expect(Self.compute([all])["coins"]?.balance == 0)
        let lifetime = Self.tx("4", "pro.lifetime", "2026-01-01T00:00:00Z", revoked: "2026-01-02T00:00:00Z", type: "REFUND_PRORATED", share: 50_000)
        let p = try #require(Self.compute([lifetime])["pro"])
        #expect(!p.isActive && p.reason == "pro revoked by Apple 2026-01-02T00:00:00Z: prorated refund 50% (transaction 4)")
    }

    @Test("a prorated refund without a percentage, and a full refund, revoke at the revocation date")
    func fullAndUnknownShare() throws {
        let noShare = Self.tx("5", "pro.monthly", "2026-01-01T00:00:00Z", expires: "2026-01-31T00:00:00Z", revoked: "2026-01-10T00:00:00Z",
                              type: "REFUND_PRORATED")
        let a = try #require(Self.compute([noShare])["pro"])
        #expect(!a.isActive && a.sources.first?.flags.contains("prorated refund without a percentage: treated as full") == true)
        let full = Self.tx("6", "pro.monthly", "2026-01-01T00:00:00Z", expires: "2026-01-31T00:00:00Z", revoked: "2026-01-10T00:00:00Z",
                           type: "REFUND_FULL", share: 100_000)
        #expect(Self.compute([full])["pro"]?.reason == "pro revoked by Apple 2026-01-10T00:00:00Z: full refund (transaction 6)")
        let untyped = Self.tx("7", "pro.monthly", "2026-01-01T00:00:00Z", expires: "2026-01-31T00:00:00Z", revoked: "2026-01-10T00:00:00Z")
        #expect(Self.compute([untyped])["pro"]?.reason == "pro revoked by Apple 2026-01-10T00:00:00Z (transaction 7)", "unchanged before API 1.19")
    }

    @Test("family shared grants and says so; FAMILY_REVOKE ends the member's copy only")
    func familySharing() throws {
        let member = Self.tx("20", "pro.monthly", "2026-01-01T00:00:00Z", expires: "2026-01-31T00:00:00Z", original: "10", ownership: "FAMILY_SHARED")
        let shared = try #require(Self.compute([member])["pro"])
        #expect(shared.isActive && shared.reason.hasSuffix("(family shared)") && shared.sources.first?.flags.contains("family shared") == true)
        var revoked = member
        revoked.revocationDate = F.date("2026-01-10T00:00:00Z")
        revoked.revocationTypeRaw = "FAMILY_REVOKE"
        let gone = try #require(Self.compute([revoked])["pro"])
        #expect(!gone.isActive)
        #expect(gone.reason == "pro family sharing revoked 2026-01-10T00:00:00Z: this family member's access ended, the organiser's purchase is untouched (transaction 20)")
        let organiser = Self.tx("10", "pro.monthly", "2026-01-01T00:00:00Z", expires: "2026-01-31T00:00:00Z")
        #expect(Self.compute([organiser])["pro"]?.isActive == true)
    }

    @Test("a family-shared copy of the customer's own purchase counts once")
    func familyCopyOfOwnPurchase() throws {
        let own = Self.tx("10", "coins.100", "2026-01-01T00:00:00Z")
        let copy = Self.tx("11", "coins.100", "2026-01-01T00:00:00Z", original: "10", ownership: "FAMILY_SHARED")
        let coins = try #require(Self.compute([own, copy])["coins"])
        #expect(coins.balance == 100)
        let copySource = try #require(coins.sources.first { $0.transactionId == "11" })
        #expect(!copySource.isActive && copySource.reason.contains("counted once"))
    }

    @Test("an upgraded period stops at the upgrade and names the product; the new product grants on")
    func upgrade() throws {
        let old = Self.tx("30", "pro.basic", "2026-01-01T00:00:00Z", expires: "2026-01-31T00:00:00Z", revoked: "2026-01-10T00:00:00Z",
                          upgraded: true)
        let new = Self.tx("31", "pro.yearly", "2026-01-10T00:00:00Z", expires: "2027-01-10T00:00:00Z", original: "30")
        let states = Self.compute([old, new])
        let basic = try #require(states["basic"])
        #expect(!basic.isActive && basic.reason == "basic upgraded to pro.yearly on 2026-01-10T00:00:00Z (transaction 30)")
        #expect(basic.sources.first?.flags.contains("upgraded") == true)
        #expect(states["pro"]?.isActive == true)
        // No revocation date: the upgrade's instant is the new product's purchase.
        var undated = old
        undated.revocationDate = nil
        #expect(Self.compute([undated, new])["basic"]?.reason == "basic upgraded to pro.yearly on 2026-01-10T00:00:00Z (transaction 30)")
    }
}
