import Foundation
import ReceiptCore

/// The bearer tokens the purchase and entitlement routes accept, kept as a file of SHA-256
/// hashes (one `NAME sha256:HEX` per line; `#` starts a comment), never the tokens themselves.
/// `serve token add NAME` makes a token, prints it once and appends its hash. A presented token
/// is hashed and compared with every entry in constant time, so neither the answer's timing nor
/// the log says which entry came close; the client's name goes into each audit entry it causes.
public struct ServeTokens: Sendable {
    /// One client's entry.
    public struct Entry: Sendable, Equatable {
        public let name: String
        let hash: [UInt8]
    }

    /// At most this many entries, of at most this many bytes each line.
    public static let maxEntries = 1_000
    static let maxLine = 512
    /// Tokens are "rdk_" and 43 base64url characters (32 random bytes).
    static let prefix = "rdk_"

    public let entries: [Entry]

    /// The tokens of the file at `path`.
    public static func load(_ path: String) throws -> ServeTokens {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ServeTokensError("cannot read the token file \(path): create it with `receiptdesk serve token add NAME --tokens \(path)`")
        }
        guard data.count <= maxEntries * maxLine, let text = String(data: data, encoding: .utf8) else {
            throw ServeTokensError("\(path) is not a token file (UTF-8 text of at most \(maxEntries) lines)")
        }
        var entries: [Entry] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 2, fields[1].hasPrefix("sha256:"), let hash = Self.hex(String(fields[1].dropFirst(7))), hash.count == 32 else {
                throw ServeTokensError("\(path):\(index + 1): expected `NAME sha256:HEX` (64 hex digits)")
            }
            let name = String(fields[0])
            guard Self.isName(name) else { throw ServeTokensError("\(path):\(index + 1): client name \(name) is not 1–64 of A–Z a–z 0–9 . _ -") }
            guard !entries.contains(where: { $0.name == name }) else { throw ServeTokensError("\(path):\(index + 1): client \(name) is listed twice") }
            entries.append(Entry(name: name, hash: hash))
        }
        guard entries.count <= maxEntries else { throw ServeTokensError("\(path): more than \(maxEntries) tokens") }
        return ServeTokens(entries: entries)
    }

    /// The client whose token `authorization` (an `Authorization` header) presents, or nil.
    public func client(authorization: String?) -> String? {
        guard let authorization, authorization.count <= 256 else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let presented = DigestAlgorithm.sha256.hash(Array(parts[1].trimmingCharacters(in: .whitespaces).utf8))
        var found: String?
        for entry in entries where Self.constantTimeEqual(entry.hash, presented) && found == nil {
            found = entry.name
        }
        return found
    }

    /// Makes a token for client `name`, appends its hash to the file at `path` (created 0600 when
    /// missing) and returns the token: the only time it is seen.
    public static func add(name: String, to path: String) throws -> String {
        guard isName(name) else { throw ServeTokensError("client name \(name) is not 1–64 of A–Z a–z 0–9 . _ -") }
        let existing = FileManager.default.fileExists(atPath: path) ? try load(path).entries : []
        guard !existing.contains(where: { $0.name == name }) else {
            throw ServeTokensError("client \(name) already has a token in \(path); remove its line to replace it")
        }
        var generator = SystemRandomNumberGenerator()
        let random = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let token = prefix + Base64.encodeURL(random)
        let line = "\(name) sha256:\(DigestAlgorithm.sha256.hash(Array(token.utf8)).hexString)\n"
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ServeTokensError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let written = Array(line.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.utf8.count, fsync(descriptor) == 0 else {
            throw ServeTokensError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        return token
    }

    static func isName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    static func hex(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        func value(_ d: UInt8) -> UInt8? {
            switch d {
            case 0x30...0x39: return d - 0x30
            case 0x61...0x66: return d - 0x61 + 10
            case 0x41...0x46: return d - 0x41 + 10
            default: return nil
            }
        }
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}

/// A token file that cannot be read or written, or a name it cannot take.
public struct ServeTokensError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
