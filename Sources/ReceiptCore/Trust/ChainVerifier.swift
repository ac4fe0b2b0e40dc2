import COpenSSL
import Foundation

/// A chain that passed path validation and the Apple policy.
public struct VerifiedChain: Sendable {
    /// Leaf first, root last.
    public let certificates: [Certificate]
    /// The leaf's public key, which checks the artefact's own signature.
    public let leafKey: PublicKey
    /// The root the chain ended in.
    public let anchor: TrustStore.Anchor

    /// Subject common names, leaf first (kept: every verdict on the chain names it).
    public let names: [String]
    /// `leafKey` with its verify contexts set up once, for the artefacts this chain signs.
    let leafVerifier: PreparedVerifier

    init(certificates: [Certificate], leafKey: PublicKey, anchor: TrustStore.Anchor) {
        self.certificates = certificates
        self.leafKey = leafKey
        self.leafVerifier = PreparedVerifier(leafKey)
        self.anchor = anchor
        self.names = certificates.map(\.commonName)
    }
}

/// Why a chain was not trusted: a one-line reason and the certificates seen (leaf first).
public struct ChainFailure: Error, Sendable {
    public let reason: String
    public let names: [String]
}

/// Path validation through OpenSSL at a given time, then Apple's policy, with a cache.
public enum ChainVerifier {
    /// Verifies `leaf` through `intermediates` to an anchor of `store` at `time` under `policy`.
    /// The certificates are given as DER bytes so that a cache hit never parses them.
    ///
    /// When the store holds extra anchors and the path through all anchors fails, the path is
    /// tried again through the extra anchors alone: OpenSSL picks an issuer by its name, so an
    /// extra anchor named like an Apple root would otherwise never be tried. The failure then
    /// names both attempts. `.localTesting` tries the extra anchors only.
    public static func verify(leaf: ArraySlice<UInt8>, intermediates: [ArraySlice<UInt8>], at time: Date,
                              policy: ChainPolicy, store: TrustStore) -> Result<VerifiedChain, ChainFailure> {
        let key = ChainKey(policy: policy, leaf: leaf, intermediates: intermediates)
        if let hit = store.cache.lookup(key, at: time) { return .success(hit) }
        let extras = store.extraAnchors
        let onlyExtras = !policy.requiresAppleShape
        if onlyExtras && extras.isEmpty {
            return .failure(ChainFailure(reason: "no extra trust anchor was given (--trust-anchor) to check a \(policy.name) signature with", names: []))
        }
        var result = verifyUncached(leaf: leaf, intermediates: intermediates, at: time, policy: policy, store: store,
                                    anchors: onlyExtras ? extras : store.anchors)
        if case .failure(let first) = result, !onlyExtras, !extras.isEmpty {
            let retry = verifyUncached(leaf: leaf, intermediates: intermediates, at: time, policy: policy, store: store, anchors: extras)
            switch retry {
            case .success: result = retry
            case .failure(let second):
                let names = extras.map { "\"\($0.certificate.commonName)\"" }.joined(separator: ", ")
                result = .failure(ChainFailure(reason: "\(first.reason); through the extra anchor \(names) alone: \(second.reason)",
                                               names: first.names))
            }
        } else if case .failure(let failure) = result, onlyExtras {
            let names = extras.map { "\"\($0.certificate.commonName)\"" }.joined(separator: ", ")
            result = .failure(ChainFailure(reason: "\(failure.reason) (tried the extra anchor \(names))", names: failure.names))
        }
        if case .success(let chain) = result { store.cache.store(key, chain) }
        return result
    }

    /// `verify(leaf:intermediates:…)` for a container's certificates, the one at `leafIndex` the
    /// leaf and the others the intermediates in their order: a cache hit builds neither list.
    static func verify(certificates: [ArraySlice<UInt8>], leafIndex: Int, at time: Date, policy: ChainPolicy,
                       store: TrustStore) -> Result<VerifiedChain, ChainFailure> {
        let key = ChainKey(policy: policy, certificates: certificates, leafIndex: leafIndex)
        // A miss counts once, in the full verification below (which looks the same key up again).
        if let hit = store.cache.lookup(key, at: time, countingMiss: false) { return .success(hit) }
        var intermediates = certificates
        let leaf = intermediates.remove(at: leafIndex)
        return verify(leaf: leaf, intermediates: intermediates, at: time, policy: policy, store: store)
    }

