import Foundation

/// Strings from UTF-8 bytes on hot paths. `String(validating:as:)` goes through a generic
/// routine that looks up type metadata on every call; ASCII, which nearly every receipt field
/// is, is valid UTF-8 as it stands, so it is checked with a plain loop and copied directly.
enum UTF8Text {
    /// The text of `bytes`, or nil when they are not valid UTF-8 (exactly `String(validating:as:)`).
    @inline(__always)
    static func validated(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var high: UInt8 = 0
        for byte in bytes { high |= byte }
        if high < 0x80 { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether `bytes` are exactly the UTF-8 of `text` (so they are valid UTF-8, and
    /// `validated(bytes)` would be a String equal to `text`).
    @inline(__always)
    static func isText(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let utf8 = text.utf8
        guard utf8.count == bytes.count else { return false }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
        return utf8.withContiguousStorageIfAvailable { stored in
            stored.baseAddress.map { memcmp($0, base, bytes.count) == 0 } ?? false
        } ?? false
    }
}
