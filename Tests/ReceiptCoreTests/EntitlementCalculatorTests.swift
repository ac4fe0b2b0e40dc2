import Foundation
import Testing
@testable import ReceiptCore

/// Shared values of the entitlement tests: a catalogue, a fixed `now`, transaction shorthand.
enum EntitlementFixture {
    static func date(_ text: String) -> Date {
        guard let date = RFC3339.parse(text) else {
            Issue.record("bad test date \(text)")
            return .distantPast
        }
        return date
    }

    static let now = date("2026-01-15T00:00:00Z")

    static let catalogue = StoreConfiguration(
        bundleIds: ["com.example.game"],
        products: [
            "pro.monthly": CatalogueProduct(entitlement: "pro", type: .autoRenewable),
            "pro.lifetime": CatalogueProduct(entitlement: "pro", type: .nonConsumable),
            "pro.pass.30d": CatalogueProduct(entitlement: "pro", type: .nonRenewing, duration: ISODuration("P30D")),
            "coins.100": CatalogueProduct(entitlement: "coins", type: .consumable, units: 100),
            "coins.1000": CatalogueProduct(entitlement: "coins", type: .consumable, units: 1000),
        ],
        paidToFree: PaidToFreeRule(entitlement: "pro", beforeBuild: "42", beforeDate: date("2020-01-01T00:00:00Z")))

    static func tx(_ id: String, _ product: String, _ purchased: String, expires: String? = nil, revoked: String? = nil,
                   cancelled: String? = nil, environment: Environment = .production, type: ProductType? = nil,
                   quantity: Int64 = 1) -> OwnedTransaction {
        OwnedTransaction(transactionId: id, productId: product, productType: type, environment: environment,
                         purchaseDate: date(purchased), expiresDate: expires.map(date), revocationDate: revoked.map(date),
                         cancellationDate: cancelled.map(date), quantity: quantity)
    }

