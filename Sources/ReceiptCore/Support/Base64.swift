import Foundation

/// Base64 (RFC 4648 §4) and base64url (§5) decoding over UTF-8 bytes with one-line errors.
/// Standard base64 tolerates whitespace and line breaks, as receipts are often pasted wrapped;
/// base64url, as JWS uses it, must be unpadded and unbroken.
public enum Base64 {
    /// 0–63 for alphabet characters, 64 for whitespace, 65 for '=', 255 for anything else.
    private static let standardTable: [UInt8] = table(plus: "+", slash: "/")
    private static let urlTable: [UInt8] = table(plus: "-", slash: "_")

    private static func table(plus: Character, slash: Character) -> [UInt8] {
        var table = [UInt8](repeating: 255, count: 256)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
            + [plus.asciiValue ?? 0, slash.asciiValue ?? 0]
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        for space in [0x20, 0x09, 0x0A, 0x0D] { table[space] = 64 }
        table[Int(UInt8(ascii: "="))] = 65
        return table
    }

    /// Decodes standard base64; whitespace and line breaks are ignored, padding is optional.
    public static func decode<Text: StringProtocol>(_ text: Text, _ what: @autoclosure () -> String) throws -> [UInt8] {
        var text = String(text)
        return try text.withUTF8 { try decode(bytes: $0, table: standardTable, allowSpace: true, what) }
    }

    /// Decodes base64url (RFC 4648 §5) without padding, as JWS uses.
    public static func decodeURL<Text: StringProtocol>(_ text: Text, _ what: @autoclosure () -> String) throws -> [UInt8] {
        var text = String(text)
        return try text.withUTF8 { try decode(bytes: $0, table: urlTable, allowSpace: false, what) }
    }

    /// Decodes base64url given as UTF-8 bytes.
    public static func decodeURL(bytes: ArraySlice<UInt8>, _ what: @autoclosure () -> String) throws -> [UInt8] {
        try bytes.withUnsafeBufferPointer { try decode(bytes: $0, table: urlTable, allowSpace: false, what) }
    }

    private static func decode(bytes: UnsafeBufferPointer<UInt8>, table: [UInt8], allowSpace: Bool,
                               _ what: () -> String) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: bytes.count / 4 * 3 + 3)
        var written = 0
        var accumulator: UInt32 = 0
        var count = 0
        var padding = 0
        try table.withUnsafeBufferPointer { table in
            try output.withUnsafeMutableBufferPointer { out in
                var offset = 0
                while offset < bytes.count {
                    // Four alphabet characters at a clean boundary: three bytes at once. Every
                    // other case takes the byte-at-a-time path below, which the state agrees with.
                    if count == 0, padding == 0 {
                        // Two quads at a time while they last: independent loads overlap.
                        while bytes.count - offset >= 8 {
                            let a = table[Int(bytes[offset])], b = table[Int(bytes[offset + 1])]
                            let c = table[Int(bytes[offset + 2])], d = table[Int(bytes[offset + 3])]
                            let e = table[Int(bytes[offset + 4])], f = table[Int(bytes[offset + 5])]
                            let g = table[Int(bytes[offset + 6])], h = table[Int(bytes[offset + 7])]
                            guard a | b | c | d | e | f | g | h < 64 else { break }
                            let first = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                            let second = UInt32(e) << 18 | UInt32(f) << 12 | UInt32(g) << 6 | UInt32(h)
                            out[written] = UInt8(truncatingIfNeeded: first >> 16)
                            out[written + 1] = UInt8(truncatingIfNeeded: first >> 8)
                            out[written + 2] = UInt8(truncatingIfNeeded: first)
                            out[written + 3] = UInt8(truncatingIfNeeded: second >> 16)
                            out[written + 4] = UInt8(truncatingIfNeeded: second >> 8)
                            out[written + 5] = UInt8(truncatingIfNeeded: second)
                            written += 6
                            offset += 8
                        }
                        if offset == bytes.count { break }
                    }
                    if count == 0, padding == 0, bytes.count - offset >= 4 {
                        let a = table[Int(bytes[offset])], b = table[Int(bytes[offset + 1])]
                        let c = table[Int(bytes[offset + 2])], d = table[Int(bytes[offset + 3])]
                        if a | b | c | d < 64 {
                            let quad = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                            out[written] = UInt8(truncatingIfNeeded: quad >> 16)
                            out[written + 1] = UInt8(truncatingIfNeeded: quad >> 8)
                            out[written + 2] = UInt8(truncatingIfNeeded: quad)
                            written += 3
                            offset += 4
                            continue
                        }
                    }
                    let byte = bytes[offset]
                    defer { offset += 1 }
                    let value = table[Int(byte)]
                    if value < 64 {
                        guard padding == 0 else {
                            throw ReceiptError(.badBase64, "\(what()): base64 data after '=' padding at byte \(offset)")
                        }
                        accumulator = accumulator << 6 | UInt32(value)
                        count += 1
                        if count == 4 {
                            out[written] = UInt8(truncatingIfNeeded: accumulator >> 16)
                            out[written + 1] = UInt8(truncatingIfNeeded: accumulator >> 8)
                            out[written + 2] = UInt8(truncatingIfNeeded: accumulator)
                            written += 3
                            accumulator = 0
                            count = 0
                        }
                    } else if value == 64 && allowSpace {
                        continue
                    } else if value == 65 && allowSpace {
                        padding += 1
                        guard padding <= 2 else {
                            throw ReceiptError(.badBase64, "\(what()): too much '=' padding at byte \(offset)")
                        }
                    } else {
                        let shown = byte >= 0x21 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: "byte 0x%02x", byte)
                        throw ReceiptError(.badBase64, "\(what()): \(shown) at byte \(offset) is not \(allowSpace ? "base64" : "base64url")")
                    }
                }
            }
        }
        output.removeLast(output.count - written)
        switch count {
        case 0: break
        case 2:
            output.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            output.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            output.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default:
            throw ReceiptError(.badBase64, "\(what()): base64 ends with a lone character at byte \(bytes.count)")
        }
        guard padding == 0 || (count + padding) % 4 == 0 else {
            throw ReceiptError(.badBase64, "\(what()): wrong '=' padding at byte \(bytes.count)")
        }
        return output
    }

    /// Encodes as base64url without padding.
    public static func encodeURL<Bytes: ContiguousBytes>(_ bytes: Bytes) -> String {
        let data = bytes.withUnsafeBytes { Data($0) }
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
