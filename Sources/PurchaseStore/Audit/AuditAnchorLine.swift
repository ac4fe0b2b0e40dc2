import Foundation
import ReceiptCore

/// One line of an anchors file: the audit chain's head at a moment, signed with a key the
/// database never holds (`receiptdesk audit anchor`), so that a log later cut short or rewritten
/// no longer holds what the line names.
///
/// ```
/// receiptdesk-audit-anchor v1 /var/lib/rd/purchases.sqlite 812:9f…(64 hex) 2026-03-01T04:00:00.000Z sig=MEUCIQ… key=3a5c0e…
/// ```
/// The signed statement is the first five fields joined by single spaces; the signature is
/// ECDSA P-256 with SHA-256 (DER, base64) over those bytes; `key=` names the public key
/// (`PublicKey.keyID`) and is not signed. The location is informational (a copy of the database
/// holds the same chain): spaces and `%` in it are percent-encoded.
public struct AuditAnchorLine: Sendable, Equatable {
    public static let magic = "receiptdesk-audit-anchor"
    public static let version = "v1"

    /// Where the database was (`SQLDatabase.location`: a path, or host:port/dbname, never a password).
    public let location: String
    public let anchor: AuditAnchor
    /// When the head was read (UTC, to the millisecond).
    public let takenAt: Date
    /// DER ECDSA signature over `statement`.
    public let signature: [UInt8]
    public let keyID: String

    /// The signed text.
    public var statement: String { Self.statement(location: location, anchor: anchor, takenAt: takenAt) }

    /// The line as written to the anchors file (no newline).
    public var text: String {
        "\(statement) sig=\(Data(signature).base64EncodedString()) key=\(keyID)"
    }

    static func statement(location: String, anchor: AuditAnchor, takenAt: Date) -> String {
        "\(magic) \(version) \(escape(location)) \(anchor) \(StoreDates.format(takenAt))"
    }

    /// Signs the head `anchor` of the database at `location`, read at `takenAt`.
    public static func sign(location: String, anchor: AuditAnchor, takenAt: Date, key: PrivateKey) throws -> AuditAnchorLine {
        guard key.isEC else {
            throw StoreError(.invalidInput, "audit anchor key: not an EC (P-256) private key; make one with `receiptdesk audit anchor --new-key FILE`")
        }
        let at = RFC3339.truncatedToMilliseconds(takenAt)
        let text = statement(location: location, anchor: anchor, takenAt: at)
        let signature = try key.sign(Array(text.utf8), digest: .sha256)
        return AuditAnchorLine(location: location, anchor: anchor, takenAt: at, signature: signature, keyID: try key.publicKey().keyID)
    }

    /// Whether `key` made the signature over this line's statement.
    public func isSigned(by key: PublicKey) -> Bool {
        key.verify(signature: signature, message: Array(statement.utf8), digest: .sha256)
    }

    /// Parses one line; the error says which field is wrong.
    public init(parsing line: String) throws {
        let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 7, fields[0] == Self.magic else {
            throw StoreError(.invalidInput, "not an anchor line (\(Self.magic) v1 LOCATION SEQ:HASH TIME sig=… key=…)")
        }
        guard fields[1] == Self.version else { throw StoreError(.invalidInput, "anchor version \(fields[1].prefix(20)) is not v1") }
        guard let anchor = AuditAnchor(fields[3]) else { throw StoreError(.invalidInput, "'\(fields[3].prefix(80))' is not SEQ:HASH") }
        guard let at = StoreDates.parse(fields[4]), StoreDates.format(at) == fields[4] else {
            throw StoreError(.invalidInput, "'\(fields[4].prefix(40))' is not a UTC time as anchors write it")
        }
        guard fields[5].hasPrefix("sig="), let signature = Data(base64Encoded: String(fields[5].dropFirst(4))), !signature.isEmpty else {
            throw StoreError(.invalidInput, "the signature field is not sig=BASE64")
        }
        guard fields[6].hasPrefix("key="), fields[6].count > 4 else { throw StoreError(.invalidInput, "the key field is not key=ID") }
        guard let location = Self.unescape(fields[2]) else { throw StoreError(.invalidInput, "the location '\(fields[2].prefix(80))' is badly escaped") }
        self.location = location
        self.anchor = anchor
        self.takenAt = at
        self.signature = Array(signature)
        self.keyID = String(fields[6].dropFirst(4))
    }

    init(location: String, anchor: AuditAnchor, takenAt: Date, signature: [UInt8], keyID: String) {
        self.location = location
        self.anchor = anchor
        self.takenAt = takenAt
        self.signature = signature
        self.keyID = keyID
    }

    /// Percent-encodes `%`, spaces and control characters, so the location is one field.
    static func escape(_ text: String) -> String {
        String(decoding: escapedBytes(text), as: UTF8.self)
    }

    private static func escapedBytes(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        for byte in text.utf8 {
            if byte == UInt8(ascii: "%") || byte <= 0x20 || byte == 0x7F {
                out += Array(String(format: "%%%02X", byte).utf8)
            } else {
                out.append(byte)
            }
        }
        return out
    }

    static func unescape(_ text: String) -> String? {
        var out: [UInt8] = []
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == UInt8(ascii: "%") else { out.append(byte); continue }
            guard let high = bytes.next(), let low = bytes.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
            out.append(value)
        }
        return String(validating: out, as: UTF8.self)
    }
}
