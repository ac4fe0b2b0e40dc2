import Foundation
import ReceiptCore
import Testing

/// Version-3 legacy receipts: a 256-byte RSA signature by "Mac App Store and iTunes Store Receipt
/// Signing", issued by Apple's WWDR CA G1, which the blob does not carry and receiptdesk ships.
/// Real receipts from other projects' test data (origins in Assets/Samples/README.md).
@Suite("Legacy receipts with version-3 signature blobs")
struct LegacyVersion3Tests {
    static let wwdrLeaf = "Mac App Store and iTunes Store Receipt Signing"
    static let wwdrG1 = "Apple Worldwide Developer Relations Certification Authority"

    @Test("genuine version-3 receipts verify through WWDR G1 to Apple Root CA at their purchase date",
          arguments: [("legacy-v3-production-twc.b64", "200000805440610", "2020-06-15T19:31:38Z"),
                      ("legacy-v3-production-jbgd.b64", "420000211049269", "2016-08-22T16:41:17.672Z"),
                      ("legacy-v3-sandbox-jjw.b64", "1000000224876178", "2016-07-21T03:47:56.349Z")])
    func genuineReceiptsVerify(_ sample: String, _ transactionId: String, _ purchased: String) throws {
        let receipt = try LegacyReceipt(base64: try SampleFiles.text(sample))
        let blob = try #require(receipt.signature)
        #expect(blob.version == 3)
        #expect(blob.signature.count == 256)
        #expect(blob.leafCommonName == Self.wwdrLeaf)
        #expect(receipt.transactionId == transactionId)
        #expect(receipt.purchaseDate == SampleFiles.date(purchased))
        let verdict = receipt.verify(trust: SampleFiles.apple)
        #expect(verdict.status == .valid, "\(verdict.reason)")
        #expect(verdict.chain == [Self.wwdrLeaf, Self.wwdrG1, "Apple Root CA"])
        #expect(verdict.validationTime == receipt.purchaseDate)
        #expect(verdict.extraAnchor == nil)
        #expect(verdict.reason.contains("version 3 signature and App Store chain verified"))
    }

    @Test("without the WWDR G1 intermediate a genuine version-3 receipt cannot be verified (what receiptdesk did before shipping it)")
    func withoutTheIntermediateItIsInvalid() throws {
        let apple = SampleFiles.apple
        let iTunesOnly = TrustStore(anchors: apple.anchors, legacyIntermediates: Array(apple.legacyIntermediates.prefix(1)),
                                    storeKitTesting: apple.storeKitTesting)
        let verdict = try LegacyReceipt(base64: try SampleFiles.text("legacy-v3-production-jbgd.b64")).verify(trust: iTunesOnly)
        #expect(verdict.status == .invalid)
        #expect(verdict.reason.contains("unable to get local issuer certificate"), "\(verdict.reason)")
    }

    @Test("a genuine version-2 production receipt still verifies through the iTunes Store CA")
    func versionTwoProduction() throws {
        let receipt = try LegacyReceipt(base64: try SampleFiles.text("legacy-v2-production-ctr.b64"))
        #expect(receipt.signature?.version == 2)
        let verdict = receipt.verify(trust: SampleFiles.apple)
        #expect(verdict.status == .valid, "\(verdict.reason)")
        #expect(verdict.chain == ["PurchaseReceiptCertificate", "Apple iTunes Store Certification Authority", "Apple Root CA"])
    }

    @Test("one flipped bit of purchase-info, or the version byte changed, breaks a version-3 signature")
    func tamperingIsCaught() throws {
        let text = String(decoding: try Base64.decode(try SampleFiles.text("legacy-v3-production-twc.b64"), "sample"), as: UTF8.self)
        let genuine = try LegacyReceipt(base64: Data(text.utf8).base64EncodedString())
        // purchase-info with its quantity edited, re-encoded into the envelope.
        var info = String(decoding: genuine.purchaseInfoBytes, as: UTF8.self)
        info = info.replacingOccurrences(of: "\"quantity\" = \"1\"", with: "\"quantity\" = \"9\"")
        let infoBase64 = Data(genuine.purchaseInfoBytes).base64EncodedString()
        let forged = text.replacingOccurrences(of: infoBase64, with: Data(info.utf8).base64EncodedString())
        #expect(forged != text)
        let verdict = try LegacyReceipt(base64: Data(forged.utf8).base64EncodedString()).verify(trust: SampleFiles.apple)
        #expect(verdict.status == .invalid)
        #expect(verdict.reason.contains("signature does not match purchase-info"), "\(verdict.reason)")
        // A version-3 blob relabelled as version 2 has the wrong layout and does not decode.
        let blob = try #require(genuine.signature)
        #expect(throws: ReceiptError.self) { try LegacySignatureBlob(bytes: [2] + blob.bytes.dropFirst()) }
    }
}
