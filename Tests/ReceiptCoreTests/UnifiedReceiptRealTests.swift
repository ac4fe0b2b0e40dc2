import Foundation
import Testing
@testable import ReceiptCore

@Suite("Unified receipts: real Apple artefacts")
struct UnifiedReceiptRealTests {
    @Test func sandboxReceiptDecodesEveryDocumentedValue() throws {
        let receipt = try AppReceipt(derEncoded: try SampleFiles.der("unified-sandbox-sha256-g5.b64"))
        #expect(receipt.receiptType == "ProductionSandbox")
        #expect(receipt.environment.environment == .sandbox)
        #expect(receipt.environment.source == .receiptTypeField)
        #expect(receipt.bundleId == "dev.bonzer.weeka.app")
        #expect(receipt.appVersion == "2")
        #expect(receipt.originalAppVersion == "1.0")
        #expect(receipt.creationDate == SampleFiles.date("2025-12-26T18:39:47Z"))
        #expect(receipt.opaqueValue?.hexString == "be1dd3ea9bcf4d08652eb539b9e05694")
        #expect(receipt.sha1Hash?.hexString == "2158847543683847e9382a0fc51853cb17abcd6d")
        #expect(receipt.transactionDate == nil, "empty date strings are absent")
        #expect(receipt.inApp.count == 2)
        let first = receipt.inApp[0], second = receipt.inApp[1]
        #expect(first.productId == "dev.bonzer.weeka.app.subscription.pro.annual")
        #expect(first.transactionId == "2000001092134138")
        #expect(first.originalTransactionId == "2000001092134138")
        #expect(first.purchaseDate == SampleFiles.date("2025-12-26T17:43:07Z"))
        #expect(first.expiresDate == SampleFiles.date("2025-12-26T18:19:07Z"))
        #expect(first.webOrderLineItemId == 2000000123357229)
        #expect(first.productTypeCode == 3)
        #expect(first.purchase.productType == .autoRenewable)
        #expect(first.cancellationDate == nil)
        #expect(second.transactionId == "2000001092148094")
        #expect(second.originalTransactionId == "2000001092134138")
        #expect(second.purchaseDate == SampleFiles.date("2025-12-26T18:19:07Z"))
        #expect(second.expiresDate == SampleFiles.date("2025-12-26T18:55:07Z"))
        #expect(second.webOrderLineItemId == 2000000123357230)
        #expect(receipt.container.certificates.count == 3)
        #expect(receipt.container.signers.first?.digest == .sha256)
        #expect(receipt.container.signers.first?.signedAttributes == nil)
    }

