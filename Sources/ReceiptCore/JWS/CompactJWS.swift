import Foundation

/// A JWS in compact serialisation, `base64url(header).base64url(payload).base64url(signature)`,
/// as StoreKit 2 and the App Store Server API sign everything. Header sample:
///
///     {"alg":"ES256","x5c":["MIIEMDCC…","MIIDFjCC…","MIICQzCC…"]}
public struct CompactJWS: Sendable {
    /// The compact text.
    public let text: String
    /// The protected header.
    public let header: JSONObject
    /// The payload bytes (JSON).
    public let payload: [UInt8]
    /// The signature bytes (raw `r ‖ s` for ES256).
    public let signature: [UInt8]
    /// `alg` from the header.
    public let algorithm: String?
    /// `kid` from the header (Xcode signs with `Apple_Xcode_Key`).
    public let keyId: String?
    /// The certificates of `x5c`, DER, leaf first; nil when the header has no `x5c`.
    public let certificateChain: [[UInt8]]?

    /// The most certificates accepted in `x5c`.
    public static let maxChainLength = 8

    /// Parses compact JWS text. `what` names the artefact in errors ("JWS transaction").
    public init(compact raw: String, what: String = "JWS") throws {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw ReceiptError(.unknownFormat, "\(what): compact JWS has \(parts.count) parts separated by '.', expected 3")
        }
        guard !parts[0].isEmpty, !parts[1].isEmpty else {
            throw ReceiptError(.missingField, "\(what): compact JWS has an empty header or payload")
        }
        let headerBytes = try Base64.decodeURL(parts[0], "\(what) header")
        header = try JSONObject(parsing: headerBytes, what: "\(what) header")
        payload = try Base64.decodeURL(parts[1], "\(what) payload")
        signature = try Base64.decodeURL(parts[2], "\(what) signature")
        algorithm = try header.string("alg")
        keyId = try header.string("kid")
        if header.has("x5c") {
            guard let entries = header.values["x5c"] as? [Any] else {
                throw ReceiptError(.unexpectedTag, "\(what) header: `x5c` is not an array")
            }
            guard entries.count <= CompactJWS.maxChainLength else {
                throw ReceiptError(.tooLarge, "\(what) header: `x5c` holds \(entries.count) certificates, at most \(CompactJWS.maxChainLength) accepted")
            }
            certificateChain = try entries.enumerated().map { index, entry in
                guard let encoded = entry as? String else {
                    throw ReceiptError(.unexpectedTag, "\(what) header: `x5c[\(index)]` is not a string")
                }
                return try Base64.decode(encoded, "\(what) header x5c[\(index)]")
            }
        } else {
            certificateChain = nil
        }
        self.text = text
    }

    /// The bytes the signature covers: ASCII `header.payload`.
    public var signingInput: ArraySlice<UInt8> {
        let utf8 = Array(text.utf8)
        let end = utf8.lastIndex(of: UInt8(ascii: ".")) ?? utf8.endIndex
        return utf8[..<end]
    }

    /// The payload parsed as a JSON object.
    public func payloadObject(_ what: String) throws -> JSONObject {
        try JSONObject(parsing: payload, what: what)
    }

    /// Whether `text` looks like compact JWS (three base64url parts, the first a JSON header).
    static func looksLikeJWS(_ text: Substring) -> Bool {
        text.hasPrefix("eyJ") && text.split(separator: ".", omittingEmptySubsequences: false).count == 3
    }
}