    /// The states by name.
    static func compute(_ input: EntitlementInput, configuration: StoreConfiguration = catalogue, at time: Date = now) -> [String: EntitlementState] {
        let states = EntitlementCalculator.compute(input, configuration: configuration, now: time)
        return Dictionary(states.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

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

@Suite("Entitlements from purchases")
struct EntitlementPurchaseTests {
    @Test func autoRenewableHoldsUntilExpiry() throws {
        let pro = try #require(compute(EntitlementInput(transactions: [
            tx("1000000359369424", "pro.monthly", "2025-12-01T00:00:00Z", expires: "2026-12-01T00:00:00Z"),
        ]))["pro"])
        #expect(pro.isActive)
        #expect(pro.ends == date("2026-12-01T00:00:00Z"))
        #expect(pro.balance == nil)
        #expect(pro.reason == "pro via transaction 1000000359369424, auto-renewable, expires 2026-12-01T00:00:00Z")
        #expect(pro.sources == [EntitlementSource(kind: .purchase, transactionId: "1000000359369424", starts: date("2025-12-01T00:00:00Z"),
                                                 ends: date("2026-12-01T00:00:00Z"), isActive: true, reason: pro.reason, flags: [])])
    }

    @Test func expiryExactlyAtNowNoLongerHolds() throws {
        let input = EntitlementInput(transactions: [tx("1000000359369424", "pro.monthly", "2025-12-15T00:00:00Z", expires: "2026-01-15T00:00:00Z")])
        let pro = try #require(compute(input)["pro"])
        #expect(!pro.isActive)
        #expect(pro.ends == nil)
        #expect(pro.reason == "pro expired 2026-01-15T00:00:00Z (transaction 1000000359369424)")
        #expect(compute(input, at: now.addingTimeInterval(-0.001))["pro"]?.isActive == true)
    }

    @Test func revocationAndCancellationEndTheSource() throws {
        let revoked = try #require(compute(EntitlementInput(transactions: [
            tx("1000000359369424", "pro.monthly", "2025-01-01T00:00:00Z", expires: "2026-12-01T00:00:00Z", revoked: "2025-02-01T00:00:00Z"),
        ]))["pro"])
        #expect(!revoked.isActive)
        #expect(revoked.reason == "pro revoked by Apple 2025-02-01T00:00:00Z (transaction 1000000359369424)")
        #expect(revoked.sources.first?.ends == date("2025-02-01T00:00:00Z"))

        let cancelled = try #require(compute(EntitlementInput(transactions: [
            tx("77", "pro.lifetime", "2024-01-01T00:00:00Z", cancelled: "2025-03-04T05:06:07Z"),
        ]))["pro"])
        #expect(!cancelled.isActive)
        #expect(cancelled.reason == "pro cancelled (refunded) 2025-03-04T05:06:07Z (transaction 77)")

        // A refund dated after now (an "as of" question about the past) has not happened yet.
        let before = compute(EntitlementInput(transactions: [tx("77", "pro.lifetime", "2024-01-01T00:00:00Z", cancelled: "2026-03-04T05:06:07Z")]))
        #expect(before["pro"]?.isActive == true)
    }

    @Test func nonConsumableLastsUntilRevoked() throws {
        let pro = try #require(compute(EntitlementInput(transactions: [tx("1000000359369424", "pro.lifetime", "2017-12-14T00:00:00Z")]))["pro"])
        #expect(pro.isActive)
        #expect(pro.ends == nil)
        #expect(pro.reason == "pro via transaction 1000000359369424, non-consumable")
    }

    @Test func nonRenewingLastsItsCatalogueDuration() throws {
        let input = EntitlementInput(transactions: [
            tx("1", "pro.pass.30d", "2025-10-01T00:00:00Z"),
            tx("2", "pro.pass.30d", "2025-12-20T12:00:00Z"),
        ])
        let pro = try #require(compute(input)["pro"])
        #expect(pro.isActive)
        #expect(pro.ends == date("2026-01-19T12:00:00Z"))
        #expect(pro.reason == "pro via transaction 2, non-renewing, expires 2026-01-19T12:00:00Z")
        #expect(pro.sources.map(\.reason) == [
            "pro via transaction 2, non-renewing, expires 2026-01-19T12:00:00Z",
            "pro expired 2025-10-31T00:00:00Z (transaction 1)",
        ])
    }

    @Test func consumablesCountUnitsAndHoldWhileTheBalanceIsPositive() throws {
        let coins = try #require(compute(EntitlementInput(transactions: [
            tx("10", "coins.100", "2025-01-01T00:00:00Z", quantity: 2),
            tx("11", "coins.1000", "2025-02-01T00:00:00Z"),
            tx("12", "coins.1000", "2025-03-01T00:00:00Z", cancelled: "2025-03-02T00:00:00Z"),
            tx("13", "coins.100", "2025-04-01T00:00:00Z", revoked: "2025-04-02T00:00:00Z"),
        ]))["coins"])
        #expect(coins.isActive)
        #expect(coins.balance == 1200)
        #expect(coins.ends == nil)
        #expect(coins.reason == "coins: 1200 units via 2 consumable purchases")
        #expect(coins.sources.map(\.units) == [1000, 200, 100, 1000])
        #expect(coins.sources.map(\.reason) == [
            "coins via transaction 11, consumable, 1000 units",
            "coins via transaction 10, consumable, 200 units",
            "coins revoked by Apple 2025-04-02T00:00:00Z (transaction 13)",
            "coins cancelled (refunded) 2025-03-02T00:00:00Z (transaction 12)",
        ])

        let one = try #require(compute(EntitlementInput(transactions: [tx("10", "coins.100", "2025-01-01T00:00:00Z")]))["coins"])
        #expect(one.reason == "coins: 100 units via 1 consumable purchase")

        let spent = try #require(compute(EntitlementInput(transactions: [
            tx("12", "coins.1000", "2025-03-01T00:00:00Z", cancelled: "2025-03-02T00:00:00Z"),
        ]))["coins"])
        #expect(!spent.isActive)
        #expect(spent.balance == 0)
        #expect(spent.reason == "coins cancelled (refunded) 2025-03-02T00:00:00Z (transaction 12)")
    }

    @Test func aQuantityOfZeroGrantsNothingAndHugeOnesDoNotOverflow() throws {
        let zero = try #require(compute(EntitlementInput(transactions: [tx("10", "coins.100", "2025-01-01T00:00:00Z", quantity: 0)]))["coins"])
        #expect(!zero.isActive)
        #expect(zero.balance == 0)
        #expect(zero.sources.first?.flags == ["quantity 0"])
        #expect(zero.reason == "coins via transaction 10 grants nothing: quantity 0")

        let huge = try #require(compute(EntitlementInput(transactions: [
            tx("10", "coins.1000", "2025-01-01T00:00:00Z", quantity: .max),
            tx("11", "coins.1000", "2025-01-02T00:00:00Z", quantity: .max),
        ]))["coins"])
        #expect(huge.balance == .max)
    }

    @Test func aTransactionGivenTwiceCountsOnceAndKeepsItsRefund() throws {
        let coins = try #require(compute(EntitlementInput(transactions: [
            tx("10", "coins.100", "2025-01-01T00:00:00Z"),
            tx("10", "coins.100", "2025-01-01T00:00:00Z", cancelled: "2025-01-05T00:00:00Z"),
            tx("11", "coins.100", "2025-01-02T00:00:00Z"),
            tx("11", "coins.100", "2025-01-02T00:00:00Z"),
        ]))["coins"])
        #expect(coins.balance == 100)
        #expect(coins.sources.count == 2)
    }

    @Test func aProductNotInTheCatalogueIsNamedAfterItself() throws {
        let states = compute(EntitlementInput(transactions: [
            tx("20", "gems.pack", "2025-01-01T00:00:00Z", type: .consumable, quantity: 3),
            tx("21", "old.unlock", "2025-01-01T00:00:00Z"),
            tx("22", "old.pass", "2025-01-01T00:00:00Z", type: .nonRenewing),
        ]))
        let gems = try #require(states["gems.pack"])
        #expect(gems.balance == 3)
        #expect(gems.reason == "gems.pack: 3 units via 1 consumable purchase")
        #expect(gems.sources.first?.flags == ["not in catalogue"])
        let unlock = try #require(states["old.unlock"])
        #expect(unlock.reason == "old.unlock via transaction 21, non-consumable")
        #expect(unlock.sources.first?.flags == ["not in catalogue"])
        let pass = try #require(states["old.pass"])
        #expect(pass.isActive)
        #expect(pass.reason == "old.pass via transaction 22, non-renewing, until revoked")
        #expect(pass.sources.first?.flags == ["not in catalogue", "no duration in catalogue"])
    }

    @Test func theSourceThatKeepsItLongestGivesTheReason() throws {
        let both = try #require(compute(EntitlementInput(transactions: [
            tx("1", "pro.lifetime", "2020-01-01T00:00:00Z"),
            tx("2", "pro.monthly", "2026-01-01T00:00:00Z", expires: "2026-02-01T00:00:00Z"),
        ]))["pro"])
        #expect(both.ends == nil)
        #expect(both.reason == "pro via transaction 1, non-consumable")
        #expect(both.sources.map(\.transactionId) == ["2", "1"])

        let subscriptions = try #require(compute(EntitlementInput(transactions: [
            tx("3", "pro.monthly", "2026-01-10T00:00:00Z", expires: "2026-02-10T00:00:00Z"),
            tx("4", "pro.pass.30d", "2026-01-01T00:00:00Z"),
        ]))["pro"])
        #expect(subscriptions.ends == date("2026-02-10T00:00:00Z"))
        #expect(subscriptions.reason == "pro via transaction 3, auto-renewable, expires 2026-02-10T00:00:00Z")
    }

    @Test func statesAreSortedByNameAndSourcesActiveFirstThenNewest() {
        let states = EntitlementCalculator.compute(EntitlementInput(transactions: [
            tx("1", "zeta", "2025-01-01T00:00:00Z"),
            tx("2", "pro.monthly", "2025-12-01T00:00:00Z", expires: "2025-12-31T00:00:00Z"),
            tx("3", "pro.monthly", "2024-01-01T00:00:00Z", expires: "2030-01-01T00:00:00Z"),
            tx("4", "pro.monthly", "2025-06-01T00:00:00Z", expires: "2025-07-01T00:00:00Z"),
            tx("5", "coins.100", "2025-01-01T00:00:00Z"),
            tx("6", "alpha", "2025-01-01T00:00:00Z"),
        ]), configuration: catalogue, now: now)
        #expect(states.map(\.name) == ["alpha", "coins", "pro", "zeta"])
        #expect(states.first { $0.name == "pro" }?.sources.map(\.transactionId) == ["3", "2", "4"])
        #expect(EntitlementCalculator.compute(EntitlementInput(), configuration: catalogue, now: now).isEmpty)
    }

    @Test func aPurchaseAfterNowDoesNotHoldYet() throws {
        let pro = try #require(compute(EntitlementInput(transactions: [tx("9", "pro.lifetime", "2026-02-01T00:00:00Z")]))["pro"])
        #expect(!pro.isActive)
        #expect(pro.reason == "pro starts 2026-02-01T00:00:00Z (transaction 9)")
    }
}

