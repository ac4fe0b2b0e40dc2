@testable import ConsoleUI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// What the receipt view says about trust: a contradiction between Apple's answer and the local
/// verdict, and a legacy envelope whose unsigned environment claim disagrees with purchase-info.
@Suite("Receipt view: contradictions and unsigned claims")
struct ReceiptTrustViewTests {
    static func text(_ lines: [DetailLine]) -> String {
        lines.map { $0.spans.map(\.text).joined() }.joined(separator: "\n")
    }

    @Test func aStoredContradictionIsShownInRedOnTheReceipt() throws {
        let f = try ConsoleFixture()
        let receiptId = try #require(try f.database.queryFirst("SELECT min(receipt_id) AS id FROM receipts", [])?.int("id"))
        let line = "CONTRADICTION: Apple says valid (status 0, production), but the local verdict is invalid; nothing applied or granted"
        try f.database.execute("UPDATE receipts SET apple_verdict = 'valid', apple_contradiction = ? WHERE receipt_id = ?",
                               [.text(line), .integer(receiptId)])
        let stored = try #require(try Browser(f.database).receipt(receiptId))
        let detail = DetailLoader.decode(stored, ledger: f.ledger, now: ConsoleFixture.now)
        let lines = ReceiptDetailView.lines(detail, report: nil, expanded: [], width: 200, now: ConsoleFixture.now, highlight: [])
        let shown = try #require(lines.first { $0.spans.map(\.text).joined().contains("CONTRADICTION") })
        #expect(shown.spans.contains { $0.style.role == .danger })
        #expect(Self.text(lines).contains("✗ " + line))
    }

    @Test func anEditedLegacyEnvelopeShowsMismatchBesideTheSignedEvidence() throws {
        let f = try ConsoleFixture(populated: false)
        var info = LegacyPurchaseInfo(transactionId: "88001", productId: "com.example.pro.lifetime", bundleId: "com.example.app",
                                      bundleVersion: "1", itemId: "1", purchaseDate: ConsoleFixture.date("2025-05-01T00:00:00Z"))
        info.appItemId = nil
        var builder = LegacyReceiptBuilder(purchaseInfo: info)
        builder.environment = "Production"  // a sandbox purchase whose unsigned envelope claims production
        let bytes = Array(try builder.build(signedBy: f.authority).base64.utf8)
        let result = try f.ledger.importArtefact(bytes, customer: "ivy", source: "test", operatorName: "mei")
        #expect(result.environment == .sandbox)
        let stored = try #require(try Browser(f.database).receipt(result.receiptId ?? -1))
        let detail = DetailLoader.decode(stored, ledger: f.ledger, now: ConsoleFixture.now)
        let text = Self.text(ReceiptDetailView.lines(detail, report: nil, expanded: [], width: 200, now: ConsoleFixture.now, highlight: []))
        #expect(text.contains("from legacy purchase-info `app-item-id`: app-item-id absent · signed"))
        #expect(text.contains("MISMATCH legacy `environment` key: Production (claims Production, unsigned); treated as sandbox"), "\(text)")
        #expect(text.contains("SANDBOX"))
    }

    @Test func storedBytesShowAsTextOnlyWhenTheyAreTextThroughout() {
        #expect(ReceiptDetailView.rawText(Array("eyJhbGciOi.x.y\n".utf8)) == "eyJhbGciOi.x.y\n")
        // A NUL inside is not text: the whole is shown as base64, never the part before the NUL.
        let withNul = Array("abc".utf8) + [0] + Array("def".utf8)
        #expect(ReceiptDetailView.rawText(withNul) == Data(withNul).base64EncodedString())
        #expect(ReceiptDetailView.rawText([0x30, 0x82, 0x01]) == "MIIB")
    }
}
