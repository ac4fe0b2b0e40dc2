import Foundation

/// One certificate to ask about and the issuer that answers for it.
public struct RevocationTarget: Sendable {
    /// The certificate asked about.
    public let certificate: Certificate
    /// Its issuer in the verified chain.
    public let issuer: Certificate
}

extension ReceiptVerifier {
    /// The certificates of `artefact`'s verified signing chain that a revocation check asks
    /// about: the leaf under the intermediate, the intermediate under the root (a root is trusted
    /// as configured, never asked about). The chain is verified here as `verify` does (cached), so
    /// only a chain that leads to an anchor is ever checked. `.failure` says why there is nothing
    /// to check (an unsigned artefact, a chain that does not verify, an iOS 6 receipt).
    public func revocationTargets(of artefact: DecodedArtefact) -> Result<[RevocationTarget], RevocationTargetsUnavailable> {
        let chain: Result<VerifiedChain, ChainFailure>
        switch artefact {
        case .unified(let receipt):
            let container = receipt.container
            guard let signer = container.signers.first,
                  let leafIndex = SignerCertificate.index(of: signer, in: container.certificates),
                  let creationDate = receipt.creationDate else {
                return .failure(.init(reason: "the unified receipt names no signer certificate or creation date"))
            }
            chain = ChainVerifier.verify(certificates: container.certificates, leafIndex: leafIndex, at: creationDate,
                                         policy: .appStore, store: trust)
        case .transaction(let t): return jwsTargets(t.jws, t.signedDate)
        case .renewalInfo(let r): return jwsTargets(r.jws, r.signedDate)
        case .appTransaction(let a): return jwsTargets(a.jws, a.validationDate)
        case .notification(let n): return jwsTargets(n.jws, n.signedDate)
        case .legacy:
            return .failure(.init(reason: "an iOS 6 receipt's signature blob carries its leaf alone; its chain is not checked for revocation"))
        case .verifyReceiptResponse:
            return .failure(.init(reason: "Apple's verifyReceipt answer carries no certificate"))
        }
        return Self.targets(chain)
    }

    private func jwsTargets(_ jws: CompactJWS?, _ signedDate: Date?) -> Result<[RevocationTarget], RevocationTargetsUnavailable> {
        guard let x5c = jws?.x5c, x5c.count == 3, let signedDate else {
            return .failure(.init(reason: "the JWS carries no three-certificate x5c chain and signedDate"))
        }
        do {
            let chain = try ChainVerifier.verify(encodedLeaf: x5c[0], encodedIntermediates: [x5c[1]], at: signedDate,
                                                 policy: .appStore, store: trust) { try Base64.decode($0, "JWS header x5c") }
            return Self.targets(chain)
        } catch {
            return .failure(.init(reason: "invalid JWS format: \(error)"))
        }
    }

    private static func targets(_ chain: Result<VerifiedChain, ChainFailure>) -> Result<[RevocationTarget], RevocationTargetsUnavailable> {
        switch chain {
        case .failure(let failure):
            return .failure(.init(reason: "the chain does not verify, so there is nothing to check: \(failure.reason)"))
        case .success(let verified):
            let certificates = verified.certificates
            guard certificates.count >= 2 else { return .failure(.init(reason: "the chain has no issuer to ask")) }
            return .success((0..<(certificates.count - 1)).map {
                RevocationTarget(certificate: certificates[$0], issuer: certificates[$0 + 1])
            })
        }
    }
}

/// Why an artefact has no chain to check for revocation.
public struct RevocationTargetsUnavailable: Error, Sendable {
    /// One line.
    public let reason: String
}
