import Foundation
import ReceiptCore

/// A certificate authority for tests, shaped like Apple's, that builds its certificates itself
/// (DER writer + `PrivateKey`) and keeps every key in memory:
///
///     receiptChain  RSA-2048 root ← RSA-2048 WWDR-like intermediate (1.2.840.113635.100.6.2.1)
///                                 ← RSA-2048 receipt signer (1.2.840.113635.100.6.11.1)      unified receipts,
///                                                                                              version-3 iOS 6 receipts
///     legacyChain   the same root ← RSA-2048 iTunes-Store-like intermediate (…6.2.2)
///                                 ← RSA-1024 purchase-receipt signer (…6.5.1)                 version-2 iOS 6 receipts
///     jwsChain      P-256 root    ← P-256 WWDR-like intermediate (…6.2.1)
///                                 ← P-256 receipt signer (…6.11.1)                             StoreKit 2 JWS
///
/// Every certificate is valid from `validFrom` to `validUntil`; nothing here reads the clock.
/// Verifiers check a chain at the artefact's own time (receipt creation date, legacy purchase
/// date, JWS `signedDate`), so artefacts meant to verify must carry dates inside that range.
/// RSA key generation is slow, so tests share one authority per kind through `shared(_:)`.
public final class TestCertificateAuthority: Sendable {
    /// Which authority this is.
    public enum Kind: String, Sendable, CaseIterable {
        /// receiptdesk's own names ("receiptdesk Test Root CA", …) with Apple's marker extensions.
        case standard
        /// Apple's exact subject names and marker extensions ("Apple Root CA", "Apple Worldwide
        /// Developer Relations Certification Authority", "Mac App Store and iTunes Store Receipt
        /// Signing", …) over its own keys: what a forger would make. Must never verify against Apple.
        case impostor
        /// Like `standard` (own names, "Unmarked" in them) but with no Apple marker extension.
        case withoutAppleMarkers
    }

    /// Which authority this is.
    public let kind: Kind
    /// Start of every certificate's validity.
    public let validFrom: Date
    /// End of every certificate's validity.
    public let validUntil: Date
    /// Root ← WWDR-like intermediate ← receipt signer (RSA).
    public let receiptChain: SigningChain
    /// Same root ← iTunes-Store-like intermediate ← RSA-1024 legacy signer.
    public let legacyChain: SigningChain
    /// EC root ← EC intermediate ← EC signer.
    public let jwsChain: SigningChain

    /// The RSA root of the receipt and legacy chains.
    public var root: Certificate { receiptChain.root.certificate }
    /// The WWDR-like intermediate (1.2.840.113635.100.6.2.1).
    public var wwdrIntermediate: Certificate { receiptChain.intermediate.certificate }
    /// The RSA-2048 unified receipt signer (1.2.840.113635.100.6.11.1).
    public var receiptLeaf: Certificate { receiptChain.leaf.certificate }
    /// The unified receipt signer's private key.
    public var receiptLeafKey: PrivateKey { receiptChain.leafKey }
    /// The iTunes-Store-like intermediate (1.2.840.113635.100.6.2.2); legacy blobs do not carry it.
    public var iTunesIntermediate: Certificate { legacyChain.intermediate.certificate }
    /// The RSA-1024 legacy receipt signer (1.2.840.113635.100.6.5.1).
    public var legacyLeaf: Certificate { legacyChain.leaf.certificate }
    /// The legacy signer's private key.
    public var legacyLeafKey: PrivateKey { legacyChain.leafKey }
    /// The P-256 root of the JWS chain.
    public var ecRoot: Certificate { jwsChain.root.certificate }
    /// The P-256 WWDR-like intermediate (1.2.840.113635.100.6.2.1).
    public var ecIntermediate: Certificate { jwsChain.intermediate.certificate }
    /// The P-256 JWS signer (1.2.840.113635.100.6.11.1).
    public var ecLeaf: Certificate { jwsChain.leaf.certificate }
    /// The JWS signer's private key.
    public var jwsLeafKey: PrivateKey { jwsChain.leafKey }

    init(kind: Kind, validFrom: Date, validUntil: Date,
                 receiptChain: SigningChain, legacyChain: SigningChain, jwsChain: SigningChain) {
        self.kind = kind
        self.validFrom = validFrom
        self.validUntil = validUntil
        self.receiptChain = receiptChain
        self.legacyChain = legacyChain
        self.jwsChain = jwsChain
    }

    /// A trust store that trusts this authority's two roots (not Apple's) and knows its
    /// iTunes-Store-like and WWDR-like intermediates, as legacy receipts of versions 2 and 3 need.
    public func trustStore() -> TrustStore {
        TrustStore(anchors: [], legacyIntermediates: [], storeKitTesting: nil)
            .adding(anchors: [root, ecRoot], legacyIntermediates: [iTunesIntermediate, wwdrIntermediate])
    }

    /// A fresh standard authority valid over the given range.
    public static func make(validFrom: Date, validUntil: Date) throws -> TestCertificateAuthority {
        try make(.standard, validFrom: validFrom, validUntil: validUntil)
    }

