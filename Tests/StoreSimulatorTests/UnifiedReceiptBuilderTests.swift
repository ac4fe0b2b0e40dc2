import Foundation
import ReceiptCore
import StoreSimulator
import Testing

@Suite("Unified receipt builder")
struct UnifiedReceiptBuilderTests {
    static func date(_ text: String) -> Date { RFC3339.parse(text) ?? .distantPast }

    static func sample() -> UnifiedReceiptBuilder {
        var builder = UnifiedReceiptBuilder(bundleId: "com.example.game", appVersion: "42",
                                            creationDate: date("2025-12-26T18:39:47Z"))
        builder.receiptType = "Production"
        builder.appItemId = 1_234_567_890
        builder.originalAppVersion = "17"
        builder.originalPurchaseDate = date("2013-08-01T07:00:00Z")
        builder.transactionDate = date("2025-12-26T18:39:40Z")
        builder.expirationDate = date("2026-12-26T00:00:00Z")
        builder.opaqueValue = [0xBE, 0x1D, 0xD3, 0xEA, 0x9B, 0xCF, 0x4D, 0x08, 0x65, 0x2E, 0xB5, 0x39, 0xB9, 0xE0, 0x56, 0x94]
        builder.deviceIdentifier = UnifiedReceiptBuilder.deviceIdentifier(UUID(uuidString: "956328D9-CC6A-47F4-BE40-6953FB0AB6C7") ?? UUID())
        builder.fulfillmentToolVersion = 5_033_050
        builder.ageRating = "4+"
        builder.developerId = 0
        builder.downloadId = 99
        builder.installerVersionId = 7
        builder.purchases = [
            ReceiptPurchase(productId: "pro.monthly", transactionId: "1000000359369425", originalTransactionId: "1000000359369424",
                            purchaseDate: date("2025-12-26T17:43:07Z"), originalPurchaseDate: date("2025-11-26T17:43:07Z"),
                            expiresDate: date("2026-01-26T17:43:07Z"), productTypeCode: 3, webOrderLineItemId: 2_000_000_123_357_229,
                            isTrialPeriod: false, isInIntroOfferPeriod: true, promotionalOfferId: "winback.2025"),
            ReceiptPurchase(productId: "金币礼包", transactionId: "1000000359369426", purchaseDate: date("2025-12-20T10:00:00Z"),
                            cancellationDate: date("2025-12-21T10:00:00Z"), quantity: 3, productTypeCode: 1,
                            isTrialPeriod: true, isInIntroOfferPeriod: nil),
        ]
        return builder
    }

