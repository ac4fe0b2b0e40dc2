@testable import ConsoleUI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// The console and the case file show what changed an entitlement: a prorated refund's share, a
/// family member's copy and its revocation, an upgrade and to what, a downgrade's date, a
/// commitment plan.
@Suite("Entitlement changes on screen and in the case file")
struct EntitlementChangeViewTests {
    static func text(_ line: DetailLine) -> String { line.spans.map(\.text).joined() }

    /// kid: a family member's copy of a subscription, revoked; eva: a prorated refund and an
    /// upgrade, on a commitment plan.
    static func fixture() throws -> (ConsoleFixture, SimulatorState) {
        let f = try ConsoleFixture(populated: false)
        let state = SimulatorState(authority: f.authority, bundleId: "com.example.app")
        func monthly(_ start: String, _ product: String = "com.example.pro.monthly") -> SimulatedPurchase {
            var p = SimulatedPurchase(productId: product, type: .autoRenewable, purchaseDate: ConsoleFixture.date(start),
                                      expiresDate: ConsoleFixture.date(start).addingTimeInterval(30 * 86_400))
            p.price = 9_990
            p.currency = "USD"
            return p
        }
        func signed(_ t: IssuedTransaction) throws -> [UInt8] {
            Array(try JWSBuilder(authority: f.authority).signedTransaction(t.payload(signedDate: t.purchaseDate)).utf8)
        }
        // kid
        let organiser = try state.subscribe(monthly("2025-05-10T00:00:00Z"), environment: .production, account: "organiser")
        let bought = try #require(state.transactions.first { $0.transactionId == organiser.record.transactionId })
        let copy = try state.shareWithFamily(transactionId: bought.transactionId, account: "kid", memberTransactionId: "5000000000000001")
        _ = try f.ledger.importArtefact(try signed(copy), customer: "kid", source: "test", operatorName: "mei")
        _ = try f.ledger.applyNotification(Array(try state.revokeFamilySharing(transactionId: copy.transactionId,
                                                                              date: ConsoleFixture.date("2025-05-20T00:00:00Z")).body.utf8),
                                           operatorName: "apple")
        // eva: a one-month pass refunded 40%, then a subscription on a commitment plan upgraded
        let eva = try state.register(monthly("2025-04-01T00:00:00Z"), environment: .production, account: "eva")
        _ = try f.ledger.importArtefact(try signed(eva), customer: "eva", source: "test", operatorName: "mei")
        _ = try f.ledger.applyNotification(Array(try state.refundProratedAndNotify(transactionId: eva.transactionId,
                                                                                  date: ConsoleFixture.date("2025-04-20T00:00:00Z"),
                                                                                  percentage: 40_000).body.utf8), operatorName: "apple")
        var basic = monthly("2025-05-15T00:00:00Z", "com.example.pro.lifetime")
        basic.type = .autoRenewable
        let sub = try state.register(basic, environment: .production, account: "eva")
        try state.setCommitment(transactionId: sub.transactionId, billingPlanType: "MONTHLY",
                                commitment: .init(billingPeriodNumber: 2, totalBillingPeriods: 12, commitmentPrice: 119_880))
        _ = try f.ledger.importArtefact(try signed(try #require(state.transaction(sub.transactionId))), customer: "eva", source: "test", operatorName: "mei")
        _ = try f.ledger.applyNotification(Array(try state.changeRenewalPreference(originalTransactionId: sub.transactionId, to: "com.example.pro.monthly",
                                                                                  upgrade: true, date: ConsoleFixture.date("2025-05-25T00:00:00Z")).body.utf8),
                                           operatorName: "apple")
        return (f, state)
    }

    static func customer(_ f: ConsoleFixture, _ id: String) throws -> CustomerDetail {
        guard case .customer(let detail) = DetailLoader.load(.customer(id), ledger: f.ledger, now: ConsoleFixture.now) else {
            throw StoreError(.notFound, "no customer \(id)")
        }
        return detail
    }

    @Test func customerViewTimelineAndListSayWhatChanged() throws {
        let (f, _) = try Self.fixture()
        let kid = try Self.customer(f, "kid")
        let kidLines = CustomerDetailView.lines(kid, reports: [], width: 140, now: ConsoleFixture.now, highlight: []).map(Self.text)
        let copyLine = try #require(kidLines.first { $0.hasPrefix(" 5000000000000001") })
        #expect(copyLine.contains("✗ family sharing revoked") && copyLine.contains("family shared"), "\(copyLine)")
        #expect(kidLines.contains { $0.contains("family sharing revoked on 2025-05-20 (this member's copy)") }, "\(kidLines.joined(separator: "\n"))")
        #expect(kidLines.joined(separator: " ").contains("the organiser's purchase is untouched"))

        let eva = try Self.customer(f, "eva")
        let lines = CustomerDetailView.lines(eva, reports: [], width: 140, now: ConsoleFixture.now, highlight: []).map(Self.text)
        let all = lines.joined(separator: "\n")
        #expect(lines.contains { $0.contains("✗ prorated refund 40%") }, "\(all)")
        #expect(lines.contains { $0.contains("↑ upgraded") && $0.contains("billed monthly 2/12") }, "\(all)")
        #expect(lines.contains { $0.contains("↑ com.example.pro.lifetime upgraded to com.example.pro.monthly on 2025-05-25") }, "\(all)")
        #expect(lines.contains { $0.contains("✗ com.example.pro.monthly prorated refund 40% on 2025-04-20") }, "\(all)")

        let row = try #require(try Browser(f.ledger.database).page(.transactions, filter: BrowseFilter(), cursor: .first, limit: 20).rows.first {
            if case .transaction(_, let t) = $0 { return t.record.transactionId == "5000000000000001" } else { return false }
        })
        let listed = ListRowFormatter.row(row, width: 100, highlight: []).map(\.text).joined()
        #expect(listed.contains("family"), "\(listed)")
    }

    @Test func caseFileCarriesTypeShareUpgradeAndPlan() throws {
        let (f, _) = try Self.fixture()
        let eva = try CaseFile("eva", ledger: f.ledger, generatedBy: "mei", now: ConsoleFixture.now)
        #expect(eva.markdown.contains("(prorated refund 40%)"), "\(eva.markdown)")
        #expect(eva.markdown.contains("(upgraded)") && eva.markdown.contains("billed monthly, period 2 of 12, 10 left, commitment price 119.88"), "\(eva.markdown)")
        let json = eva.json.serialized()
        #expect(json.contains(#""revocationType":"REFUND_PRORATED","revocationPercentage":40000"#), "\(json)")
        #expect(json.contains(#""isUpgraded":true"#) && json.contains(#""periodsLeft":10"#))
        let kid = try CaseFile("kid", ledger: f.ledger, generatedBy: "mei", now: ConsoleFixture.now)
        #expect(kid.markdown.contains("(family shared)") && kid.markdown.contains("(family sharing revoked)"), "\(kid.markdown)")
    }
}
