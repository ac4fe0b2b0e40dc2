import Foundation

/// The exact certificates of a chain (leaf first) and the policy it was checked under, as a cache
/// key. Two keys are equal only when the policies are and every certificate matches byte for
/// byte; the hash reads just each certificate's length and last eight bytes (inside its
/// signature), so a lookup costs one comparison of the bytes instead of a digest over them.
///
/// A key is either over the DER of the certificates or over their base64 text as a JWS `x5c`
/// carries it (equal text decodes to equal DER, so a chain verified once is recognised from the
/// text without decoding it); the two forms never compare equal.
struct ChainKey: Hashable, Sendable {
    /// How the certificates are written.
    enum Form: UInt8, Sendable { case der, base64 }

    let policy: ChainPolicy
    let form: Form
    let certificates: [ArraySlice<UInt8>]

    init(policy: ChainPolicy, leaf: ArraySlice<UInt8>, intermediates: [ArraySlice<UInt8>], form: Form = .der) {
        var certificates: [ArraySlice<UInt8>] = []
        certificates.reserveCapacity(intermediates.count + 1)
        certificates.append(leaf)
        certificates.append(contentsOf: intermediates)
        self.policy = policy
        self.form = form
        self.certificates = certificates
    }

    /// The key of a container's certificates with the one at `leafIndex` as the leaf: the same
    /// key as `init(policy:leaf:intermediates:)` given that leaf and the others in their order.
    init(policy: ChainPolicy, certificates all: [ArraySlice<UInt8>], leafIndex: Int) {
        var certificates: [ArraySlice<UInt8>] = []
        certificates.reserveCapacity(all.count)
        certificates.append(all[leafIndex])
        for index in all.indices where index != leafIndex { certificates.append(all[index]) }
        self.init(policy: policy, form: .der, certificates: certificates)
    }

    private init(policy: ChainPolicy, form: Form, certificates: [ArraySlice<UInt8>]) {
        self.policy = policy
        self.form = form
        self.certificates = certificates
    }

    /// The same key holding copies of the bytes, so a cache entry never keeps a whole receipt alive.
    var owned: ChainKey { ChainKey(policy: policy, form: form, certificates: certificates.map { Array($0)[...] }) }

    func hash(into hasher: inout Hasher) {
        hasher.combine(form)
        hasher.combine(certificates.count)
        for certificate in certificates {
            hasher.combine(certificate.count)
            var tail: UInt64 = 0
            for byte in certificate.suffix(8) { tail = tail << 8 | UInt64(byte) }
            hasher.combine(tail)
        }
    }

    static func == (lhs: ChainKey, rhs: ChainKey) -> Bool {
        guard lhs.form == rhs.form, lhs.certificates.count == rhs.certificates.count, lhs.policy == rhs.policy else { return false }
        for (left, right) in zip(lhs.certificates, rhs.certificates) {
            guard left.count == right.count else { return false }
            let same = left.withUnsafeBytes { l in
                right.withUnsafeBytes { r in
                    guard let a = l.baseAddress, let b = r.baseAddress else { return l.count == r.count }
                    return memcmp(a, b, l.count) == 0
                }
            }
            guard same else { return false }
        }
        return true
    }
}

/// Chains already verified, keyed by the exact certificate bytes and the policy (`ChainKey`), so a
/// run of receipts from the same signer pays for OpenSSL's parsing and path building once.
///
/// An entry keeps the window in which every certificate of the chain is valid; a validation time
/// outside it is re-checked in full, so the cache never changes a verdict.
final class ChainCache: @unchecked Sendable {
    // All state is behind `lock`.
    struct Entry {
        let chain: VerifiedChain
        let validFrom: Date
        let validUntil: Date
    }

    private let lock = NSLock()
    private var entries: [ChainKey: Entry] = [:]
    private let capacity = 512
    /// Lookups answered from the cache, and chains verified in full (for tests and diagnostics).
    private(set) var hits = 0
    private(set) var misses = 0

    /// The chain stored under `key` when `time` lies in its window. `countingMiss: false` for a
    /// first look whose miss is followed by a counted one (the text of a JWS chain, then its DER).
    func lookup(_ key: ChainKey, at time: Date, countingMiss: Bool = true) -> VerifiedChain? {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[key], entry.validFrom <= time, time <= entry.validUntil else {
            if countingMiss { misses += 1 }
            return nil
        }
        hits += 1
        return entry.chain
    }

    func store(_ key: ChainKey, _ chain: VerifiedChain) {
        let certificates = chain.certificates
        let entry = Entry(chain: chain,
                          validFrom: certificates.map(\.notBefore).max() ?? .distantFuture,
                          validUntil: certificates.map(\.notAfter).min() ?? .distantPast)
        let owned = key.owned
        lock.lock()
        defer { lock.unlock() }
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[owned] = entry
    }

    /// Empties the cache (benchmarks measure the cold path with it).
    func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        entries.removeAll()
    }
}
