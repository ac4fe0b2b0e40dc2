import Foundation

/// Chains already verified, keyed by a digest of the exact certificate bytes and the policy, so a
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
    private var entries: [[UInt8]: Entry] = [:]
    private let capacity = 512
    /// Lookups answered from the cache, and chains verified in full (for tests and diagnostics).
    private(set) var hits = 0
    private(set) var misses = 0

    func lookup(_ key: [UInt8], at time: Date) -> VerifiedChain? {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[key], entry.validFrom <= time, time <= entry.validUntil else {
            misses += 1
            return nil
        }
        hits += 1
        return entry.chain
    }

    func store(_ key: [UInt8], _ chain: VerifiedChain) {
        let certificates = chain.certificates
        let entry = Entry(chain: chain,
                          validFrom: certificates.map(\.notBefore).max() ?? .distantFuture,
                          validUntil: certificates.map(\.notAfter).min() ?? .distantPast)
        lock.lock()
        defer { lock.unlock() }
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = entry
    }

    /// Empties the cache (benchmarks measure the cold path with it).
    func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        entries.removeAll()
    }
}
