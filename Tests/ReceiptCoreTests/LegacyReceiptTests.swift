import Foundation
import ReceiptCore
import Testing

/// Legacy iOS 6 transaction receipts: the real sandbox receipt from aporat/store-receipt-validator,
/// the synthetic unsigned one from apple/app-store-server-library, and hand-made variants.
@Suite struct LegacyReceiptTests {
    static let sandboxPurchaseInfo: [(String, String)] = [
        ("original-purchase-date-pst", "2012-04-30 08:05:55 America/Los_Angeles"),
        ("original-transaction-id", "1000000046178817"),
        ("bvrs", "20120427"),
        ("transaction-id", "1000000046178817"),
        ("quantity", "1"),
        ("original-purchase-date-ms", "1335798355868"),
        ("product-id", "com.mindmobapp.download"),
        ("item-id", "521129812"),
        ("bid", "com.mindmobapp.MindMob"),
        ("purchase-date-ms", "1335798355868"),
        ("purchase-date", "2012-04-30 15:05:55 Etc/GMT"),
        ("purchase-date-pst", "2012-04-30 08:05:55 America/Los_Angeles"),
        ("original-purchase-date", "2012-04-30 15:05:55 Etc/GMT"),
    ]
    static let purchaseInstant = Date(timeIntervalSince1970: 1_335_798_355.868)

    // MARK: the real sandbox receipt

    @Test func sandboxReceiptDecodesEveryValue() throws {
        let receipt = try LegacyReceipt(base64: try LegacyFixture.text("legacy-ios6-sandbox.b64"))
        #expect(receipt.envelope.map(\.key) == ["signature", "purchase-info", "environment", "pod", "signing-status"])
        #expect(receipt.environmentRaw == "Sandbox")
        #expect(receipt.environment.environment == .sandbox && receipt.environment.source == .legacyPurchaseInfo && receipt.environment.claim?.rawValue == "Sandbox")
        #expect(receipt.pod == "100")
        #expect(receipt.signingStatus == "0")
        #expect(receipt.purchaseInfo.map(\.key) == Self.sandboxPurchaseInfo.map(\.0))
        #expect(receipt.purchaseInfo.map { $0.value.stringValue ?? "" } == Self.sandboxPurchaseInfo.map(\.1))
        #expect(receipt.transactionId == "1000000046178817")
        #expect(receipt.originalTransactionId == "1000000046178817")
        #expect(receipt.productId == "com.mindmobapp.download")
        #expect(receipt.quantity == 1)
        #expect(receipt.bundleId == "com.mindmobapp.MindMob")
        #expect(receipt.bundleVersion == "20120427")
        #expect(receipt.itemId == "521129812")
        #expect(receipt.purchaseDate == Self.purchaseInstant)
        #expect(receipt.originalPurchaseDate == Self.purchaseInstant)
        #expect(receipt.purchaseDatePST == "2012-04-30 08:05:55 America/Los_Angeles")
        #expect(receipt.originalPurchaseDatePST == "2012-04-30 08:05:55 America/Los_Angeles")
        #expect(receipt.expiresDate == nil && receipt.cancellationDate == nil)
        #expect(receipt.purchaseInfoBytes.first == UInt8(ascii: "{"))
    }

    @Test func sandboxReceiptSignatureBlob() throws {
        let receipt = try LegacyReceipt(base64: try LegacyFixture.text("legacy-ios6-sandbox.b64"))
        let blob = try #require(receipt.signature)
        #expect(blob.version == 2)
        #expect(blob.signature.count == 128)
        #expect(blob.certificateDER.count == 855)
        #expect(blob.bytes.count == 988)
        #expect(blob.leafCommonName == "PurchaseReceiptCertificate")
    }

    @Test func sandboxReceiptPurchase() throws {
        let purchase = try LegacyReceipt(base64: try LegacyFixture.text("legacy-ios6-sandbox.b64")).purchase
        #expect(purchase.transactionId == "1000000046178817")
        #expect(purchase.originalTransactionId == "1000000046178817")
        #expect(purchase.productId == "com.mindmobapp.download")
        #expect(purchase.quantity == 1)
        #expect(purchase.purchaseDate == Self.purchaseInstant)
        #expect(purchase.originalPurchaseDate == Self.purchaseInstant)
        #expect(purchase.productType == nil)
    }

