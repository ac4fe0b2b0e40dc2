import Foundation
import StoreSimulator
import Testing
@testable import ReceiptCore

@Suite("Chain cache")
struct ChainCacheTests {
    func receipt(created: String, transaction: String) throws -> AppReceipt {
        let date = try #require(RFC3339.parse(created))
        let builder = UnifiedReceiptBuilder(bundleId: "com.example.app", appVersion: "7", creationDate: date,
                                            purchases: [ReceiptPurchase(productId: "coins", transactionId: transaction,
                                                                        purchaseDate: date, productTypeCode: 1)])
        return try AppReceipt(derEncoded: try builder.build(signedBy: try TestCertificateAuthority.shared()).der)
    }

    @Test func secondReceiptFromTheSameSignerIsACacheHit() throws {
        let trust = try TestCertificateAuthority.shared().trustStore()
        let verifier = ReceiptVerifier(trust: trust)
        #expect(verifier.verify(try receipt(created: "2025-03-01T10:00:00Z", transaction: "1")).status == .valid)
        #expect(trust.cache.misses == 1 && trust.cache.hits == 0)
        #expect(verifier.verify(try receipt(created: "2025-03-02T10:00:00Z", transaction: "2")).status == .valid)
        #expect(trust.cache.hits == 1, "the chain was verified once")
    }

    @Test func cachedChainIsRecheckedOutsideItsValidity() throws {
        let trust = try TestCertificateAuthority.shared().trustStore()
        let verifier = ReceiptVerifier(trust: trust)
        #expect(verifier.verify(try receipt(created: "2025-03-01T10:00:00Z", transaction: "1")).status == .valid)
        let late = verifier.verify(try receipt(created: "2041-06-01T00:00:00Z", transaction: "2"))
        #expect(late.status == .invalid, "a cache entry never extends a certificate's validity")
        #expect(late.reason.contains("expired"))
        let early = verifier.verify(try receipt(created: "2019-06-01T00:00:00Z", transaction: "3"))
        #expect(early.status == .invalid)
        #expect(early.reason.contains("not yet valid"))
    }

    @Test func clearingTheCacheForcesAFullCheck() throws {
        let trust = try TestCertificateAuthority.shared().trustStore()
        let verifier = ReceiptVerifier(trust: trust)
        let first = try receipt(created: "2025-03-01T10:00:00Z", transaction: "1")
        _ = verifier.verify(first)
        trust.clearChainCache()
        _ = verifier.verify(first)
        #expect(trust.cache.misses == 2)
    }
}

@Suite("Chain cache key")
struct ChainKeyTests {
    @Test func keysAreEqualOnlyForTheSameBytesAndPolicy() {
        let a = [UInt8](repeating: 1, count: 100)
        var b = a
        b[10] = 2  // same length and same last bytes: the hash agrees, the bytes do not
        let key = ChainKey(policy: .appStore, leaf: a[...], intermediates: [a[...]])
        #expect(key == ChainKey(policy: .appStore, leaf: Array(a)[...], intermediates: [a[...]]))
        #expect(key.hashValue == ChainKey(policy: .appStore, leaf: b[...], intermediates: [a[...]]).hashValue)
        #expect(key != ChainKey(policy: .appStore, leaf: b[...], intermediates: [a[...]]))
        #expect(key != ChainKey(policy: .appStore, leaf: a[...], intermediates: [b[...]]))
        #expect(key != ChainKey(policy: .legacyITunes, leaf: a[...], intermediates: [a[...]]))
        #expect(key != ChainKey(policy: .appStore, leaf: a[...], intermediates: []))
        #expect(key != ChainKey(policy: .appStore, leaf: a[..<99], intermediates: [a[...]]))
        #expect(key.owned == key)
    }
}

@Suite("Chain cache: JWS chains by their x5c text")
struct JWSChainCacheTests {
    @Test func secondVerificationIsAHitAndSaysTheSame() throws {
        let trust = try TrustStore.apple()
        let verifier = ReceiptVerifier(trust: trust)
        let artefact = try ReceiptDecoder.decode(try SampleFiles.bytes("real-transaction-sandbox.jws"))
        let first = verifier.verify(artefact)
        #expect(first.status == .valid, "\(first.reason)")
        #expect(trust.cache.misses == 1 && trust.cache.hits == 0, "one full check, counted once")
        let second = verifier.verify(artefact)
        #expect(second == first && second.reason == first.reason && second.chain == first.chain)
        #expect(trust.cache.hits == 1 && trust.cache.misses == 1)
    }

    @Test func aKnownChainDoesNotVouchForAChangedSignatureOrTime() throws {
        let trust = try TrustStore.apple()
        let verifier = ReceiptVerifier(trust: trust)
        let text = try SampleFiles.text("real-transaction-sandbox.jws").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(verifier.verify(.transaction(try SignedTransaction(compactJWS: text))).status == .valid)
        var parts = text.split(separator: ".").map(String.init)
        parts[2] = String(parts[2].reversed())
        let forged = verifier.verify(.transaction(try SignedTransaction(compactJWS: parts.joined(separator: "."))))
        #expect(forged.status == .invalid && forged.reason.contains("ES256 signature does not verify"))
    }

    @Test func textAndDERKeysNeverMeet() {
        let bytes = Array("MIIB".utf8)
        #expect(ChainKey(policy: .appStore, leaf: bytes[...], intermediates: [], form: .der)
            != ChainKey(policy: .appStore, leaf: bytes[...], intermediates: [], form: .base64))
    }
}
