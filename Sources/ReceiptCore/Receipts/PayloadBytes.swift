/// Bytes a decoded receipt hands out from its payload only when they are asked for (the opaque
/// value, the hash, the bundle-id attribute): where they lie, or the bytes a caller set instead.
/// Decoding then copies none of them.
struct PayloadBytes: Sendable {
    private enum Storage: Sendable {
        case absent
        case range(Range<Int>)
        case bytes([UInt8])
    }

    private var storage: Storage

    /// The bytes at `range` of the payload, or none.
    init(_ range: Range<Int>?) {
        storage = range.map(Storage.range) ?? .absent
    }

    /// The bytes, copied out of `payload` (the one the range was read from) when they lie there.
    func value(in payload: [UInt8]) -> [UInt8]? {
        switch storage {
        case .absent: return nil
        case .range(let range): return Array(payload[range])
        case .bytes(let bytes): return bytes
        }
    }

    /// Replaces the bytes.
    mutating func set(_ value: [UInt8]?) {
        storage = value.map(Storage.bytes) ?? .absent
    }
}
