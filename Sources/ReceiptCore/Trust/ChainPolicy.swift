/// Apple's rules for a receipt-signing chain, on top of RFC 5280 path validation: exactly three
/// certificates (leaf, intermediate, root), with Apple's marker extensions on the intermediate and
/// the leaf. The intermediate itself is never pinned: Apple moved from WWDR G1 to G5 in 2023.
public struct ChainPolicy: Sendable, Hashable {
    /// A name for messages ("App Store receipt").
    public let name: String
    /// The extension the intermediate must carry (nil: Apple's shape is not required).
    public let intermediateMarker: OID?
    /// The extension the leaf must carry (nil: Apple's shape is not required).
    public let leafMarker: OID?

    /// Whether the chain must have Apple's shape: three certificates and both markers.
    public var requiresAppleShape: Bool { intermediateMarker != nil && leafMarker != nil }

    /// Unified (iOS 7+) receipts and StoreKit 2 JWS: WWDR intermediate, receipt-signing leaf.
    public static let appStore = ChainPolicy(name: "App Store", intermediateMarker: .appleWWDRIntermediate,
                                             leafMarker: .appleReceiptSigner)
    /// Legacy iOS 6 receipts: Apple iTunes Store CA intermediate, purchase-receipt leaf.
    public static let legacyITunes = ChainPolicy(name: "iTunes Store", intermediateMarker: .appleITunesStoreIntermediate,
                                                 leafMarker: .appleLegacyReceiptSigner)
}

extension ChainPolicy {
    /// Xcode's local StoreKit testing: a self-signed certificate (or a short chain) that an
    /// operator chose to trust with `--trust-anchor`. No Apple shape is asked for, and only the
    /// extra anchors are tried: Apple's roots never vouch for Xcode.
    public static let localTesting = ChainPolicy(name: "local StoreKit testing", intermediateMarker: nil, leafMarker: nil)
}