    @Test func sandboxReceiptVerifiesAgainstApple() throws {
        let receipt = try LegacyReceipt(base64: try LegacyFixture.text("legacy-ios6-sandbox.b64"))
        let verdict = receipt.verify(trust: try .apple())
        #expect(verdict.status == .valid, "\(verdict.reason)")
        #expect(verdict.chain == ["PurchaseReceiptCertificate", "Apple iTunes Store Certification Authority", "Apple Root CA"])
        #expect(verdict.validationTime == Self.purchaseInstant)
        #expect(verdict.extraAnchor == nil)
    }

    @Test func base64WithLineBreaksAndSpaces() throws {
        let text = try LegacyFixture.text("legacy-ios6-sandbox.b64")
        var wrapped = ""
        for (index, character) in text.enumerated() {
            if index > 0 && index % 76 == 0 { wrapped += index % 152 == 0 ? "\r\n" : " \n\t" }
            wrapped.append(character)
        }
        let plain = try LegacyReceipt(base64: text)
        let broken = try LegacyReceipt(base64: wrapped)
        #expect(broken.purchaseInfoBytes == plain.purchaseInfoBytes)
        #expect(broken.signature == plain.signature)
    }

    @Test func tamperedPurchaseInfoIsInvalid() throws {
        let original = try LegacyReceipt(base64: try LegacyFixture.text("legacy-ios6-sandbox.b64"))
        var info = original.purchaseInfoBytes
        let needle = Array(#""quantity" = "1""#.utf8)
        let at = try #require(info.indices.first { info[$0...].starts(with: needle) })
        info[at + needle.count - 2] = UInt8(ascii: "2")
        let entries = original.envelope.map { entry -> (String, String) in
            entry.key == "purchase-info" ? (entry.key, Data(info).base64EncodedString()) : (entry.key, entry.value.stringValue ?? "")
        }
        let tampered = try LegacyReceipt(plistBytes: LegacyFixture.plist(entries))
        #expect(tampered.quantity == 2)
        let verdict = tampered.verify(trust: try .apple())
        #expect(verdict.status == .invalid)
        #expect(verdict.reason.contains("signature does not match"), "\(verdict.reason)")
        #expect(verdict.chain.count == 3)
    }

    @Test func emptyTrustStoreIsInvalid() throws {
        let receipt = try LegacyReceipt(base64: try LegacyFixture.text("legacy-ios6-sandbox.b64"))
        let verdict = receipt.verify(trust: TrustStore(anchors: [], legacyIntermediates: [], storeKitTesting: nil))
        #expect(verdict.status == .invalid)
        #expect(verdict.chain.first == "PurchaseReceiptCertificate")
        #expect(verdict.validationTime == Self.purchaseInstant)
    }

    @Test func sandboxReceiptTree() throws {
        let receipt = try LegacyReceipt(base64: try LegacyFixture.text("legacy-ios6-sandbox.b64"))
        let tree = receipt.tree(now: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(tree.label == "legacy receipt")
        #expect(tree.children.map(\.label) == ["signature", "purchase-info", "environment", "pod", "signing-status"])
        #expect(tree.first(labelled: "signature")?.value == "version 2, 128-byte signature, leaf PurchaseReceiptCertificate")
        let info = try #require(tree.first(labelled: "purchase-info"))
        #expect(info.children.map(\.label) == Self.sandboxPurchaseInfo.map(\.0))
        #expect(info.first(labelled: "bid")?.value == "com.mindmobapp.MindMob")
        #expect(info.first(labelled: "purchase-date-ms")?.value == "1335798355868 (2012-04-30T15:05:55.868Z)")
        #expect(tree.allWarnings.map(\.kind) == [.sandbox])
        #expect(tree.first(labelled: "environment")?.warnings.first?.kind == .sandbox)
    }

    // MARK: the synthetic unsigned receipt

    @Test func minimalReceiptIsUnsigned() throws {
        let receipt = try LegacyReceipt(base64: try LegacyFixture.text("legacy-synthetic-minimal.b64"))
        #expect(receipt.transactionId == "33993399")
        #expect(receipt.signature == nil)
        // No app-item-id and no environment key: the envelope claims production, purchase-info
        // (here not even signed) says sandbox, and the reading takes the safe side.
        #expect(receipt.environment.environment == .sandbox)
        #expect(receipt.environment.source == .legacyPurchaseInfo)
        #expect(!receipt.environment.isSigned)
        #expect(receipt.environment.isMismatch)
        let verdict = receipt.verify(trust: try .apple())
        #expect(verdict.status == .unsigned)
        #expect(verdict.reason == "legacy receipt carries no signature")
        let tree = receipt.tree(now: Date(timeIntervalSince1970: 0))
        #expect(tree.first(labelled: "signature")?.value == "absent")
        #expect(tree.first(labelled: "environment")?.value
                == "absent (claims Production) · unsigned claim; purchase-info (unsigned here): app-item-id absent → Sandbox")
        #expect(tree.allWarnings.map(\.kind) == [.signature, .environmentMismatch, .sandbox])
    }

    // MARK: hand-made variants

    @Test func everyKnownKeyIsTyped() throws {
        let receipt = try LegacyFixture.receipt(info: [
            ("transaction-id", "7"), ("app-item-id", "42"), ("version-external-identifier", "99"),
            ("purchase-date", "2012-04-30 15:05:55 Etc/GMT"),
            ("expires-date", "1343406620000"), ("expires-date-formatted", "2012-07-27 16:30:20 Etc/GMT"),
            ("cancellation-date", "2012-05-01 00:00:00 Etc/GMT"), ("web-order-line-item-id", "1000000026638439"),
            ("unique-identifier", "0000b01147b8"), ("unique-vendor-identifier", "2E3A6F1B-8B1A-4B2B-9D0E-111111111111"),
            ("is-trial-period", "true"), ("is-in-intro-offer-period", "false"), ("x-unknown", "kept"),
        ])
        #expect(receipt.appItemId == "42")
        #expect(receipt.versionExternalIdentifier == "99")
        #expect(receipt.purchaseDate == Date(timeIntervalSince1970: 1_335_798_355))
        #expect(receipt.expiresDate == Date(timeIntervalSince1970: 1_343_406_620))
        #expect(receipt.cancellationDate == Date(timeIntervalSince1970: 1_335_830_400))
        #expect(receipt.webOrderLineItemId == "1000000026638439")
        #expect(receipt.uniqueIdentifier == "0000b01147b8")
        #expect(receipt.uniqueVendorIdentifier == "2E3A6F1B-8B1A-4B2B-9D0E-111111111111")
        #expect(receipt.isTrialPeriod == true && receipt.isInIntroOfferPeriod == false)
        #expect(receipt.purchaseInfoValue("x-unknown") == "kept")
        #expect(receipt.purchase.webOrderLineItemId == "1000000026638439")
        #expect(receipt.purchase.isTrialPeriod == true)
    }

    @Test func millisecondsWinOverFormattedDates() throws {
        let receipt = try LegacyFixture.receipt(info: [
            ("purchase-date", "2012-04-30 15:05:55 Etc/GMT"), ("purchase-date-ms", "1000"),
            ("expires-date-formatted", "2012-07-27 16:30:20 Etc/GMT"), ("expires-date-ms", "2000"),
            ("cancellation-date", ""),
        ])
        #expect(receipt.purchaseDate == Date(timeIntervalSince1970: 1))
        #expect(receipt.expiresDate == Date(timeIntervalSince1970: 2))
        #expect(receipt.cancellationDate == nil)  // empty means absent
        let formattedOnly = try LegacyFixture.receipt(info: [("expires-date-formatted", "2012-07-27 16:30:20 GMT")])
        #expect(formattedOnly.expiresDate == Date(timeIntervalSince1970: 1_343_406_620))
    }

    @Test func treeWarnsAboutExpiryAndCancellation() throws {
        let receipt = try LegacyFixture.receipt(info: [
            ("transaction-id", "1"), ("app-item-id", "42"), ("expires-date", "1343406620000"), ("cancellation-date-ms", "1343406000000"),
        ], extra: [("environment", "Production")])
        let tree = receipt.tree(now: Date(timeIntervalSince1970: 1_400_000_000))
        #expect(tree.first(labelled: "expires-date")?.warnings.map(\.kind) == [.expired])
        #expect(tree.first(labelled: "cancellation-date-ms")?.warnings.map(\.kind) == [.cancelled])
        #expect(tree.first(labelled: "expires-date")?.value == "1343406620000 (2012-07-27T16:30:20Z)")
        #expect(!tree.allWarnings.contains { $0.kind == .sandbox })
        let before = receipt.tree(now: Date(timeIntervalSince1970: 1_300_000_000))
        #expect(!before.allWarnings.contains { $0.kind == .expired })
    }

    @Test func unknownEnvelopeKeysAreKept() throws {
        let receipt = try LegacyFixture.receipt(info: [("transaction-id", "1")], extra: [("x-extra", "yes")])
        #expect(receipt.envelope.map(\.key) == ["purchase-info", "x-extra"])
        #expect(receipt.tree(now: Date()).first(labelled: "x-extra")?.value == "yes")
    }

    @Test func versionThreeBlobLayout() throws {
        let blob = try LegacySignatureBlob(bytes: [3] + [UInt8](repeating: 0xAB, count: 256) + [0, 0, 0, 4] + [1, 2, 3, 4])
        #expect(blob.version == 3 && blob.signature.count == 256 && blob.certificateDER == [1, 2, 3, 4])
        #expect(blob.leafCommonName == nil)
        let receipt = try LegacyFixture.receipt(info: [("purchase-date-ms", "1335798355868")],
                                                extra: [("signature", Data(blob.bytes).base64EncodedString())])
        #expect(receipt.verify(trust: try .apple()).status == .invalid)  // unreadable leaf: a verdict, not a throw
        #expect(receipt.tree(now: Date()).first(labelled: "signature")?.value == "version 3, 256-byte signature, leaf unreadable certificate")
    }

    @Test func signedReceiptWithoutPurchaseDateIsInvalid() throws {
        let blob = try LegacyFixture.sandboxBlob()
        let receipt = try LegacyFixture.receipt(info: [("transaction-id", "1")],
                                                extra: [("signature", Data(blob).base64EncodedString())])
        let verdict = receipt.verify(trust: try .apple())
        #expect(verdict.status == .invalid && verdict.reason.contains("no purchase date"))
    }
}

/// Loads the sample receipts (Assets/Samples) and builds receipts from readable parts.
enum LegacyFixture {
    static func text(_ name: String) throws -> String {
        try SampleFiles.text(name)
    }