    @Test func sandboxReceiptVerifiesAtItsCreationDate() throws {
        let receipt = try AppReceipt(derEncoded: try SampleFiles.der("unified-sandbox-sha256-g5.b64"))
        let verdict = ReceiptVerifier(trust: SampleFiles.apple).verify(receipt)
        #expect(verdict.status == .valid, "\(verdict.reason)")
        #expect(verdict.chain == ["Mac App Store and iTunes Store Receipt Signing",
                                  "Apple Worldwide Developer Relations Certification Authority", "Apple Root CA"])
        #expect(verdict.validationTime == SampleFiles.date("2025-12-26T18:39:47Z"))
        #expect(verdict.extraAnchor == nil)
    }

    @Test func deviceHashMatchesOnlyTheRightDevice() throws {
        let receipt = try AppReceipt(derEncoded: try SampleFiles.der("unified-sandbox-sha256-g5.b64"))
        let right = try #require(UUID(uuidString: "956328D9-CC6A-47F4-BE40-6953FB0AB6C7"))
        let zero = try #require(UUID(uuidString: "00000000-0000-0000-0000-000000000000"))
        #expect(ReceiptVerifier(trust: SampleFiles.apple, deviceIdentifier: right).verify(receipt).status == .valid)
        let wrong = ReceiptVerifier(trust: SampleFiles.apple, deviceIdentifier: zero).verify(receipt)
        #expect(wrong.status == .invalid)
        #expect(wrong.reason.contains("device hash"))
    }

    @Test func tamperedContentIsInvalid() throws {
        var der = try SampleFiles.der("unified-sandbox-sha256-g5.b64")
        // Change one letter of the bundle id inside the signed payload; the length stays the same.
        let needle = Array("dev.bonzer.weeka.app".utf8)
        let index = try #require((0...(der.count - needle.count)).first { Array(der[$0..<($0 + needle.count)]) == needle })
        der[index] = UInt8(ascii: "x")
        let receipt = try AppReceipt(derEncoded: der)
        #expect(receipt.bundleId == "xev.bonzer.weeka.app")
        let verdict = ReceiptVerifier(trust: SampleFiles.apple).verify(receipt)
        #expect(verdict.status == .invalid)
        #expect(verdict.reason.contains("changed after signing"))
    }

    @Test func emptyTrustStoreMakesItInvalid() throws {
        let receipt = try AppReceipt(derEncoded: try SampleFiles.der("unified-sandbox-sha256-g5.b64"))
        let verdict = ReceiptVerifier(trust: TrustStore(anchors: [], legacyIntermediates: [], storeKitTesting: nil)).verify(receipt)
        #expect(verdict.status == .invalid)
        #expect(verdict.reason.contains("does not verify"))
    }

    @Test func bundleIdExpectationIsChecked() throws {
        let receipt = try AppReceipt(derEncoded: try SampleFiles.der("unified-sandbox-sha256-g5.b64"))
        let verdict = ReceiptVerifier(trust: SampleFiles.apple, expectedBundleIds: ["com.other"]).verify(receipt)
        #expect(verdict.status == .invalid)
        // What did verify comes first: Apple signed it, it is another app's.
        #expect(verdict.reason.hasPrefix("Apple's signature (SHA-256, RSA) and chain valid; invalid app identifier: bundle id "), "\(verdict.reason)")
        #expect(verdict.reason.hasSuffix(" is not this app's (com.other)"), "\(verdict.reason)")
        #expect(verdict.chain.count == 3, "the chain that verified is kept")
    }

    @Test func xcodeBERReceiptDecodesAndIsUnverifiable() throws {
        let receipt = try AppReceipt(derEncoded: try SampleFiles.der("unified-xcode-ber.b64"))
        #expect(receipt.environment.environment == .xcode)
        #expect(receipt.bundleId == "net.zachariadis.cyclemaps")
        #expect(receipt.appVersion == "31.10.0")
        #expect(receipt.creationDate == SampleFiles.date("2020-07-22T17:33:15Z"), "+0100 offset without a colon")
        #expect(receipt.expirationDate == SampleFiles.date("4001-01-01T00:00:00Z"))
        #expect(receipt.inApp.count == 1)
        #expect(receipt.inApp.first?.productId == "CYCLEMAPS_PREMIUM")
        #expect(receipt.inApp.first?.transactionId == "0")
        let verdict = ReceiptVerifier(trust: SampleFiles.apple).verify(receipt)
        #expect(verdict.status == .unverifiable)
        #expect(verdict.reason.contains("Xcode"))
        #expect(verdict.reason.contains("matches Xcode's StoreKit certificate"))
    }

    @Test func emptyXcodeReceiptWarnsToRestorePurchases() throws {
        let artefact = try ReceiptDecoder.decode(try SampleFiles.bytes("unified-xcode-empty.b64"))
        guard case .unified(let receipt) = artefact else { Issue.record("not unified"); return }
        #expect(receipt.inApp.isEmpty)
        #expect(artefact.summary.purchases.isEmpty)
        let warnings = artefact.tree(now: Date(timeIntervalSince1970: 0)).allWarnings
        #expect(warnings.contains { $0.kind == .emptyPurchaseList && $0.message.contains("restore purchases") })
    }

    @Test func treeCarriesNamesNumbersAndWarnings() throws {
        let receipt = try AppReceipt(derEncoded: try SampleFiles.der("unified-sandbox-sha256-g5.b64"))
        let tree = receipt.tree(now: SampleFiles.date("2026-01-01T00:00:00Z"))
        let bundle = try #require(tree.first(labelled: "bundle_id"))
        #expect(bundle.attribute == 2)
        #expect(bundle.value == "\"dev.bonzer.weeka.app\"")
        #expect(tree.first(labelled: "receipt_type")?.warnings.first?.kind == .sandbox)
        #expect(tree.first(labelled: "original_application_version")?.warnings.first?.kind == .sandboxVersionConstant)
        let inApp = try #require(tree.first(labelled: "in_app"))
        #expect(inApp.children.count == 2)
        #expect(inApp.children[0].first(labelled: "expires_date")?.warnings.first?.kind == .expired)
        #expect(inApp.children[0].first(labelled: "purchase_date")?.value == "2025-12-26T17:43:07Z")
        #expect(tree.allWarnings.contains { $0.kind == .unknownAttribute }, "1709/1710/… are unknown and kept raw")
        #expect(receipt.inApp[0].unknownAttributes.contains { $0.type == 1710 })
    }
}
