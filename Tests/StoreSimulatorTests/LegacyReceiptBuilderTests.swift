import Foundation
import ReceiptCore
import StoreSimulator
import Testing

@Suite("Legacy receipt builder")
struct LegacyReceiptBuilderTests {
    /// The values of the real iOS 6 sandbox receipt in Assets/Samples/legacy-ios6-sandbox.b64.
    static func fixtureInfo() -> LegacyPurchaseInfo {
        LegacyPurchaseInfo(transactionId: "1000000046178817", productId: "com.mindmobapp.download",
                           bundleId: "com.mindmobapp.MindMob", bundleVersion: "20120427", itemId: "521129812",
                           purchaseDate: Date(timeIntervalSince1970: 1_335_798_355.868))
    }

    /// The string value of `"key" = "value";` in OpenStep plist text.
    static func value(of key: String, in plist: String) -> String? {
        for line in plist.split(separator: "\n") {
            let prefix = "\t\"\(key)\" = \""
            if line.hasPrefix(prefix), line.hasSuffix("\";") {
                return String(line.dropFirst(prefix.count).dropLast(2))
            }
        }
        return nil
    }

    /// A public Apple artefact kept in the repository (Assets/Samples, origins in its README).
    static func fixture(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Assets/Samples/\(name)")
        return try String(contentsOf: url, encoding: .utf8)
    }

    @Test("the envelope has Apple's keys, order and layout")
    func envelope() throws {
        let built = try LegacyReceiptBuilder(purchaseInfo: Self.fixtureInfo()).build(signedBy: try TestCertificateAuthority.shared())
        let lines = built.plist.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "{" && lines.last == "}")
        #expect(lines.dropFirst().dropLast().map { $0.split(separator: "\"")[1] } == ["signature", "purchase-info", "environment", "pod", "signing-status"])
        #expect(lines.dropFirst().dropLast().allSatisfy { $0.hasPrefix("\t\"") && $0.hasSuffix("\";") })
        #expect(Self.value(of: "environment", in: built.plist) == "Sandbox")
        #expect(Self.value(of: "pod", in: built.plist) == "100")
        #expect(Self.value(of: "signing-status", in: built.plist) == "0")
        let info = try #require(Self.value(of: "purchase-info", in: built.plist))
        #expect(Data(base64Encoded: info).map(Array.init) == built.purchaseInfo)
        #expect(Data(base64Encoded: built.base64).map(Array.init) == built.bytes)

