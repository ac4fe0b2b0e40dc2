import Foundation

extension LegacyReceipt {
    /// Checks the receipt's chain, then its signature, and says what it found; an untrusted or
    /// tampered receipt is an `.invalid` verdict, never a thrown error.
    ///
    /// - No `signature` key: `.unsigned`.
    /// - The chain is the blob's leaf plus `trust.legacyIntermediates`, validated at the purchase
    ///   date (the leaf expired long ago) under `ChainPolicy.legacyITunes` for version 2 blobs and
    ///   `ChainPolicy.appStore` for version 3.
    /// - The signature is RSA PKCS#1 v1.5 SHA-1 over `version byte ‖ purchase-info bytes`.
    public func verify(trust: TrustStore) -> Verdict {
        guard let blob = signature else {
            return Verdict(.unsigned, "legacy receipt carries no signature")
        }
        guard let date = purchaseDate else {
            return Verdict(.invalid, "legacy receipt: no purchase date to validate the signing chain at")
        }
        let policy: ChainPolicy = blob.version == 2 ? .legacyITunes : .appStore
        let result = ChainVerifier.verify(leaf: blob.certificateDER[...],
                                          intermediates: trust.legacyIntermediates.map { $0.der[...] },
                                          at: date, policy: policy, store: trust)
        let chain: VerifiedChain
        switch result {
        case .failure(let failure):
            return Verdict(.invalid, "legacy receipt: \(failure.reason)", chain: failure.names, validationTime: date)
        case .success(let verified):
            chain = verified
        }
        let extraAnchor = chain.anchor.isBundledApple ? nil : chain.anchor.certificate.commonName
        let message = [blob.version] + purchaseInfoBytes
        guard chain.leafKey.verify(signature: blob.signature, message: message, digest: .sha1) else {
            return Verdict(.invalid,
                           "legacy receipt: signature does not match purchase-info (RSA PKCS#1 v1.5 SHA-1, leaf \(chain.names.first ?? "unnamed"))",
                           chain: chain.names, validationTime: date, extraAnchor: extraAnchor)
        }
        return Verdict(.valid,
                       "legacy receipt: version \(blob.version) signature and \(policy.name) chain verified at \(RFC3339.format(date))",
                       chain: chain.names, validationTime: date, extraAnchor: extraAnchor)
    }
}
