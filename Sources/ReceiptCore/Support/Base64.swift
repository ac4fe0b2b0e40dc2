import Foundation

/// Base64 and base64url decoding with one-line errors, tolerant of line breaks as receipts are
/// often pasted wrapped.
public enum Base64 {
    /// Decodes standard base64; whitespace and line breaks are ignored.
    public static func decode(_ text: String, _ what: String) throws -> [UInt8] {
        let compact = text.contains(where: \.isWhitespace) ? String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) }) : text
        guard let data = Data(base64Encoded: compact) else {
            throw ReceiptError(.badBase64, "\(what): not valid base64 (\(compact.utf8.count) characters)")
        }
        return Array(data)
    }

    /// Decodes base64url (RFC 4648 §5) without padding, as JWS uses.
    public static func decodeURL<Text: StringProtocol>(_ text: Text, _ what: String) throws -> [UInt8] {
        if text.contains(where: { $0 == "=" || $0 == "+" || $0 == "/" }) {
            // Padding, '+' and '/' belong to standard base64, not base64url; refuse rather than guess.
            throw ReceiptError(.badBase64, "\(what): not base64url (contains '=', '+' or '/')")
        }
        var standard = String(text).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let remainder = standard.utf8.count % 4
        guard remainder != 1 else {
            throw ReceiptError(.badBase64, "\(what): base64url length \(standard.utf8.count) is impossible")
        }
        if remainder > 0 { standard += String(repeating: "=", count: 4 - remainder) }
        guard let data = Data(base64Encoded: standard) else {
            throw ReceiptError(.badBase64, "\(what): not valid base64url")
        }
        return Array(data)
    }

    /// Encodes as base64url without padding.
    public static func encodeURL<Bytes: ContiguousBytes>(_ bytes: Bytes) -> String {
        let data = bytes.withUnsafeBytes { Data($0) }
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
