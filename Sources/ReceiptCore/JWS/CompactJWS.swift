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
    /// The certificates of `x5c` as the header writes them (standard base64 DER), leaf first;
    /// nil when the header has no `x5c`. Decoded on demand: a warm verification needs only two.
    public let x5c: [String]?

    /// The most certificates accepted in `x5c`.
    public static let maxChainLength = 8

    /// Parses compact JWS text. `what` names the artefact in errors ("JWS transaction").
    public init(compact raw: String, what: String = "JWS") throws {
        var utf8 = Array(raw.utf8)
        while let last = utf8.last, last == 0x20 || last == 0x0A || last == 0x0D || last == 0x09 { utf8.removeLast() }
        let leading = utf8.prefix { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }.count
        if leading > 0 { utf8.removeFirst(leading) }
        var dots: [Int] = []
        dots.reserveCapacity(2)
        var dotCount = 0
        utf8.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            var from = 0
            while from < bytes.count, let found = memchr(base + from, Int32(UInt8(ascii: ".")), bytes.count - from) {
                let index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if dots.count < 2 { dots.append(index) }
                dotCount += 1
                from = index + 1
            }
        }
        guard dotCount == 2 else {
            throw ReceiptError(.unknownFormat, "\(what): compact JWS has \(dotCount + 1) parts separated by '.', expected 3")
        }
        let headerPart = utf8[..<dots[0]], payloadPart = utf8[(dots[0] + 1)..<dots[1]], signaturePart = utf8[(dots[1] + 1)...]
        guard !headerPart.isEmpty, !payloadPart.isEmpty else {
            throw ReceiptError(.missingField, "\(what): compact JWS has an empty header or payload")
        }
        let known = JWSHeaderCache.shared.entry(headerPart)
        let read = try known ?? Self.readHeader(headerPart, what: what)
        if known == nil { JWSHeaderCache.shared.store(headerPart, read) }
        header = JSONObject(read.values, what: "\(what) header")
        (algorithm, keyId, x5c) = (read.algorithm, read.keyId, read.x5c)
        payload = try Base64.decodeURL(bytes: payloadPart, "\(what) payload")
        signature = try Base64.decodeURL(bytes: signaturePart, "\(what) signature")
        signingInput = utf8[..<dots[1]]
        signedHeaderCount = dots[0] + 1
        // The text as given when nothing was trimmed (no copy); otherwise the trimmed bytes.
        self.text = utf8.count == raw.utf8.count ? raw : String(decoding: utf8, as: UTF8.self)
    }

    /// The header's base64url text decoded and parsed: `alg`, `kid` and the `x5c` strings.
    private static func readHeader(_ part: ArraySlice<UInt8>, what: String) throws -> JWSHeaderCache.Entry {
        let header = try JSONObject(parsing: try Base64.decodeURL(bytes: part, "\(what) header"), what: "\(what) header")
        let algorithm = try header.string("alg"), keyId = try header.string("kid")
        guard header.has("x5c") else { return JWSHeaderCache.Entry(values: header.values, algorithm: algorithm, keyId: keyId, x5c: nil) }
        guard let entries = header.values["x5c"] as? [Any] else {
            throw ReceiptError(.unexpectedTag, "\(what) header: `x5c` is not an array")
        }
        guard entries.count <= CompactJWS.maxChainLength else {
            throw ReceiptError(.tooLarge, "\(what) header: `x5c` holds \(entries.count) certificates, at most \(CompactJWS.maxChainLength) accepted")
        }
        let x5c = try entries.enumerated().map { index, entry in
            guard let encoded = entry as? String else {
                throw ReceiptError(.unexpectedTag, "\(what) header: `x5c[\(index)]` is not a string")
            }
            return encoded
        }
        return JWSHeaderCache.Entry(values: header.values, algorithm: algorithm, keyId: keyId, x5c: x5c)
    }

    /// The bytes the signature covers: ASCII `header.payload`.
    public let signingInput: ArraySlice<UInt8>
    /// How many bytes of `signingInput` are the header's text and its dot.
    private let signedHeaderCount: Int

    /// `signingInput` cut after the header's dot: `header.`, which every artefact signed under
    /// the same header shares (its kilobytes of `x5c` can be hashed once:
    /// `PreparedVerifier.verifyES256(rawSignature:prefix:rest:)`), and the payload's text.
    public var signingInputParts: (header: ArraySlice<UInt8>, payload: ArraySlice<UInt8>) {
        let cut = signingInput.startIndex + signedHeaderCount
        return (signingInput[..<cut], signingInput[cut...])
    }

    /// The DER of `x5c[index]`.
    public func certificate(at index: Int) throws -> [UInt8] {
        guard let x5c, x5c.indices.contains(index) else {
            throw ReceiptError(.missingField, "JWS header: no x5c[\(index)]")
        }
        return try Base64.decode(x5c[index], "JWS header x5c[\(index)]")
    }

    /// The payload parsed as a JSON object.
    public func payloadObject(_ what: String) throws -> JSONObject {
        try JSONObject(parsing: payload, what: what)
    }

    /// Whether `text` looks like compact JWS (three base64url parts, the first a JSON header).
    /// Counts the dots on the UTF-8 bytes: splitting a Substring walks grapheme clusters, which
    /// took most of a notification's decoding time on its nested kilobytes.
    static func looksLikeJWS(_ text: Substring) -> Bool {
        guard text.utf8.starts(with: "eyJ".utf8) else { return false }
        var dots = 0
        for byte in text.utf8 where byte == UInt8(ascii: ".") {
            dots += 1
            if dots > 2 { return false }
        }
        return dots == 2
    }
}
