import Foundation

/// The protected headers of JWS read recently, by their exact base64url text. Apple signs every
/// transaction, renewal and notification of an environment under the same few headers (`alg` and
/// the same three-certificate `x5c`: kilobytes of base64 inside base64), so a busy import decodes
/// and parses the same header over and over. An entry is found only for byte-identical text, whose
/// decoding is therefore identical: nothing is believed that was not read from these very bytes.
/// The chain in it is still verified (or found in the `ChainCache`) for every artefact.
final class JWSHeaderCache: @unchecked Sendable {
    /// What a header's text decoded to.
    struct Entry {
        let values: [String: Any]
        let algorithm: String?
        let keyId: String?
        let x5c: [String]?
    }

    static let shared = JWSHeaderCache()

    /// Headers kept (the oldest is replaced first); Apple's environments use a handful.
    static let capacity = 16
    /// Longer header text is never kept (an `x5c` of eight large certificates fits).
    static let maxSegmentLength = 64 * 1024

    private let lock = NSLock()
    // Read and written under `lock`.
    private var texts: [[UInt8]] = []
    private var entries: [Entry] = []
    private var next = 0

    /// The entry for exactly this header text, if kept.
    func entry(_ segment: ArraySlice<UInt8>) -> Entry? {
        guard segment.count <= Self.maxSegmentLength else { return nil }
        lock.lock()
        defer { lock.unlock() }
        for (index, text) in texts.enumerated() where text.count == segment.count {
            let same = text.withUnsafeBytes { kept in segment.withUnsafeBytes { asked in memcmp(kept.baseAddress!, asked.baseAddress!, kept.count) == 0 } }
            if same { return entries[index] }
        }
        return nil
    }

    /// Keeps what `segment` decoded to.
    func store(_ segment: ArraySlice<UInt8>, _ entry: Entry) {
        guard !segment.isEmpty, segment.count <= Self.maxSegmentLength else { return }
        lock.lock()
        defer { lock.unlock() }
        if texts.count < Self.capacity {
            texts.append(Array(segment))
            entries.append(entry)
        } else {
            texts[next] = Array(segment)
            entries[next] = entry
            next = (next + 1) % Self.capacity
        }
    }
}
