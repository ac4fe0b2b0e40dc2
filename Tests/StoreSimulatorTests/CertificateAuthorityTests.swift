import Foundation
import ReceiptCore
import StoreSimulator
import Testing

@Suite("Test certificate authority")
struct CertificateAuthorityTests {
    @Test("every certificate parses and names itself as expected")
    func certificatesParse() throws {
        let ca = try TestCertificateAuthority.shared()
        let expected: [(Certificate, String, String)] = [
            (ca.root, "receiptdesk Test Root CA", "receiptdesk Test Root CA"),
            (ca.wwdrIntermediate, "receiptdesk Test WWDR Intermediate", "receiptdesk Test Root CA"),
            (ca.receiptLeaf, "receiptdesk Test Receipt Signing", "receiptdesk Test WWDR Intermediate"),
            (ca.iTunesIntermediate, "receiptdesk Test iTunes Store CA", "receiptdesk Test Root CA"),
            (ca.legacyLeaf, "receiptdesk Test Purchase Receipt Certificate", "receiptdesk Test iTunes Store CA"),
            (ca.ecRoot, "receiptdesk Test Root CA - EC", "receiptdesk Test Root CA - EC"),
            (ca.ecIntermediate, "receiptdesk Test WWDR Intermediate - EC", "receiptdesk Test Root CA - EC"),
            (ca.ecLeaf, "receiptdesk Test ECC Receipt Signing", "receiptdesk Test WWDR Intermediate - EC"),
        ]
        for (certificate, subject, issuer) in expected {
            let reparsed = try Certificate(der: certificate.der)
            #expect(reparsed.commonName == subject)
            #expect(reparsed.issuerCommonName == issuer)
            #expect(reparsed.notBefore == TestCertificateAuthority.sharedValidFrom)
            #expect(reparsed.notAfter == TestCertificateAuthority.sharedValidUntil)
        }
    }

    @Test("keys have the sizes and algorithms Apple's have")
    func keySizes() throws {
        let ca = try TestCertificateAuthority.shared()
        #expect(try ca.root.publicKey().algorithmName == "RSA-2048")
        #expect(try ca.wwdrIntermediate.publicKey().algorithmName == "RSA-2048")
        #expect(try ca.receiptLeaf.publicKey().algorithmName == "RSA-2048")
        #expect(try ca.iTunesIntermediate.publicKey().algorithmName == "RSA-2048")
        #expect(try ca.legacyLeaf.publicKey().algorithmName == "RSA-1024")
        #expect(try ca.ecRoot.publicKey().algorithmName == "EC-256")
        #expect(try ca.ecIntermediate.publicKey().algorithmName == "EC-256")
        #expect(try ca.ecLeaf.publicKey().algorithmName == "EC-256")
        #expect(try ca.receiptLeafKey.publicKey().subjectPublicKeyInfo == ca.receiptLeaf.publicKey().subjectPublicKeyInfo)
        #expect(try ca.legacyLeafKey.publicKey().subjectPublicKeyInfo == ca.legacyLeaf.publicKey().subjectPublicKeyInfo)
        #expect(try ca.jwsLeafKey.publicKey().subjectPublicKeyInfo == ca.ecLeaf.publicKey().subjectPublicKeyInfo)
    }

    @Test("Apple's marker extensions sit where Apple puts them")
    func markers() throws {
        let ca = try TestCertificateAuthority.shared()
        let markers: [OID] = [.appleWWDRIntermediate, .appleITunesStoreIntermediate, .appleReceiptSigner, .appleLegacyReceiptSigner]
        func carried(_ certificate: Certificate) -> [OID] { markers.filter(certificate.hasExtension) }
        #expect(carried(ca.root).isEmpty)
        #expect(carried(ca.wwdrIntermediate) == [.appleWWDRIntermediate])
        #expect(carried(ca.receiptLeaf) == [.appleReceiptSigner])
        #expect(carried(ca.iTunesIntermediate) == [.appleITunesStoreIntermediate])
        #expect(carried(ca.legacyLeaf) == [.appleLegacyReceiptSigner])
        #expect(carried(ca.ecRoot).isEmpty)
        #expect(carried(ca.ecIntermediate) == [.appleWWDRIntermediate])
        #expect(carried(ca.ecLeaf) == [.appleReceiptSigner])

        let unmarked = try TestCertificateAuthority.shared(.withoutAppleMarkers)
        for certificate in [unmarked.root, unmarked.wwdrIntermediate, unmarked.receiptLeaf, unmarked.iTunesIntermediate,
                            unmarked.legacyLeaf, unmarked.ecRoot, unmarked.ecIntermediate, unmarked.ecLeaf] {
            #expect(carried(certificate).isEmpty, "\(certificate.commonName)")
        }
    }

