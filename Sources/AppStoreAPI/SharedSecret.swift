import Foundation
import ReceiptCore

/// The app's shared secret for verifyReceipt (`password`), read by the caller from a file or the
/// environment. Its description, debug description and mirror never show it; only the request
/// body sent to Apple holds it.
public struct SharedSecret: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What every printed form shows in its place.
    public static let placeholder = "‹shared secret redacted›"

    let value: String

    /// The secret with surrounding whitespace and line breaks removed (files end with a newline);
    /// nil when nothing is left.
    public init?(_ text: String?) {
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        value = trimmed
    }

    public var description: String { SharedSecret.placeholder }
    public var debugDescription: String { SharedSecret.placeholder }
    public var customMirror: Mirror { Mirror(self, children: []) }

    /// `text` with every occurrence of the secret replaced by the placeholder, and every run of
    /// 8 characters of it too (a message that cut an echoed secret short must not leak half of it).
    func redact(_ text: String) -> String {
        var out = text.contains(value) ? text.replacingOccurrences(of: value, with: SharedSecret.placeholder) : text
        let characters = Array(value)
        let window = 8
        guard characters.count > window else { return out }
        for start in 0...(characters.count - window) {
            let piece = String(characters[start..<(start + window)])
            if out.contains(piece) { out = out.replacingOccurrences(of: piece, with: "‹…›") }
        }
        return out
    }
}
