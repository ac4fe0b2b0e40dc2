import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// `offerPeriod`, `offerDiscountType` and `eligibleWinBackOfferIds` of renewal info (App Store
/// Server API 1.13–1.15): decoded, kept in the subscription's state, said in words, and
/// searchable with `offer:` (`offer:winback`, `offer:free-trial`, …), on both backends.
@Suite("Renewal offer fields")
struct RenewalOfferFieldsTests {
    typealias T = NewNotificationTypesTests

    static func keys(_ f: BackendLedgerFixture, _ table: BrowseTable, _ text: String) throws -> [BrowseKey] {
        try Browser(f.database).page(table, filter: try BrowseFilter(parsing: text), cursor: .first, limit: 100).rows.map(\.key)
    }

    @Test(arguments: TestBackend.available) func winBackEligibilityAndOfferTermsAreKeptShownAndSearchable(_ backend: TestBackend) throws {
        let s = try T.Subscriber(backend)
        #expect(try Self.keys(s.f, .customers, "offer:winback") == [])
        try s.state.setWinBackEligibility(originalTransactionId: s.original, offerIds: ["WINBACK1", "WINBACK2"], offerPeriod: "P1M",
                                          offerDiscountType: "FREE_TRIAL")
        let expired = try s.state.expire(originalTransactionId: s.original, because: .voluntary, date: T.day(31))
        let renewal = try #require(try ServerNotification(compactJWS: expired.signedPayload).renewalInfo)
        #expect(renewal.eligibleWinBackOfferIds == ["WINBACK1", "WINBACK2"] && renewal.offerPeriod == "P1M")
        #expect(renewal.offerDiscountType == .freeTrial && renewal.offerDiscountTypeRaw == "FREE_TRIAL")
        let tree = TreeTextRenderer.lines(try ReceiptDecoder.decode(Array(expired.body.utf8)).tree(now: T.day(31))).joined(separator: "\n")
        #expect(tree.contains("eligibleWinBackOfferIds") && tree.contains("offerDiscountType"), "\(tree)")
        _ = try s.apply(expired, at: 31)
        var state = try #require(try s.f.ledger.subscriptionState(original: s.original))
        #expect(state.eligibleWinBackOfferIds == ["WINBACK1", "WINBACK2"])
        #expect(state.winBackEligibility == "eligible for win-back offers WINBACK1, WINBACK2")
        #expect(try Self.keys(s.f, .customers, "offer:winback") == [.text("eva")])
        #expect(try Self.keys(s.f, .transactions, "offer:WIN-BACK") == [.text(s.original)])
        #expect(try Self.keys(s.f, .customers, "offer:free-trial") == [], "no offer applies yet")
        #expect(throws: StoreError.self) { try BrowseFilter(parsing: "offer:bogus") }
        // The customer redeems one: the offer's terms come with it.
        _ = try s.apply(s.state.redeemOffer(originalTransactionId: s.original, offerType: 4, offerIdentifier: "WINBACK1", date: T.day(32)), at: 32)
        state = try #require(try s.f.ledger.subscriptionState(original: s.original))
        #expect(state.offerName == "win-back offer WINBACK1 (free trial, P1M)", "\(state.offerName ?? "nil")")
        #expect(try Self.keys(s.f, .customers, "offer:free-trial") == [.text("eva")])
        #expect(try BrowseFilter(parsing: "offer:Free_Trial").text == "offer:free-trial")
    }
}