    /// `verify(leaf:intermediates:…)` for certificates written as base64 text, as a JWS `x5c`
    /// carries them: a chain verified before is recognised from the text itself, so a warm
    /// verification decodes nothing. Otherwise `decode` turns each text into DER (its error is
    /// the caller's to word: the artefact is malformed) and the chain is checked as DER.
    static func verify(encodedLeaf: String, encodedIntermediates: [String], at time: Date, policy: ChainPolicy,
                       store: TrustStore, decode: (String) throws -> [UInt8]) throws -> Result<VerifiedChain, ChainFailure> {
        let key = ChainKey(policy: policy, leaf: Array(encodedLeaf.utf8)[...],
                           intermediates: encodedIntermediates.map { Array($0.utf8)[...] }, form: .base64)
        if let hit = store.cache.lookup(key, at: time, countingMiss: false) { return .success(hit) }
        let leaf = try decode(encodedLeaf)
        let intermediates = try encodedIntermediates.map { try decode($0)[...] }
        let result = verify(leaf: leaf[...], intermediates: intermediates, at: time, policy: policy, store: store)
        if case .success(let chain) = result { store.cache.store(key, chain) }
        return result
    }

    private static func verifyUncached(leaf leafDER: ArraySlice<UInt8>, intermediates: [ArraySlice<UInt8>], at time: Date,
                                       policy: ChainPolicy, store: TrustStore,
                                       anchors: [TrustStore.Anchor]) -> Result<VerifiedChain, ChainFailure> {
        let leaf: Certificate
        let others: [Certificate]
        do {
            leaf = try Certificate(der: leafDER)
            others = try intermediates.map { try Certificate(der: $0) }
        } catch {
            return .failure(ChainFailure(reason: "unreadable certificate: \(error)", names: []))
        }
        let seen = [leaf] + others
        guard let x509Store = X509_STORE_new() else {
            return .failure(ChainFailure(reason: "OpenSSL could not create a certificate store", names: seen.map(\.commonName)))
        }
        defer { X509_STORE_free(x509Store) }
        for anchor in anchors { X509_STORE_add_cert(x509Store, anchor.certificate.x509) }
        guard let untrusted = rd_sk_x509_new() else {
            return .failure(ChainFailure(reason: "OpenSSL could not allocate", names: seen.map(\.commonName)))
        }
        defer { rd_sk_x509_free(untrusted) }
        for certificate in others { rd_sk_x509_push(untrusted, certificate.x509) }
        guard let context = X509_STORE_CTX_new() else {
            return .failure(ChainFailure(reason: "OpenSSL could not allocate", names: seen.map(\.commonName)))
        }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, x509Store, leaf.x509, untrusted) == 1 else {
            return .failure(ChainFailure(reason: "OpenSSL: \(OpenSSL.lastError())", names: seen.map(\.commonName)))
        }
        X509_STORE_CTX_set_time(context, 0, time_t(time.timeIntervalSince1970.rounded(.down)))
        if X509_verify_cert(context) != 1 {
            let code = X509_STORE_CTX_get_error(context)
            let depth = X509_STORE_CTX_get_error_depth(context)
            let text = String(cString: X509_verify_cert_error_string(Int(code)))
            let culprit = depth >= 0 && Int(depth) < seen.count ? " (\(seen[Int(depth)].commonName))" : ""
            ERR_clear_error()
            return .failure(ChainFailure(reason: "chain does not verify at \(RFC3339.format(time)): \(text) at depth \(depth)\(culprit)",
                                         names: seen.map(\.commonName)))
        }
        // The path OpenSSL built, leaf first.
        var built: [Certificate] = [leaf]
        if let chain = X509_STORE_CTX_get0_chain(context) {
            for index in 1..<max(1, Int(rd_sk_x509_num(chain))) {
                guard let x509 = rd_sk_x509_value(chain, Int32(index)) else { continue }
                var out: UnsafeMutablePointer<UInt8>?
                let length = i2d_X509(x509, &out)
                guard length > 0, let out else { continue }
                let der = Array(UnsafeBufferPointer(start: out, count: Int(length)))
                rd_openssl_free(out)
                if let known = (others + anchors.map(\.certificate)).first(where: { $0.der == der }) {
                    built.append(known)
                }
            }
        }
        let names = built.map(\.commonName)
        if let intermediateMarker = policy.intermediateMarker, let leafMarker = policy.leafMarker {
            guard built.count == 3 else {
                return .failure(ChainFailure(reason: "\(policy.name) policy: chain has \(built.count) certificates, Apple's has 3", names: names))
            }
            guard built[1].hasExtension(intermediateMarker) else {
                return .failure(ChainFailure(reason: "\(policy.name) policy: intermediate \(built[1].commonName) lacks Apple's extension \(intermediateMarker)", names: names))
            }
            guard leaf.hasExtension(leafMarker) else {
                return .failure(ChainFailure(reason: "\(policy.name) policy: leaf \(leaf.commonName) lacks Apple's extension \(leafMarker)", names: names))
            }
        }
        guard let root = built.last, let anchor = anchors.first(where: { $0.certificate.der == root.der }) else {
            return .failure(ChainFailure(reason: "chain ends in \(built.last?.commonName ?? "nothing"), which is not a trust anchor", names: names))
        }
        do {
            return .success(VerifiedChain(certificates: built, leafKey: try leaf.publicKey(), anchor: anchor))
        } catch {
            return .failure(ChainFailure(reason: "\(error)", names: names))
        }
    }
}
