import Foundation
import Testing
@testable import ReceiptCore

@Suite("decode --json report")
struct DecodeReportTests {
    @Test func unifiedReportHasEveryKeyWithNullsAndUTCDates() throws {
        let artefact = try ReceiptDecoder.decode(try SampleFiles.bytes("unified-sandbox-sha256-g5.b64"))
        let verdict = ReceiptVerifier(trust: SampleFiles.apple).verify(artefact)
        let report = DecodeReport.json(artefact, verdict: verdict, now: Date(timeIntervalSince1970: 1_800_000_000))
        for key in ["format", "environment", "verdict", "bundleId", "appVersion", "originalAppVersion", "creationDate",
                    "notificationType", "subtype", "notificationUUID", "purchases", "renewal", "tree"] {
            #expect(report[key] != nil, "missing \(key)")
        }
        #expect(report["format"] == .string("unified"))
        #expect(report["environment"] == .string("Sandbox"))
        #expect(report["verdict"]?["status"] == .string("valid"))
        #expect(report["verdict"]?["validationTime"] == .string("2025-12-26T18:39:47Z"))
        #expect(report["verdict"]?["chain"] == .array([.string("Mac App Store and iTunes Store Receipt Signing"),
                                                      .string("Apple Worldwide Developer Relations Certification Authority"),
                                                      .string("Apple Root CA")]))
        #expect(report["notificationType"] == .null)
        #expect(report["renewal"] == .null)
        guard case .array(let purchases) = report["purchases"] else { Issue.record("no purchases"); return }
        #expect(purchases.count == 2)
        #expect(purchases[0]["transactionId"] == .string("2000001092134138"))
        #expect(purchases[0]["expiresDate"] == .string("2025-12-26T18:19:07Z"))
        #expect(purchases[0]["appAccountToken"] == .null)
        #expect(purchases[0]["webOrderLineItemId"] == .string("2000000123357229"))
        let text = report.serialized()
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(parsed?["bundleId"] as? String == "dev.bonzer.weeka.app", "the serialised text is valid JSON")
    }

    @Test func renewalReportCarriesRenewalFields() throws {
        let artefact = try ReceiptDecoder.decode(try SampleFiles.bytes("real-renewal-info-sandbox.jws"))
        let report = DecodeReport.json(artefact, verdict: ReceiptVerifier(trust: SampleFiles.apple).verify(artefact), now: Date())
        #expect(report["format"] == .string("jws-renewal-info"))
        #expect(report["renewal"]?["autoRenewProductId"] == .string("com.getsession.org.pro_sub"))
        #expect(report["renewal"]?["autoRenewStatus"] == .int(1))
    }

    @Test func stringsAreEscaped() {
        let value = JSONValue.object([("a\"b", .string("line\nbreak\u{1}\\ 串"))])
        #expect(value.serialized() == #"{"a\"b":"line\nbreak\u0001\\ 串"}"#)
    }
}