    @Test("a built receipt decodes with every field equal")
    func roundTrip() throws {
        let ca = try TestCertificateAuthority.shared()
        let builder = Self.sample()
        let built = try builder.build(signedBy: ca)
        let receipt = try AppReceipt(derEncoded: built.der)

        #expect(receipt.receiptType == "Production")
        #expect(receipt.environment.environment == .production)
        #expect(receipt.appItemId == 1_234_567_890)
        #expect(receipt.bundleId == "com.example.game")
        #expect(receipt.bundleIdData == DER.utf8String("com.example.game"))
        #expect(receipt.appVersion == "42")
        #expect(receipt.originalAppVersion == "17")
        #expect(receipt.creationDate == Self.date("2025-12-26T18:39:47Z"))
        #expect(receipt.transactionDate == Self.date("2025-12-26T18:39:40Z"))
        #expect(receipt.originalPurchaseDate == Self.date("2013-08-01T07:00:00Z"))
        #expect(receipt.expirationDate == Self.date("2026-12-26T00:00:00Z"))
        #expect(receipt.opaqueValue == builder.opaqueValue)
        #expect(receipt.sha1Hash == builder.computedSHA1Hash)
        #expect(receipt.fulfillmentToolVersion == 5_033_050)
        #expect(receipt.ageRating == "4+")
        #expect(receipt.developerId == 0)
        #expect(receipt.downloadId == 99)
        #expect(receipt.installerVersionId == 7)
        #expect(receipt.matchesDevice(builder.deviceIdentifier))
        #expect(!receipt.matchesDevice([UInt8](repeating: 0, count: 16)))
        #expect(receipt.unknownAttributes.isEmpty)

        try #require(receipt.inApp.count == 2)
        // The in-app attributes are in a DER SET, so their order follows their encodings.
        let byId = Dictionary(uniqueKeysWithValues: receipt.inApp.map { ($0.transactionId ?? "", $0) })
        for expected in builder.purchases {
            let decoded = try #require(byId[expected.transactionId])
            #expect(decoded.quantity == expected.quantity)
            #expect(decoded.productId == expected.productId)
            #expect(decoded.originalTransactionId == expected.originalTransactionId)
            #expect(decoded.purchaseDate == expected.purchaseDate)
            #expect(decoded.originalPurchaseDate == expected.originalPurchaseDate)
            #expect(decoded.expiresDate == expected.expiresDate)
            #expect(decoded.cancellationDate == expected.cancellationDate)
            #expect(decoded.productTypeCode == expected.productTypeCode)
            #expect(decoded.webOrderLineItemId == expected.webOrderLineItemId)
            #expect(decoded.isTrialPeriod == expected.isTrialPeriod)
            #expect(decoded.isInIntroOfferPeriod == expected.isInIntroOfferPeriod)
            #expect(decoded.promotionalOfferId == expected.promotionalOfferId)
            #expect(decoded.unknownAttributes.isEmpty)
        }
        #expect(byId["1000000359369425"]?.purchase.productType == .autoRenewable)
        #expect(byId["1000000359369426"]?.purchase.productType == .consumable)
    }

