import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// The test authority's chains through ReceiptCore's `ChainVerifier`, the way receipt verification
/// will use them.
@Suite("Test authority chains through ChainVerifier")
struct ChainVerificationTests {
    let time = CivilTime(year: 2025, month: 6, day: 1).date

    func verify(_ chain: SigningChain, policy: ChainPolicy, store: TrustStore,
                includeRoot: Bool = false) -> Result<VerifiedChain, ChainFailure> {
        var intermediates = [chain.intermediate.der[...]]
        if includeRoot { intermediates.append(chain.root.der[...]) }
        return ChainVerifier.verify(leaf: chain.leaf.der[...], intermediates: intermediates, at: time,
                                    policy: policy, store: store)
    }

    func failure(_ result: Result<VerifiedChain, ChainFailure>) -> String? {
        if case .failure(let failure) = result { return failure.reason }
        return nil
    }

    @Test("the receipt, legacy and EC chains verify against the authority's own roots")
    func chainsVerify() throws {
        let ca = try TestCertificateAuthority.shared()
        let store = TrustStore(anchors: [], legacyIntermediates: [], storeKitTesting: nil)
            .adding(anchors: [ca.root, ca.ecRoot], legacyIntermediates: [ca.iTunesIntermediate])

        let receipt = try verify(ca.receiptChain, policy: .appStore, store: store).get()
        #expect(receipt.names == ["receiptdesk Test Receipt Signing", "receiptdesk Test WWDR Intermediate", "receiptdesk Test Root CA"])
        #expect(receipt.anchor.isBundledApple == false)

        let legacy = try ChainVerifier.verify(leaf: ca.legacyLeaf.der[...], intermediates: store.legacyIntermediates.map { $0.der[...] },
                                              at: time, policy: .legacyITunes, store: store).get()
        #expect(legacy.names.last == "receiptdesk Test Root CA")
        #expect(legacy.leafKey.algorithmName == "RSA-1024")

        let jws = try verify(ca.jwsChain, policy: .appStore, store: store, includeRoot: true).get()
        #expect(jws.names == ["receiptdesk Test ECC Receipt Signing", "receiptdesk Test WWDR Intermediate - EC", "receiptdesk Test Root CA - EC"])

        // trustStore() is the same store.
        #expect(throws: Never.self) { try verify(ca.receiptChain, policy: .appStore, store: ca.trustStore()).get() }
    }

    @Test("a chain is refused outside its validity period")
    func expiry() throws {
        let ca = try TestCertificateAuthority.shared()
        let late = ChainVerifier.verify(leaf: ca.receiptLeaf.der[...], intermediates: [ca.wwdrIntermediate.der[...]],
                                        at: CivilTime(year: 2041, month: 1, day: 1).date, policy: .appStore,
                                        store: ca.trustStore())
        #expect(failure(late)?.contains("expired") == true, "\(failure(late) ?? "accepted")")
    }

    @Test("a chain is refused under the other policy")
    func wrongPolicy() throws {
        let ca = try TestCertificateAuthority.shared()
        let reason = failure(verify(ca.legacyChain, policy: .appStore, store: ca.trustStore()))
        #expect(reason?.contains("lacks Apple's extension 1.2.840.113635.100.6.2.1") == true, "\(reason ?? "accepted")")
        let other = failure(verify(ca.receiptChain, policy: .legacyITunes, store: ca.trustStore()))
        #expect(other?.contains("lacks Apple's extension 1.2.840.113635.100.6.2.2") == true, "\(other ?? "accepted")")
    }

    @Test("the impostor is refused by the test store and by Apple's store")
    func impostorRefused() throws {
        let ca = try TestCertificateAuthority.shared()
        let impostor = try TestCertificateAuthority.shared(.impostor)
        let apple = try TrustStore.apple()
        // Without its root the path stops at the copied WWDR name (its authority key id matches no
        // anchor, not even the real Apple Root CA of the same name); with it, at the untrusted
        // self-signed "Apple Root CA".
        let expected = [false: "unable to get local issuer certificate at depth 1",
                        true: "self-signed certificate in certificate chain at depth 2"]
        for store in [ca.trustStore(), apple] {
            for includeRoot in [false, true] {
                let wanted = expected[includeRoot] ?? ""
                let reason = failure(verify(impostor.receiptChain, policy: .appStore, store: store, includeRoot: includeRoot))
                #expect(reason?.contains(wanted) == true, "\(reason ?? "accepted")")
                let ec = failure(verify(impostor.jwsChain, policy: .appStore, store: store, includeRoot: includeRoot))
                #expect(ec?.contains(wanted) == true, "\(ec ?? "accepted")")
            }
        }
        let legacy = failure(ChainVerifier.verify(leaf: impostor.legacyLeaf.der[...], intermediates: apple.legacyIntermediates.map { $0.der[...] },
                                                  at: CivilTime(year: 2012, month: 5, day: 1).date, policy: .legacyITunes, store: apple))
        #expect(legacy?.contains("chain does not verify") == true, "\(legacy ?? "accepted")")
    }

    @Test("a chain without Apple's markers is refused for the missing marker")
    func unmarkedRefused() throws {
        let unmarked = try TestCertificateAuthority.shared(.withoutAppleMarkers)
        let store = unmarked.trustStore()
        let receipt = failure(verify(unmarked.receiptChain, policy: .appStore, store: store))
        #expect(receipt?.contains("intermediate receiptdesk Unmarked Test WWDR Intermediate lacks Apple's extension 1.2.840.113635.100.6.2.1") == true,
                "\(receipt ?? "accepted")")
        let legacy = failure(verify(unmarked.legacyChain, policy: .legacyITunes, store: store))
        #expect(legacy?.contains("lacks Apple's extension 1.2.840.113635.100.6.2.2") == true, "\(legacy ?? "accepted")")
        let jws = failure(verify(unmarked.jwsChain, policy: .appStore, store: store))
        #expect(jws?.contains("lacks Apple's extension 1.2.840.113635.100.6.2.1") == true, "\(jws ?? "accepted")")

        // A marked intermediate over an unmarked leaf: the leaf check is the one that fails.
        let ca = try TestCertificateAuthority.shared()
        let bareLeaf = try IssuedCertificate.issue(subject: DistinguishedName(commonName: "bare leaf"), key: try PrivateKey.generateP256(),
                                                   role: .leaf, issuer: ca.jwsChain.intermediate,
                                                   validFrom: ca.validFrom, validUntil: ca.validUntil)
        let leafOnly = failure(ChainVerifier.verify(leaf: bareLeaf.der[...], intermediates: [ca.ecIntermediate.der[...]], at: time,
                                                    policy: .appStore, store: ca.trustStore()))
        #expect(leafOnly?.contains("leaf bare leaf lacks Apple's extension 1.2.840.113635.100.6.11.1") == true, "\(leafOnly ?? "accepted")")
    }
}
