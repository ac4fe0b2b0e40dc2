import Foundation

/// The certificates receipts are checked against: Apple's roots by default, extra anchors only
/// when given explicitly (and then named in every verdict they decide), plus the intermediates
/// that legacy receipts need but do not carry.
public final class TrustStore: Sendable {
    /// One trusted root.
    public struct Anchor: Sendable {
        public let certificate: Certificate
        /// Whether this is one of Apple's own roots shipped with receiptdesk.
        public let isBundledApple: Bool

        public init(certificate: Certificate, isBundledApple: Bool) {
            self.certificate = certificate
            self.isBundledApple = isBundledApple
        }
    }

    /// Roots a chain may end in.
    public let anchors: [Anchor]
    /// Intermediates legacy iOS 6 receipts chain through, since their signature blob carries the
    /// leaf alone: by default the Apple iTunes Store CA (version 2 blobs) and Apple Worldwide
    /// Developer Relations CA G1 (version 3 blobs).
    public let legacyIntermediates: [Certificate]
    /// Xcode's self-signed StoreKit Testing certificate: recognised, never trusted.
    public let storeKitTesting: Certificate?
    /// Verified chains, by the bytes of their certificates.
    let cache = ChainCache()

    /// Creates a store from explicit parts.
    public init(anchors: [Anchor], legacyIntermediates: [Certificate], storeKitTesting: Certificate?) {
        self.anchors = anchors
        self.legacyIntermediates = legacyIntermediates
        self.storeKitTesting = storeKitTesting
    }

    /// Apple Root CA, Apple Root CA - G3, and the Apple iTunes Store CA and WWDR G1 intermediates
    /// for legacy receipts, as shipped.
    public static func apple() throws -> TrustStore {
        func bundled(_ name: String) throws -> Certificate {
            guard let text = BundledCertificates.base64[name], let der = Data(base64Encoded: text) else {
                throw ReceiptError(.configuration, "trust store: bundled certificate \(name) is missing")
            }
            return try Certificate(der: der)
        }
        return TrustStore(
            anchors: [Anchor(certificate: try bundled("AppleIncRootCertificate.cer"), isBundledApple: true),
                      Anchor(certificate: try bundled("AppleRootCA-G3.cer"), isBundledApple: true)],
            legacyIntermediates: [try bundled("AppleiTunesStoreCA.cer"), try bundled("AppleWWDRCA-G1.cer")],
            storeKitTesting: try bundled("StoreKitTestCertificate.cer"))
    }

    /// This store with more roots (and, for legacy receipts, more intermediates) trusted.
    public func adding(anchors extra: [Certificate], legacyIntermediates extraIntermediates: [Certificate] = []) -> TrustStore {
        TrustStore(anchors: anchors + extra.map { Anchor(certificate: $0, isBundledApple: false) },
                   legacyIntermediates: legacyIntermediates + extraIntermediates,
                   storeKitTesting: storeKitTesting)
    }

    /// Forgets every verified chain, so the next verification pays for the chain again
    /// (benchmarks measure the cold path with it).
    public func clearChainCache() { cache.removeAll() }

    /// The anchors given explicitly, not shipped as Apple's.
    public var extraAnchors: [Anchor] { anchors.filter { !$0.isBundledApple } }
}