        var production = LegacyReceiptBuilder(purchaseInfo: Self.fixtureInfo())
        production.environment = nil
        #expect(Self.value(of: "environment", in: try production.build(signedBy: try TestCertificateAuthority.shared()).plist) == nil)
    }

    @Test("the purchase info holds the iOS 6 keys with string values")
    func purchaseInfoMatchesApple() throws {
        let text = Self.fixtureInfo().plist
        for key in ["transaction-id", "original-transaction-id", "product-id", "quantity", "bid", "bvrs", "item-id",
                    "purchase-date", "purchase-date-ms", "original-purchase-date", "original-purchase-date-ms"] {
            #expect(Self.value(of: key, in: text) != nil, "\(key)")
        }
        #expect(Self.value(of: "purchase-date", in: text) == "2012-04-30 15:05:55 Etc/GMT")
        #expect(Self.value(of: "purchase-date-ms", in: text) == "1335798355868")
    }

    @Test("the purchase info matches the real receipt's byte for byte")
    func realPurchaseInfo() throws {
        let fixture = try Self.fixture("legacy-ios6-sandbox.b64")
        let envelope = try #require(Data(base64Encoded: fixture.filter { !$0.isWhitespace }))
        let info = try #require(Self.value(of: "purchase-info", in: String(decoding: envelope, as: UTF8.self)))
        let apple = try #require(Data(base64Encoded: info))
        #expect(Self.fixtureInfo().plist == String(decoding: apple, as: UTF8.self))
        #expect(Self.value(of: "purchase-date-pst", in: Self.fixtureInfo().plist) == "2012-04-30 08:05:55 America/Los_Angeles")
    }

    @Test("the signature blob is version ‖ RSA-1024 signature ‖ length ‖ leaf, and verifies")
    func blob() throws {
        let ca = try TestCertificateAuthority.shared()
        let built = try LegacyReceiptBuilder(purchaseInfo: Self.fixtureInfo()).build(signedBy: ca)
        let blob = try #require(built.signatureBlob)
        let encoded = try #require(Self.value(of: "signature", in: built.plist))
        #expect(Data(base64Encoded: encoded).map(Array.init) == blob)

        #expect(blob[0] == 2)
        let signature = Array(blob[1..<129])
        let length = blob[129..<133].reduce(0) { $0 << 8 | Int($1) }
        #expect(length == ca.legacyLeaf.der.count)
        #expect(blob.count == 133 + length)
        #expect(Array(blob[133...]) == ca.legacyLeaf.der)
        let certificate = try Certificate(der: blob[133...])
        #expect(certificate.hasExtension(.appleLegacyReceiptSigner))

        let key = try certificate.publicKey()
        #expect(key.verify(signature: signature, message: [2] + built.purchaseInfo, digest: .sha1))
        #expect(!key.verify(signature: signature, message: built.purchaseInfo, digest: .sha1))
        #expect(!key.verify(signature: signature, message: [2] + built.purchaseInfo, digest: .sha256))

        let chain = ChainVerifier.verify(leaf: blob[133...], intermediates: ca.trustStore().legacyIntermediates.map { $0.der[...] },
                                         at: Self.fixtureInfo().purchaseDate.addingTimeInterval(10 * 365 * 86_400),
                                         policy: .legacyITunes, store: ca.trustStore())
        #expect(throws: Never.self) { try chain.get() }
    }

    @Test("a version-3 blob is version ‖ 256-byte RSA-2048 signature ‖ length ‖ receipt-signing leaf, and verifies through the WWDR-like CA only")
    func versionThree() throws {
        let ca = try TestCertificateAuthority.shared()
        var info = Self.fixtureInfo()
        info.purchaseDate = Date(timeIntervalSince1970: 1_700_000_000)  // inside the shared authority's validity
        var builder = LegacyReceiptBuilder(purchaseInfo: info)
        builder.blobVersion = 3
        let built = try builder.build(signedBy: ca)
        let blob = try #require(built.signatureBlob)
        #expect(blob[0] == 3)
        let length = blob[257..<261].reduce(0) { $0 << 8 | Int($1) }
        #expect(Array(blob[261...]) == ca.receiptLeaf.der && length == ca.receiptLeaf.der.count)
        #expect(try ca.receiptLeaf.publicKey().verify(signature: Array(blob[1..<257]), message: [3] + built.purchaseInfo, digest: .sha1))

        let receipt = try LegacyReceipt(base64: built.base64)
        #expect(receipt.signature?.version == 3 && receipt.signature?.signature.count == 256)
        let verdict = receipt.verify(trust: ca.trustStore())
        #expect(verdict.status == .valid, "\(verdict.reason)")
        #expect(verdict.chain == [ca.receiptLeaf.commonName, ca.wwdrIntermediate.commonName, ca.root.commonName])
        // The iTunes-Store-like CA alone cannot vouch for it, nor can a version-2 signer pass as version 3.
        let iTunesOnly = TrustStore(anchors: [], legacyIntermediates: [], storeKitTesting: nil)
            .adding(anchors: [ca.root], legacyIntermediates: [ca.iTunesIntermediate])
        #expect(receipt.verify(trust: iTunesOnly).status == .invalid)
        builder.blobVersion = 2
        let v2 = try LegacyReceipt(base64: try builder.build(signedBy: ca).base64)
        #expect(v2.verify(trust: ca.trustStore()).status == .valid)
        #expect(v2.verify(trust: ca.trustStore()).chain[1] == ca.iTunesIntermediate.commonName)
    }

    @Test("the simulator mints legacy receipts of both versions; production ones name the app in purchase-info",
          arguments: [UInt8(2), UInt8(3)], [SimulatorEnvironment.production, .sandbox])
    func minted(_ version: UInt8, _ environment: SimulatorEnvironment) throws {
        let ca = try TestCertificateAuthority.shared()
        let state = SimulatorState(authority: ca, bundleId: "com.example.app", appAppleId: 1_234_567_890)
        let minted = try state.mintLegacyReceipt(environment: environment, purchase: SimulatedPurchase(
            productId: "com.example.pro.lifetime", type: .nonConsumable, purchaseDate: Date(timeIntervalSince1970: 1_700_000_000)),
            blobVersion: version)
        let receipt = try LegacyReceipt(base64: minted.base64)
        #expect(receipt.signature?.version == version)
        #expect(receipt.verify(trust: ca.trustStore()).status == .valid)
        #expect(receipt.environment.environment == (environment == .production ? .production : .sandbox))
        #expect(!receipt.environment.isMismatch)
        #expect(receipt.appItemId == (environment == .production ? "1234567890" : nil))
    }

    @Test("the signature can be omitted or corrupted")
    func signatureOptions() throws {
        let ca = try TestCertificateAuthority.shared()
        var builder = LegacyReceiptBuilder(purchaseInfo: Self.fixtureInfo())
        builder.signature = .omitted
        let unsigned = try builder.build(signedBy: ca)
        #expect(unsigned.signatureBlob == nil)
        #expect(Self.value(of: "signature", in: unsigned.plist) == nil)
        #expect(Self.value(of: "purchase-info", in: unsigned.plist) != nil)

        builder.signature = .corrupted
        let corrupted = try #require(try builder.build(signedBy: ca).signatureBlob)
        #expect(corrupted.count == 133 + ca.legacyLeaf.der.count)
        #expect(!(try ca.legacyLeaf.publicKey()).verify(signature: Array(corrupted[1..<129]),
                                                        message: [2] + builder.purchaseInfo.plist.utf8, digest: .sha1))
        #expect(throws: ReceiptError(.configuration, "")) {
            try LegacyReceiptBuilder(purchaseInfo: Self.fixtureInfo()).build(signedBy: ca.jwsChain.leaf)
        }
    }

    @Test("optional keys, subscriptions and escaping")
    func optionalKeys() throws {
        var info = Self.fixtureInfo()
        info.originalTransactionId = "1000000046170000"
        info.originalPurchaseDate = Date(timeIntervalSince1970: 1_300_000_000)
        info.uniqueIdentifier = "0000b0090000"
        info.uniqueVendorIdentifier = "A1B2C3D4-0000-0000-0000-000000000000"
        info.webOrderLineItemId = "1000000000000001"
        info.expiresDate = Date(timeIntervalSince1970: 1_338_476_755)
        info.extraEntries = [("note", "say \"hi\" \\ bye")]
        let text = info.plist
        #expect(Self.value(of: "original-transaction-id", in: text) == "1000000046170000")
        #expect(Self.value(of: "original-purchase-date-ms", in: text) == "1300000000000")
        #expect(Self.value(of: "original-purchase-date", in: text) == "2011-03-13 07:06:40 Etc/GMT")
        #expect(Self.value(of: "unique-identifier", in: text) == "0000b0090000")
        #expect(Self.value(of: "unique-vendor-identifier", in: text) == "A1B2C3D4-0000-0000-0000-000000000000")
        #expect(Self.value(of: "web-order-line-item-id", in: text) == "1000000000000001")
        #expect(Self.value(of: "expires-date", in: text) == "1338476755000")
        #expect(Self.value(of: "expires-date-formatted", in: text) == "2012-05-31 15:05:55 Etc/GMT")
        #expect(Self.value(of: "note", in: text) == "say \\\"hi\\\" \\\\ bye")
    }
}
