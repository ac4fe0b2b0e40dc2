@testable import ConsoleUI
import AppStoreAPI
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

    @Test func theRevocationCheckOfTheImportIsShownAndARevokedChainSaysWhyItWasRefused() throws {
        let f = try ConsoleFixture(populated: false)
        let simulator = try AppStoreSimulator(state: SimulatorState(authority: f.authority))
        try simulator.start()
        defer { simulator.stop() }
        let policy = RevocationPolicy(mode: .prefer, responderURL: simulator.ocspURL, timeoutSeconds: 2)
        func freshChecker() {  // a good answer is kept until its nextUpdate: a new process asks again
            f.ledger.revocation = BlockingRevocationSource(checker: RevocationChecker(policy: policy, transport: URLSessionTransport(),
                                                                                      trust: f.authority.trustStore()))
        }
        freshChecker()
        func shown(_ id: String, customer: String) throws -> String {
            var payload = TransactionPayload(transactionId: id, bundleId: "com.example.app", productId: "com.example.pro.lifetime",
                                             type: "Non-Consumable", purchaseDate: ConsoleFixture.date("2025-05-01T00:00:00Z"),
                                             signedDate: ConsoleFixture.date("2025-05-01T00:00:00Z"), environment: "Production")
            payload.appAccountToken = nil
            let bytes = Array(try JWSBuilder(authority: f.authority).signedTransaction(payload).utf8)
            let result = try f.ledger.importArtefact(bytes, customer: customer, source: "test", operatorName: "mei")
            let stored = try #require(try Browser(f.database).receipt(result.receiptId ?? -1))
            let detail = DetailLoader.decode(stored, ledger: f.ledger, now: ConsoleFixture.now)
            return Self.text(ReceiptDetailView.lines(detail, report: nil, expanded: [], width: 200, now: ConsoleFixture.now, highlight: []))
        }
        let good = try shown("2000000000000901", customer: "ivy")
        #expect(good.contains("at import, revocation: checked "), "\(good)")
        #expect(good.contains("by \(simulator.ocspURL.absoluteString): good"), "\(good)")
        simulator.ocsp.revoke(f.authority.ecLeaf, at: ConsoleFixture.date("2025-03-01T00:00:00Z"), reason: 1)
        freshChecker()
        let revoked = try shown("2000000000000902", customer: "jo")
        #expect(revoked.contains("⚠ at import, revocation: checked "), "\(revoked)")
        #expect(revoked.contains("REVOKED at 2025-03-01T00:00:00Z (keyCompromise)"), "\(revoked)")
        // Offline the chain still verifies; the view keeps the import's verdict, never a ✓ valid.
        #expect(revoked.contains("✗ invalid  certificate receiptdesk Test ECC Receipt Signing was revoked at 2025-03-01T00:00:00Z"), "\(revoked)")
        #expect(!revoked.contains("✓ valid"), "\(revoked)")
    }

    @Test func storedBytesShowAsTextOnlyWhenTheyAreTextThroughout() {
        #expect(ReceiptDetailView.rawText(Array("eyJhbGciOi.x.y\n".utf8)) == "eyJhbGciOi.x.y\n")
        // A NUL inside is not text: the whole is shown as base64, never the part before the NUL.
        let withNul = Array("abc".utf8) + [0] + Array("def".utf8)
        #expect(ReceiptDetailView.rawText(withNul) == Data(withNul).base64EncodedString())
        #expect(ReceiptDetailView.rawText([0x30, 0x82, 0x01]) == "MIIB")
    }
}