    @Test("a marker extension is non-critical with a DER NULL value, as Apple writes it")
    func markerEncoding() throws {
        let ca = try TestCertificateAuthority.shared()
        // Extension ::= SEQUENCE { extnID 1.2.840.113635.100.6.11.1, extnValue OCTET STRING { NULL } }
        let expected: [UInt8] = [0x30, 0x10, 0x06, 0x0A, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x63, 0x64, 0x06, 0x0B, 0x01,
                                 0x04, 0x02, 0x05, 0x00]
        #expect(ca.receiptLeaf.der.containsSubsequence(expected))
    }

    @Test("the impostor copies Apple's subject names exactly")
    func impostorNames() throws {
        let impostor = try TestCertificateAuthority.shared(.impostor)
        #expect(impostor.root.commonName == "Apple Root CA")
        #expect(impostor.wwdrIntermediate.commonName == "Apple Worldwide Developer Relations Certification Authority")
        #expect(impostor.receiptLeaf.commonName == "Mac App Store and iTunes Store Receipt Signing")
        #expect(impostor.legacyLeaf.commonName == "PurchaseReceiptCertificate")
        #expect(impostor.iTunesIntermediate.commonName == "Apple iTunes Store Certification Authority")
        #expect(impostor.ecRoot.commonName == "Apple Root CA - G3")
        #expect(impostor.ecLeaf.commonName == "Prod ECC Mac App Store and iTunes Store Receipt Signing")
        #expect(impostor.wwdrIntermediate.hasExtension(.appleWWDRIntermediate))
        #expect(impostor.receiptLeaf.hasExtension(.appleReceiptSigner))

        // The root's subject is byte-for-byte Apple Root CA's (PrintableStrings, C, O, OU, CN).
        let apple = try TrustStore.apple()
        let appleRoot = try #require(apple.anchors.first { $0.certificate.commonName == "Apple Root CA" }).certificate
        #expect(impostor.root.subject == appleRoot.subject)
        #expect(impostor.root.fingerprint != appleRoot.fingerprint)
    }

    @Test("make refuses an empty validity range and honours the given one")
    func validityRange() throws {
        let from = CivilTime(year: 2030, month: 6, day: 1).date
        #expect(throws: ReceiptError(.configuration, "")) {
            try TestCertificateAuthority.make(validFrom: from, validUntil: from)
        }
        let until = CivilTime(year: 2051, month: 1, day: 1).date  // GeneralizedTime from 2050 on
        let ca = try TestCertificateAuthority.make(validFrom: from, validUntil: until)
        #expect(ca.receiptLeaf.notBefore == from)
        #expect(ca.receiptLeaf.notAfter == until)
        #expect(ca.kind == .standard)
    }

    @Test("a template can issue an extra certificate under an existing intermediate")
    func issueExtra() throws {
        let ca = try TestCertificateAuthority.shared()
        let key = try PrivateKey.generateP256()
        let extra = try IssuedCertificate.issue(subject: DistinguishedName(commonName: "extra leaf"), key: key, role: .leaf,
                                                markers: [.appleReceiptSigner], issuer: ca.jwsChain.intermediate,
                                                validFrom: TestCertificateAuthority.sharedValidFrom,
                                                validUntil: TestCertificateAuthority.sharedValidUntil)
        #expect(extra.certificate.issuerCommonName == ca.ecIntermediate.commonName)
        #expect(extra.issuer == ca.jwsChain.intermediate.subject)
        #expect(extra.serialNumber.count == 8)
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs as a contiguous run.
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