    /// `{ "k" = "v"; … }` as bytes.
    static func plist(_ entries: [(String, String)]) -> [UInt8] {
        Array(("{\n" + entries.map { "\t\"\($0.0)\" = \"\($0.1)\";\n" }.joined() + "}").utf8)
    }

    /// A receipt whose purchase-info holds `info`, with `extra` envelope entries after it.
    static func receipt(info: [(String, String)], extra: [(String, String)] = []) throws -> LegacyReceipt {
        try LegacyReceipt(plistBytes: plist([("purchase-info", Data(plist(info)).base64EncodedString())] + extra))
    }

    /// The decoded signature blob of the real sandbox receipt.
    static func sandboxBlob() throws -> [UInt8] {
        try LegacyReceipt(base64: try text("legacy-ios6-sandbox.b64")).signature?.bytes ?? []
    }
}

/// Every way a legacy receipt can be malformed: each asserts the error code and where it was.
@Suite struct LegacyReceiptErrorTests {
    private func receipt(info text: String, extra: [(String, String)] = []) throws -> LegacyReceipt {
        try LegacyReceipt(plistBytes: LegacyFixture.plist([("purchase-info", Data(text.utf8).base64EncodedString())] + extra))
    }

    @Test func badOuterBase64() {
        expectLegacyError(.badBase64, ["legacy receipt", "'{'", "byte 0"]) { _ = try LegacyReceipt(base64: "{not base64}") }
        expectLegacyError(.badBase64, ["byte 5", "lone"]) { _ = try LegacyReceipt(base64: "QUJDR") }
        expectLegacyError(.badBase64, ["byte 3", "after '=' padding"]) { _ = try LegacyReceipt(base64: "QQ=B") }
    }