@Suite("Entitlements from sandbox purchases")
struct EntitlementSandboxTests {
    static let purchase = tx("2000000000000001", "pro.lifetime", "2025-05-01T00:00:00Z", environment: .sandbox)

    @Test func grantNothingForACustomerWhoIsNotATester() throws {
        let pro = try #require(compute(EntitlementInput(transactions: [Self.purchase]))["pro"])
        #expect(!pro.isActive)
        #expect(pro.reason == "pro from a sandbox purchase grants nothing: the customer is not a tester and allowSandbox is off")
        #expect(pro.sources.first?.flags == ["sandbox"])
    }

    @Test func grantForATesterStillFlagged() throws {
        let pro = try #require(compute(EntitlementInput(transactions: [Self.purchase], isTester: true))["pro"])
        #expect(pro.isActive)
        #expect(pro.reason == "pro via transaction 2000000000000001, non-consumable")
        #expect(pro.sources.first?.flags == ["sandbox"])
    }

    @Test func grantWhenAllowSandboxIsOn() throws {
        var configuration = catalogue
        configuration.allowSandbox = true
        let pro = try #require(compute(EntitlementInput(transactions: [Self.purchase]), configuration: configuration)["pro"])
        #expect(pro.isActive)
        #expect(pro.sources.first?.flags == ["sandbox"])
    }

    @Test(arguments: [Environment.xcode, .localTesting])
    func xcodeAndLocalTestingCountAsSandbox(_ environment: Environment) throws {
        var purchase = Self.purchase
        purchase.environment = environment
        let pro = try #require(compute(EntitlementInput(transactions: [purchase]))["pro"])
        #expect(!pro.isActive)
        #expect(pro.sources.first?.flags == ["sandbox"])
        #expect(compute(EntitlementInput(transactions: [purchase], isTester: true))["pro"]?.isActive == true)
    }

    @Test func sandboxCoinsAreNotInTheBalance() throws {
        let coins = try #require(compute(EntitlementInput(transactions: [
            tx("1", "coins.100", "2025-01-01T00:00:00Z"),
            tx("2", "coins.1000", "2025-01-02T00:00:00Z", environment: .sandbox),
        ]))["coins"])
        #expect(coins.balance == 100)
    }
}
