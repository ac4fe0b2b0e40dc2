import Foundation

/// Detects the format of raw input and decodes it: base64 (with or without line breaks), raw DER,
/// compact JWS, notification JSON (`{"signedPayload": …}`), verifyReceipt JSON, decoded JWS payload
/// JSON, or a legacy OpenStep plist (as text or base64).
public enum ReceiptDecoder {
    /// Input over this size is refused before anything is parsed.
    public static let maxInputSize = 16 * 1024 * 1024

    /// The artefact inside `bytes` as it should be kept: a verifyReceipt *request* body
    /// (`{"receipt-data": …, "password": …}`, often pasted from logs) is reduced to its receipt, so
    /// the shared secret next to it is never stored or shown. Anything else is returned unchanged.
    public static func artefactBytes(_ bytes: [UInt8]) throws -> [UInt8] {
        guard bytes.count <= maxInputSize, bytes.first(where: { !isSpace($0) }) == UInt8(ascii: "{"),
              String(validating: bytes, as: UTF8.self) != nil, contains(bytes, Self.receiptDataKey) else { return bytes }
        let object = try JSONObject(parsing: bytes, what: "verifyReceipt request")
        guard let receipt = try object.string("receipt-data"), !receipt.isEmpty else {
            throw ReceiptError(.missingField, "verifyReceipt request: `receipt-data` is empty")
        }
        return Array(receipt.utf8)
    }

    /// Decodes `bytes`, whatever format they are in.
    public static func decode(_ input: [UInt8]) throws -> DecodedArtefact {
        let bytes = try artefactBytes(input)
        guard bytes.count <= maxInputSize else {
            throw ReceiptError(.tooLarge, "input of \(bytes.count) bytes is over the \(maxInputSize / 1024 / 1024) MiB limit")
        }
        guard let first = bytes.first(where: { !isSpace($0) }) else {
            throw ReceiptError(.unknownFormat, "input is empty")
        }
        if bytes[0] == 0x30 { return .unified(try AppReceipt(derEncoded: bytes)) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ReceiptError(.badUTF8, "input is neither DER (first byte 0x\(String(first, radix: 16))) nor UTF-8 text")
        }
        let trimmed = trimmedText(bytes, text)
        if trimmed.hasPrefix("{") { return try decodeBraced(trimmed) }
        if trimmed.hasPrefix("[") || trimmed.hasPrefix("\"") {
            // Neither can start base64: this is JSON, of a kind no artefact is.
            let kind = JSONSyntax.kind(startingWith: trimmed.utf8.first ?? 0)
            let problem = JSONSyntax.firstError(Array(trimmed.utf8)).map { " (and not valid JSON: \($0))" } ?? ""
            let hint = trimmed.hasPrefix("\"") ? "; if it is a quoted receipt or JWS, remove the quotes" : ""
            throw ReceiptError(.unknownFormat,
                               "input is JSON, \(kind)\(problem): receiptdesk reads a JSON object (a notification body, a verifyReceipt answer or request, a decoded payload)\(hint)")
        }
        if CompactJWS.looksLikeJWS(Substring(trimmed)) { return try decodeJWS(trimmed) }
        let decoded = try Base64.decode(trimmed, "input (neither DER, JSON nor JWS, so read as base64)")
        guard let head = decoded.first(where: { !isSpace($0) }) else {
            throw ReceiptError(.unknownFormat, "base64 input decodes to nothing")
        }
        switch head {
        case 0x30: return .unified(try AppReceipt(derEncoded: decoded))
        case UInt8(ascii: "{"): return .legacy(try LegacyReceipt(plistBytes: decoded))
        default:
            throw ReceiptError(.unknownFormat, "base64 input decodes to bytes starting 0x\(String(head, radix: 16)): not a DER receipt or a legacy plist")
        }
    }

    /// Text that starts with `{`: JSON of some kind, or a legacy receipt's OpenStep plist.
    private static func decodeBraced(_ text: String) throws -> DecodedArtefact {
        let bytes = Array(text.utf8)
        let object: JSONObject
        do {
            object = try JSONObject(parsing: bytes, what: "JSON input")
        } catch let error as ReceiptError {
            // Not JSON: an OpenStep plist is the other format that starts with '{'.
            if text.contains("purchase-info") { return .legacy(try LegacyReceipt(plistBytes: bytes)) }
            throw error
        }
        if let signed = try object.string("signedPayload") {
            return .notification(try ServerNotification(compactJWS: signed))
        }
        if object.has("status") { return .verifyReceiptResponse(try VerifyReceiptResponse(json: bytes)) }
        return try classify(object, jws: nil)
    }

    private static func decodeJWS(_ text: String) throws -> DecodedArtefact {
        let jws = try CompactJWS(compact: text, what: "JWS")
        return try classify(try jws.payloadObject("JWS payload"), jws: jws)
    }

    /// Tells a JWS payload's kind from its members.
    private static func classify(_ payload: JSONObject, jws: CompactJWS?) throws -> DecodedArtefact {
        if payload.has("notificationType") { return .notification(try ServerNotification(payload: payload, jws: jws)) }
        if payload.has("transactionId") { return .transaction(try SignedTransaction(payload: payload, jws: jws)) }
        if payload.has("autoRenewStatus") || payload.has("autoRenewProductId") || payload.has("renewalDate") {
            return .renewalInfo(try RenewalInfo(payload: payload, jws: jws))
        }
        if payload.has("receiptType") || payload.has("applicationVersion") || payload.has("originalApplicationVersion") {
            return .appTransaction(try AppTransaction(payload: payload, jws: jws))
        }
        // Apple's minimal payloads carry no distinguishing member: a transaction names its app,
        // a renewal info never does.
        if jws != nil, payload.has("signedDate") || payload.has("environment") {
            return payload.has("bundleId") ? .transaction(try SignedTransaction(payload: payload, jws: jws))
                                           : .renewalInfo(try RenewalInfo(payload: payload, jws: jws))
        }
        throw ReceiptError(.unknownFormat, "\(payload.what): not a transaction, renewal info, app transaction or notification (members: \(payload.values.keys.sorted().prefix(8).joined(separator: ", ")))")
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static let receiptDataKey = Array("\"receipt-data\"".utf8)

    /// Whether `needle` occurs in `haystack`, byte for byte (no String bridging: inputs run to MiBs).
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return needle.isEmpty }
        return haystack.withUnsafeBufferPointer { hay in
            var index = 0
            let last = hay.count - needle.count
            while index <= last {
                if hay[index] == first {
                    var matched = 1
                    while matched < needle.count && hay[index + matched] == needle[matched] { matched += 1 }
                    if matched == needle.count { return true }
                }
                index += 1
            }
            return false
        }
    }

    /// `text` without the whitespace and newlines at its ends, as `trimmingCharacters(in:
    /// .whitespacesAndNewlines)` gives it: by bytes when both ends are ASCII after the ASCII
    /// whitespace (the usual input, and far faster on large ones), through Foundation otherwise.
    static func trimmedText(_ bytes: [UInt8], _ text: String) -> String {
        let ascii: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D]
        guard let start = bytes.firstIndex(where: { !ascii.contains($0) }), let end = bytes.lastIndex(where: { !ascii.contains($0) }) else {
            return ""
        }
        guard bytes[start] < 0x80, bytes[end] < 0x80 else { return text.trimmingCharacters(in: .whitespacesAndNewlines) }
        if start == 0 && end == bytes.count - 1 { return text }
        return String(decoding: bytes[start...end], as: UTF8.self)
    }
}
