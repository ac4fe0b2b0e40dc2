import Foundation

/// Facts about Xcode's local StoreKit testing.
enum LocalTesting {
    /// The key id Xcode writes in the header of the JWS it signs.
    static let xcodeKeyId = "Apple_Xcode_Key"
}

/// Artefacts from Xcode's local StoreKit testing: signed on the developer's machine by a key Apple
/// does not vouch for. Without an extra anchor they are `unverifiable`; with the StoreKit testing
/// certificate given as `--trust-anchor`, their signature is checked like any other and the
/// verdict names that anchor. Apple's roots never vouch for them.
extension ReceiptVerifier {
    /// Whether a unified receipt carries exactly Xcode's StoreKit Testing certificate.
    func isStoreKitTesting(_ container: SignedData) -> Bool {
        guard container.certificates.count == 1, let storeKit = trust.storeKitTesting else { return false }
        return container.certificates[0].elementsEqual(storeKit.der)
    }

    /// The verdict on an Xcode StoreKit Testing receipt.
    func localTestingVerdict(_ receipt: AppReceipt, _ signer: SignerInfo) -> Verdict {
        let container = receipt.container
        let names = container.certificates.compactMap { try? Certificate(der: $0).commonName }  // names only, for display
        let claim = "Xcode StoreKit Testing receipt (receipt type \(receipt.receiptType ?? "absent"))"
        guard !trust.extraAnchors.isEmpty else {
            var note = ""
            if isStoreKitTesting(container), let storeKit = trust.storeKitTesting, let digest = signer.digest,
               let key = try? storeKit.publicKey() {  // an unreadable key only drops the extra note
                let matches = key.verify(signature: signer.signature, message: container.content, digest: digest)
                note = matches ? "; its signature matches Xcode's StoreKit certificate" : "; its signature does NOT match Xcode's StoreKit certificate"
            }
            return Verdict(.unverifiable, "\(claim): signed locally by Xcode, which Apple does not vouch for\(note); give the StoreKit testing certificate with --trust-anchor to check it",
                           chain: names, validationTime: receipt.creationDate)
        }
        guard let digest = signer.digest else {
            return Verdict(.invalid, "digest algorithm \(signer.digestAlgorithmOID) is neither SHA-1 nor SHA-256", chain: names)
        }
        guard let leafIndex = SignerCertificate.index(of: signer, in: container.certificates) else {
            return Verdict(.invalid, "the signer's certificate is not among the receipt's \(container.certificates.count) certificates", chain: names)
        }
        guard let time = receipt.creationDate else {
            return Verdict(.invalid, "no receipt creation date (field 12) to validate the chain at", chain: names)
        }
        var intermediates = container.certificates
        let leaf = intermediates.remove(at: leafIndex)
        switch ChainVerifier.verify(leaf: leaf, intermediates: intermediates, at: time, policy: .localTesting, store: trust) {
        case .failure(let failure):
            return Verdict(.unverifiable, "\(claim): \(failure.reason)", chain: failure.names.isEmpty ? names : failure.names,
                           validationTime: time)
        case .success(let chain):
            let anchor = chain.anchor.certificate.commonName
            guard chain.leafKey.verify(signature: signer.signature, message: container.content, digest: digest) else {
                return Verdict(.invalid, "\(claim): signature does not match the content with \(chain.names[0]) (extra anchor \"\(anchor)\"): changed after signing",
                               chain: chain.names, validationTime: time, extraAnchor: anchor)
            }
            return Verdict(.valid, "\(claim): signature (\(digest.rawValue), RSA) and chain valid at \(RFC3339.format(time)), trusted through the extra anchor \"\(anchor)\"",
                           chain: chain.names, validationTime: time, extraAnchor: anchor)
        }
    }

    /// The verdict on a JWS whose payload claims Xcode or LocalTesting.
    func localTestingVerdict(_ jws: CompactJWS, environment: EnvironmentReading, signedDate: Date?, what: String) -> Verdict {
        let claim = "the \(what) claims \(environment.environment.rawValue) (payload environment \(environment.rawValue ?? "absent"), header kid \(jws.keyId ?? "absent"))"
        guard !trust.extraAnchors.isEmpty else {
            return Verdict(.unverifiable, "\(claim): Xcode's local StoreKit testing signs with a key Apple does not vouch for, so it cannot be verified; give the StoreKit testing certificate with --trust-anchor to check it")
        }
        guard jws.algorithm == "ES256" else {
            return Verdict(.invalid, "\(claim): JWS algorithm \(jws.algorithm ?? "(none)") is not ES256")
        }
        guard let x5c = jws.x5c, (1...3).contains(x5c.count) else {
            return Verdict(.unverifiable, "\(claim): the header carries no x5c certificate (or more than 3) to check against the extra anchor")
        }
        guard let signedDate else {
            return Verdict(.invalid, "\(claim): no signedDate to validate the chain at")
        }
        let certificates: [[UInt8]]
        do {
            certificates = try (0..<x5c.count).map { try jws.certificate(at: $0) }
        } catch {
            return Verdict(.invalid, "invalid JWS format: \(error)")
        }
        switch ChainVerifier.verify(leaf: certificates[0][...], intermediates: certificates.dropFirst().map { $0[...] }, at: signedDate,
                                    policy: .localTesting, store: trust) {
        case .failure(let failure):
            return Verdict(.unverifiable, "\(claim): \(failure.reason)", chain: failure.names, validationTime: signedDate)
        case .success(let chain):
            let anchor = chain.anchor.certificate.commonName
            guard chain.leafKey.verifyES256(rawSignature: jws.signature, message: jws.signingInput) else {
                return Verdict(.invalid, "\(claim): ES256 signature does not verify with \(chain.names[0]) (extra anchor \"\(anchor)\"): changed after signing",
                               chain: chain.names, validationTime: signedDate, extraAnchor: anchor)
            }
            return Verdict(.valid, "\(claim): ES256 signature and chain valid at \(RFC3339.format(signedDate)), trusted through the extra anchor \"\(anchor)\"",
                           chain: chain.names, validationTime: signedDate, extraAnchor: anchor)
        }
    }
}
