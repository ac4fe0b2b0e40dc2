import Foundation
import ReceiptCore

/// What the audit log keeps of a personal value (a note's text, a name, an email): HMAC-SHA256
/// of the value under the customer's own random key (`personal_digest_keys`), written
/// `hmac-sha256:HEX`. The hashed chain then never holds the value, only proof that this value was
/// what the entry was about (whoever holds the value and the key can check it). Erasing the
/// customer deletes the key: the digests stay in the chain, which still verifies, but can no
/// longer be tied to a guessed name or email (a plain hash could: emails are easy to guess).
public enum PersonalDigest {
    /// The prefix of every digest written into the audit log.
    public static let prefix = "hmac-sha256:"

    /// HMAC-SHA256 (RFC 2104) of `value` under `key`, as `hmac-sha256:HEX`.
    public static func digest(_ value: String, key: [UInt8]) -> String {
        prefix + hmac(key: key, message: Array(value.utf8)).hexString
    }

    /// HMAC-SHA256 (RFC 2104) with SHA-256's 64-byte block.
    static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? DigestAlgorithm.sha256.hash(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = DigestAlgorithm.sha256.hash(block.map { $0 ^ 0x36 } + message)
        return DigestAlgorithm.sha256.hash(block.map { $0 ^ 0x5c } + inner)
    }

    /// 32 random bytes from the system's generator, as hex.
    static func newKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }.hexString
    }

    /// Decodes a stored hex key; nil for anything else.
    static func keyBytes(_ hex: String) -> [UInt8]? {
        guard hex.count == 64 else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}

extension PurchaseLedger {
    /// Inside a write transaction that holds the customer's lock: the customer's digest key,
    /// made the first time it is needed.
    func personalDigestKey(_ customerId: String, now: Date) throws -> [UInt8] {
        if let stored = try database.queryFirst("SELECT digest_key FROM personal_digest_keys WHERE customer_id = ?", [.text(customerId)])?
            .string("digest_key") {
            guard let key = PersonalDigest.keyBytes(stored) else {
                throw StoreError(.invalidInput, "customer \(customerId): the stored personal digest key is not 64 hex digits (table personal_digest_keys)")
            }
            return key
        }
        let key = PersonalDigest.newKey()
        try database.execute("INSERT INTO personal_digest_keys (customer_id, digest_key, created_at) VALUES (?, ?, ?)",
                             [.text(customerId), .text(key), .date(now)])
        return PersonalDigest.keyBytes(key) ?? []
    }

    /// Inside a write transaction that holds the customer's lock: `value` digested under the
    /// customer's key, for an audit entry.
    func personalDigest(_ value: String, of customerId: String, now: Date) throws -> String {
        PersonalDigest.digest(value, key: try personalDigestKey(customerId, now: now))
    }
}