    @Test("the container is laid out as Apple's and its signature verifies with the leaf key", arguments: [DigestAlgorithm.sha256, .sha1])
    func container(digest: DigestAlgorithm) throws {
        let ca = try TestCertificateAuthority.shared()
        var builder = Self.sample()
        builder.digest = digest
        let built = try builder.build(signedBy: ca)
        let receipt = try AppReceipt(derEncoded: built.der)
        let container = receipt.container

        #expect(container.content == built.payload)
        #expect(container.certificates.map(Array.init) == [ca.receiptLeaf.der, ca.wwdrIntermediate.der, ca.root.der])
        try #require(container.signers.count == 1)
        let signer = container.signers[0]
        #expect(signer.digest == digest)
        #expect(signer.digestAlgorithmOID == (digest == .sha1 ? OID.sha1 : OID.sha256).dotted)
        #expect(signer.signatureAlgorithmOID == OID.rsaEncryption.dotted)
        #expect(signer.signedAttributes == nil)
        #expect(signer.signature == built.signature)
        #expect(signer.signature.count == 256)
        #expect(signer.issuer.map(Array.init) == ca.receiptChain.leaf.issuer.der)
        #expect(signer.serialNumber.map(Array.init) == Array(DER.unsignedInteger(ca.receiptChain.leaf.serialNumber).dropFirst(2)))

        let leafKey = try ca.receiptLeaf.publicKey()
        #expect(leafKey.verify(signature: signer.signature, message: container.content, digest: digest))
        let other: DigestAlgorithm = digest == .sha1 ? .sha256 : .sha1
        #expect(!leafKey.verify(signature: signer.signature, message: container.content, digest: other))
        var tampered = container.content
        tampered[tampered.count / 2] ^= 0x01
        #expect(!leafKey.verify(signature: signer.signature, message: tampered, digest: digest))

        // The embedded chain verifies at the creation date under Apple's policy.
        let chain = ChainVerifier.verify(leaf: container.certificates[0], intermediates: Array(container.certificates.dropFirst()),
                                         at: try #require(receipt.creationDate), policy: .appStore, store: ca.trustStore())
        #expect(throws: Never.self) { try chain.get() }
    }

    @Test("the payload is a DER SET sorted by encoding, and the whole receipt is DER")
    func derOrder() throws {
        let built = try Self.sample().build(signedBy: try TestCertificateAuthority.shared())
        let payload = try ASN1Reader.parseSingle(built.payload, "payload")
        var reader = payload.children()
        var encodings: [[UInt8]] = []
        while let node = try reader.readIfPresent() { encodings.append(Array(node.encoded)) }
        #expect(encodings == encodings.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(!payload.isIndefinite)
        #expect(try ASN1Reader.parseSingle(built.der, "receipt").end == built.der.count)
        #expect(Data(base64Encoded: built.base64).map(Array.init) == built.der)
    }

    @Test("absent dates are empty strings by default and can be omitted")
    func absentDates() throws {
        let ca = try TestCertificateAuthority.shared()
        var builder = UnifiedReceiptBuilder(bundleId: "com.example.app", appVersion: "1", creationDate: Self.date("2024-01-01T00:00:00Z"),
                                            purchases: [ReceiptPurchase(productId: "p", transactionId: "1", purchaseDate: nil)])
        let empty = try AppReceipt(derEncoded: try builder.build(signedBy: ca).der)
        #expect(empty.transactionDate == nil)
        #expect(empty.originalPurchaseDate == nil)
        #expect(empty.expirationDate == nil)
        #expect(empty.attributes.contains { $0.type == 8 && $0.value(in: empty.payload).elementsEqual(DER.ia5String("")) })
        let purchase = try #require(empty.inApp.first)
        #expect(purchase.purchaseDate == nil && purchase.expiresDate == nil && purchase.cancellationDate == nil)
        #expect(Set(purchase.attributes.map(\.type)).isSuperset(of: [1704, 1706, 1708, 1712]))

        builder.absentDates = .omitted
        let omitted = try AppReceipt(derEncoded: try builder.build(signedBy: ca).der)
        #expect(!omitted.attributes.contains { $0.type == 8 || $0.type == 18 || $0.type == 21 })
        #expect(Set(try #require(omitted.inApp.first).attributes.map(\.type)).isDisjoint(with: [1704, 1706, 1708, 1712]))
    }

    @Test("a receipt with 100 purchases decodes with 100 in-app entries")
    func hundredPurchases() throws {
        var builder = UnifiedReceiptBuilder(bundleId: "com.example.coins", appVersion: "3", creationDate: Self.date("2025-03-01T12:00:00Z"))
        let start = Self.date("2025-01-01T00:00:00Z")
        builder.purchases = (0..<100).map { index in
            ReceiptPurchase(productId: "coins.\(index % 4)", transactionId: String(1_000_000_000_000_000 + index),
                            purchaseDate: start.addingTimeInterval(Double(index) * 3600), productTypeCode: 1)
        }
        let receipt = try AppReceipt(derEncoded: try builder.build(signedBy: try TestCertificateAuthority.shared()).der)
        #expect(receipt.inApp.count == 100)
        #expect(Set(receipt.inApp.compactMap(\.transactionId)).count == 100)
        #expect(Set(receipt.inApp.compactMap(\.purchaseDate)) == Set(builder.purchases.compactMap(\.purchaseDate)))
    }

    @Test("extra raw attributes come back as unknown attributes")
    func unknownAttributes() throws {
        var builder = Self.sample()
        builder.extraAttributes = [.utf8(99, "new field"), RawReceiptAttribute(type: 1000, version: 3, value: [0xDE, 0xAD])]
        builder.purchases[0].extraAttributes = [.integer(1799, 7)]
        let receipt = try AppReceipt(derEncoded: try builder.build(signedBy: try TestCertificateAuthority.shared()).der)
        #expect(receipt.unknownAttributes.map(\.type).sorted() == [99, 1000])
        #expect(receipt.unknownAttributes.first { $0.type == 1000 }?.version == 3)
        #expect(receipt.unknownAttributes.first { $0.type == 99 }?.displayValue(in: receipt.payload) == "\"new field\"")
        let purchase = try #require(receipt.inApp.first { $0.transactionId == "1000000359369425" })
        #expect(purchase.unknownAttributes.map(\.type) == [1799])
    }

    @Test("Apple's undocumented attributes can be included")
    func undocumented() throws {
        var builder = Self.sample()
        builder.includeUndocumentedAttributes = true
        let receipt = try AppReceipt(derEncoded: try builder.build(signedBy: try TestCertificateAuthority.shared()).der)
        #expect(Set(receipt.attributes.map(\.type)).isSuperset(of: ReceiptFieldNames.reserved))
        #expect(receipt.unknownAttributes.isEmpty == false)  // 6, 7, … are not typed fields
        #expect(Set(try #require(receipt.inApp.first).unknownAttributes.map(\.type)) == [1709, 1710, 1714, 1715, 1716, 1717, 1718, 1722])
        #expect(receipt.bundleId == "com.example.game")
    }

    @Test("a hash override breaks the device match")
    func hashOverride() throws {
        var builder = Self.sample()
        builder.sha1HashOverride = [UInt8](repeating: 0xAB, count: 20)
        let receipt = try AppReceipt(derEncoded: try builder.build(signedBy: try TestCertificateAuthority.shared()).der)
        #expect(receipt.sha1Hash == [UInt8](repeating: 0xAB, count: 20))
        #expect(!receipt.matchesDevice(builder.deviceIdentifier))
    }

    @Test("the device hash follows Apple's recipe (checked against a real receipt's values)")
    func realHash() throws {
        var builder = UnifiedReceiptBuilder(bundleId: "dev.bonzer.weeka.app", appVersion: "2", creationDate: Self.date("2025-12-26T18:39:47Z"))
        builder.opaqueValue = [0xBE, 0x1D, 0xD3, 0xEA, 0x9B, 0xCF, 0x4D, 0x08, 0x65, 0x2E, 0xB5, 0x39, 0xB9, 0xE0, 0x56, 0x94]
        builder.deviceIdentifier = UnifiedReceiptBuilder.deviceIdentifier(try #require(UUID(uuidString: "956328D9-CC6A-47F4-BE40-6953FB0AB6C7")))
        #expect(builder.computedSHA1Hash.hexString == "2158847543683847e9382a0fc51853cb17abcd6d")
    }

    @Test("receipts signed by the impostor or the unmarked authority carry their chains")
    func otherAuthorities() throws {
        for kind in [TestCertificateAuthority.Kind.impostor, .withoutAppleMarkers] {
            let other = try TestCertificateAuthority.shared(kind)
            let receipt = try AppReceipt(derEncoded: try Self.sample().build(signedBy: other).der)
            #expect(receipt.container.certificates.map(Array.init) == [other.receiptLeaf.der, other.wwdrIntermediate.der, other.root.der])
            let key = try other.receiptLeaf.publicKey()
            let signer = try #require(receipt.container.signers.first)
            #expect(key.verify(signature: signer.signature, message: receipt.container.content, digest: .sha256))
            let chain = ChainVerifier.verify(leaf: receipt.container.certificates[0], intermediates: Array(receipt.container.certificates.dropFirst()),
                                             at: try #require(receipt.creationDate), policy: .appStore,
                                             store: try TestCertificateAuthority.shared().trustStore())
            #expect(throws: ChainFailure.self) { try chain.get() }
        }
    }

    @Test("the embedded certificates can be replaced, and an EC signer is refused")
    func overridesAndRefusals() throws {
        let ca = try TestCertificateAuthority.shared()
        var builder = Self.sample()
        builder.certificatesOverride = [ca.receiptLeaf]
        let receipt = try AppReceipt(derEncoded: try builder.build(signedBy: ca).der)
        #expect(receipt.container.certificates.count == 1)
        #expect(throws: ReceiptError(.configuration, "")) { try Self.sample().build(signedBy: ca.jwsChain) }
    }
}