    /// A fresh authority of `kind` valid over the given range (about a second of key generation).
    public static func make(_ kind: Kind, validFrom: Date, validUntil: Date) throws -> TestCertificateAuthority {
        guard validFrom < validUntil else {
            throw ReceiptError(.configuration, "test authority: validFrom \(RFC3339.format(validFrom)) is not before validUntil \(RFC3339.format(validUntil))")
        }
        let names = AuthorityNames(kind)
        let marks = kind != .withoutAppleMarkers
        func chain(root: IssuedCertificate, intermediate: (DistinguishedName, PrivateKey, OID),
                   leaf: (DistinguishedName, PrivateKey, OID)) throws -> SigningChain {
            let middle = try IssuedCertificate.issue(subject: intermediate.0, key: intermediate.1, role: .intermediate,
                                                     markers: marks ? [intermediate.2] : [], issuer: root,
                                                     validFrom: validFrom, validUntil: validUntil)
            let end = try IssuedCertificate.issue(subject: leaf.0, key: leaf.1, role: .leaf,
                                                  markers: marks ? [leaf.2] : [], issuer: middle,
                                                  validFrom: validFrom, validUntil: validUntil)
            return SigningChain(root: root, intermediate: middle, leaf: end)
        }
        let rsaRoot = try IssuedCertificate.issue(subject: names.root, key: try PrivateKey.generateRSA(bits: 2048),
                                                  role: .root, issuer: nil, validFrom: validFrom, validUntil: validUntil)
        let receipt = try chain(root: rsaRoot,
                                intermediate: (names.wwdr, try PrivateKey.generateRSA(bits: 2048), .appleWWDRIntermediate),
                                leaf: (names.receiptSigner, try PrivateKey.generateRSA(bits: 2048), .appleReceiptSigner))
        let legacy = try chain(root: rsaRoot,
                               intermediate: (names.iTunesStore, try PrivateKey.generateRSA(bits: 2048), .appleITunesStoreIntermediate),
                               leaf: (names.legacySigner, try PrivateKey.generateRSA(bits: 1024), .appleLegacyReceiptSigner))
        let ecRoot = try IssuedCertificate.issue(subject: names.ecRoot, key: try PrivateKey.generateP256(),
                                                 role: .root, issuer: nil, validFrom: validFrom, validUntil: validUntil)
        let jws = try chain(root: ecRoot,
                            intermediate: (names.ecIntermediate, try PrivateKey.generateP256(), .appleWWDRIntermediate),
                            leaf: (names.ecSigner, try PrivateKey.generateP256(), .appleReceiptSigner))
        return TestCertificateAuthority(kind: kind, validFrom: validFrom, validUntil: validUntil,
                                        receiptChain: receipt, legacyChain: legacy, jwsChain: jws)
    }

    /// Start of the shared authorities' validity: 2020-01-01T00:00:00Z.
    public static let sharedValidFrom = CivilTime(year: 2020, month: 1, day: 1).date
    /// End of the shared authorities' validity: 2040-01-01T00:00:00Z.
    public static let sharedValidUntil = CivilTime(year: 2040, month: 1, day: 1).date

    /// The authority of `kind` shared by the whole process, valid 2020-01-01…2040-01-01, built on
    /// first use (thread-safe). A key-generation failure is reported on every call.
    public static func shared(_ kind: Kind = .standard) throws -> TestCertificateAuthority {
        switch kind {
        case .standard: return try SharedAuthorities.standard.get()
        case .impostor: return try SharedAuthorities.impostor.get()
        case .withoutAppleMarkers: return try SharedAuthorities.withoutAppleMarkers.get()
        }
    }
}

/// The process-wide authorities; Swift initialises each static once, on first use, under a lock.
private enum SharedAuthorities {
    static let standard = build(.standard)
    static let impostor = build(.impostor)
    static let withoutAppleMarkers = build(.withoutAppleMarkers)

    private static func build(_ kind: TestCertificateAuthority.Kind) -> Result<TestCertificateAuthority, any Error> {
        Result {
            try TestCertificateAuthority.make(kind, validFrom: TestCertificateAuthority.sharedValidFrom,
                                              validUntil: TestCertificateAuthority.sharedValidUntil)
        }
    }
}

/// The subject names of one authority's eight certificates.
private struct AuthorityNames {
    let root, wwdr, receiptSigner, iTunesStore, legacySigner, ecRoot, ecIntermediate, ecSigner: DistinguishedName

    init(_ kind: TestCertificateAuthority.Kind) {
        typealias Apple = DistinguishedName.Apple
        if kind == .impostor {
            (root, wwdr, receiptSigner) = (Apple.rootCA, Apple.wwdr, Apple.receiptSigner)
            (iTunesStore, legacySigner) = (Apple.iTunesStoreCA, Apple.purchaseReceiptCertificate)
            (ecRoot, ecIntermediate, ecSigner) = (Apple.rootCAG3, Apple.wwdrG6, Apple.eccReceiptSigner)
            return
        }
        let prefix = kind == .standard ? "receiptdesk Test" : "receiptdesk Unmarked Test"
        func name(_ suffix: String) -> DistinguishedName { DistinguishedName(commonName: "\(prefix) \(suffix)") }
        root = name("Root CA")
        wwdr = name("WWDR Intermediate")
        receiptSigner = name("Receipt Signing")
        iTunesStore = name("iTunes Store CA")
        legacySigner = name("Purchase Receipt Certificate")
        ecRoot = name("Root CA - EC")
        ecIntermediate = name("WWDR Intermediate - EC")
        ecSigner = name("ECC Receipt Signing")
    }
}