    @Test func badBase64InPurchaseInfo() {
        expectLegacyError(.badBase64, ["'purchase-info'", "'!'", "byte 4"]) {
            _ = try LegacyReceipt(plistBytes: LegacyFixture.plist([("purchase-info", "ewoi!!")]))
        }
    }

    @Test func badBase64InSignature() {
        expectLegacyError(.badBase64, ["'signature'", "byte 2"]) {
            _ = try LegacyReceipt(plistBytes: LegacyFixture.plist([("signature", "AA*A"), ("purchase-info", "e30=")]))
        }
    }

    @Test func truncatedEnvelopePlist() throws {
        let text = try LegacyFixture.text("legacy-ios6-sandbox.b64").trimmingCharacters(in: .whitespacesAndNewlines)
        let bytes = Array(try #require(Data(base64Encoded: text)))
        let cut = try #require(bytes.lastIndex(of: UInt8(ascii: "}")))
        expectLegacyError(.truncated, ["legacy receipt: OpenStep plist at byte \(cut)", "end of input"]) {
            _ = try LegacyReceipt(plistBytes: Array(bytes.prefix(cut)))
        }
    }

    @Test func missingSemicolonInEnvelope() {
        expectLegacyError(.unexpectedTag, ["legacy receipt: OpenStep plist at byte 24: expected ';' after value"]) {
            _ = try LegacyReceipt(plistBytes: Array(#"{ "purchase-info" = "x" }"#.utf8))
        }
    }

    @Test func unterminatedStringAndBadEscapeInPurchaseInfo() {
        expectLegacyError(.truncated, ["legacy receipt purchase-info: OpenStep plist at byte 10", "unterminated string"]) {
            _ = try receipt(info: #"{ "bid" = "com.example"#)
        }
        expectLegacyError(.badValue, ["purchase-info", "byte 13", "unknown escape"]) { _ = try receipt(info: #"{ "bid" = "ab\x"; }"#) }
    }

    @Test func trailingGarbageAndDeepNesting() {
        expectLegacyError(.trailingBytes, ["legacy receipt", "byte 30"]) {
            _ = try LegacyReceipt(plistBytes: Array(#"{ "purchase-info" = "e30="; } junk"#.utf8))
        }
        expectLegacyError(.tooDeep, ["purchase-info", "byte 64"]) { _ = try receipt(info: String(repeating: "(", count: 10_000)) }
    }

    @Test func invalidUTF8InPurchaseInfo() {
        expectLegacyError(.badUTF8, ["purchase-info", "byte 1"]) {
            _ = try LegacyReceipt(plistBytes: LegacyFixture.plist([("purchase-info", Data([0x7B, 0xFF, 0x7D]).base64EncodedString())]))
        }
        expectLegacyError(.badUTF8, ["legacy receipt: OpenStep plist at byte 2"]) { _ = try LegacyReceipt(plistBytes: [0x7B, 0x20, 0xC3]) }
    }

    @Test func wrongShapes() {
        expectLegacyError(.missingField, ["'purchase-info'"]) { _ = try LegacyReceipt(plistBytes: LegacyFixture.plist([("pod", "100")])) }
        expectLegacyError(.unexpectedTag, ["envelope is not a dictionary"]) { _ = try LegacyReceipt(plistBytes: Array("(a)".utf8)) }
        expectLegacyError(.unexpectedTag, ["purchase-info is not a dictionary"]) { _ = try receipt(info: "(a, b)") }
        expectLegacyError(.unexpectedTag, ["'signature'", "data"]) {
            _ = try LegacyReceipt(plistBytes: Array(#"{ "signature" = <00>; "purchase-info" = "e30="; }"#.utf8))
        }
        expectLegacyError(.unexpectedTag, ["'bid'", "an array"]) { _ = try receipt(info: "{ bid = (a); }") }
    }

    @Test func malformedValuesNameTheirKey() {
        expectLegacyError(.badValue, ["'purchase-date-ms'", "'12ab'"]) { _ = try receipt(info: #"{ "purchase-date-ms" = "12ab"; }"#) }
        expectLegacyError(.badValue, ["'purchase-date'"]) { _ = try receipt(info: #"{ "purchase-date" = "2012-13-40 15:05:55 Etc/GMT"; }"#) }
        expectLegacyError(.badValue, ["'purchase-date'"]) { _ = try receipt(info: #"{ "purchase-date" = "2012-04-30 15:05:55 America/Chicago"; }"#) }
        expectLegacyError(.badValue, ["'purchase-date-pst'"]) { _ = try receipt(info: #"{ "purchase-date-pst" = "yesterday"; }"#) }
        expectLegacyError(.badValue, ["'expires-date'"]) { _ = try receipt(info: #"{ "expires-date" = "soon"; }"#) }
        expectLegacyError(.badValue, ["'quantity'", "'one'"]) { _ = try receipt(info: #"{ quantity = one; }"#) }
        expectLegacyError(.badValue, ["'is-trial-period'"]) { _ = try receipt(info: #"{ "is-trial-period" = "maybe"; }"#) }
    }

    @Test func badSignatureBlobs() throws {
        let good = try LegacyFixture.sandboxBlob()
        #expect(good.count == 988)
        expectLegacyError(.truncated, ["signature blob at byte 0", "empty"]) { _ = try LegacySignatureBlob(bytes: []) }
        expectLegacyError(.badValue, ["signature blob at byte 0", "unknown version 5"]) { _ = try LegacySignatureBlob(bytes: [5] + good.dropFirst()) }
        expectLegacyError(.truncated, ["signature blob at byte 1", "128-byte signature"]) { _ = try LegacySignatureBlob(bytes: Array(good.prefix(100))) }
        expectLegacyError(.truncated, ["signature blob at byte 129", "4-byte certificate length"]) { _ = try LegacySignatureBlob(bytes: Array(good.prefix(131))) }
        expectLegacyError(.badLength, ["signature blob at byte 129", "855 runs past the end"]) { _ = try LegacySignatureBlob(bytes: Array(good.dropLast())) }
        expectLegacyError(.trailingBytes, ["signature blob at byte 988", "1 byte after"]) { _ = try LegacySignatureBlob(bytes: good + [0]) }
        expectLegacyError(.badLength, ["signature blob at byte 129", "length is 0"]) {
            _ = try LegacySignatureBlob(bytes: Array(good.prefix(129)) + [0, 0, 0, 0])
        }
        // The same failure through the receipt.
        expectLegacyError(.badValue, ["signature blob at byte 0"]) {
            _ = try receipt(info: "{}", extra: [("signature", Data([9] + good.dropFirst()).base64EncodedString())])
        }
    }
}

/// Runs `body`, which must throw a `ReceiptError` with `code` whose reason contains every part.
private func expectLegacyError(_ code: ReceiptError.Code, _ parts: [String],
                               sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected a \(code) error, got a value", sourceLocation: sourceLocation)
    } catch let error as ReceiptError {
        #expect(error.code == code, "code \(error.code): \(error.reason)", sourceLocation: sourceLocation)
        for part in parts {
            #expect(error.reason.contains(part), "'\(part)' not in: \(error.reason)", sourceLocation: sourceLocation)
        }
    } catch {
        Issue.record("expected ReceiptError, got \(error)", sourceLocation: sourceLocation)
    }
}
