import COpenSSL
import Foundation

/// A public key that checks signatures: RSA PKCS#1 v1.5 (receipts) or ECDSA (JWS).
public final class PublicKey: @unchecked Sendable {
    // The EVP_PKEY is only read after creation; OpenSSL allows concurrent verifies on it.
    let pkey: OpaquePointer

    init(owning pkey: OpaquePointer) { self.pkey = pkey }

    deinit { EVP_PKEY_free(pkey) }

    /// Parses a DER SubjectPublicKeyInfo.
    public convenience init(subjectPublicKeyInfo der: [UInt8]) throws {
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let parsed else {
            throw ReceiptError(.crypto, "public key: cannot parse SubjectPublicKeyInfo: \(OpenSSL.lastError())")
        }
        self.init(owning: parsed)
    }

    /// Reads a PEM public key (`-----BEGIN PUBLIC KEY-----`, a SubjectPublicKeyInfo).
    public convenience init(pem: String) throws {
        let key: OpaquePointer? = pem.withCString { text in
            // The BIO borrows `text`, so every use of it stays inside this closure.
            guard let bio = BIO_new_mem_buf(text, Int32(strlen(text))) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let key else {
            throw ReceiptError(.crypto, "public key: not a PEM public key (\(OpenSSL.lastError()))")
        }
        self.init(owning: key)
    }

    /// This key as PEM (`-----BEGIN PUBLIC KEY-----`), 64 base64 characters a line.
    public var pem: String {
        let body = Data(subjectPublicKeyInfo).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN PUBLIC KEY-----\n\(body)\n-----END PUBLIC KEY-----\n"
    }

    /// A short name for this key: the first 16 hex digits of the SHA-256 of its
    /// SubjectPublicKeyInfo (enough to tell keys apart, not to trust one).
    public var keyID: String { String(DigestAlgorithm.sha256.hash(subjectPublicKeyInfo).hexString.prefix(16)) }

    /// The DER SubjectPublicKeyInfo of this key.
    public var subjectPublicKeyInfo: [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(pkey, &out)
        guard length > 0, let out else { return [] }
        defer { rd_openssl_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// Whether this is an RSA key, an EC key, or something else.
    public var algorithmName: String {
        switch EVP_PKEY_get_base_id(pkey) {
        case EVP_PKEY_RSA: return "RSA-\(EVP_PKEY_get_bits(pkey))"
        case EVP_PKEY_EC: return "EC-\(EVP_PKEY_get_bits(pkey))"
        default: return "unknown"
        }
    }

    /// Checks a signature made with this key over `message` with `digest`: PKCS#1 v1.5 for RSA,
    /// a DER `ECDSA-Sig-Value` for EC.
    public func verify<Signature: ContiguousBytes, Message: ContiguousBytes>(
        signature: Signature, message: Message, digest: DigestAlgorithm
    ) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, digest.evp, nil, pkey) == 1 else {
            ERR_clear_error()
            return false
        }
        return Self.digestVerify(context, signature: signature, message: message)
    }

    /// One `EVP_DigestVerify` on a context set up for a key and digest (it is used up); OpenSSL's
    /// error queue is cleared after a refusal.
    static func digestVerify<Signature: ContiguousBytes, Message: ContiguousBytes>(
        _ context: OpaquePointer, signature: Signature, message: Message
    ) -> Bool {
        let result = signature.withUnsafeBytes { sig in
            message.withUnsafeBytes { msg in
                EVP_DigestVerify(context,
                                 sig.baseAddress?.assumingMemoryBound(to: UInt8.self), sig.count,
                                 msg.baseAddress?.assumingMemoryBound(to: UInt8.self), msg.count)
            }
        }
        if result != 1 { ERR_clear_error() }
        return result == 1
    }

    /// Checks a JWS ES256 signature: 64 bytes `r ‖ s` over `message` with SHA-256.
    public func verifyES256<Message: ContiguousBytes>(rawSignature: [UInt8], message: Message) -> Bool {
        guard rawSignature.count == 64, let der = ECDSASignature.derFromRaw(rawSignature) else { return false }
        return verify(signature: der, message: message, digest: .sha256)
    }
}

/// Conversion between JWS's raw `r ‖ s` and the DER `ECDSA-Sig-Value` OpenSSL speaks.
enum ECDSASignature {
    static func derFromRaw(_ raw: [UInt8]) -> [UInt8]? {
        let half = raw.count / 2
        return DER.sequence([DER.unsignedInteger(Array(raw[..<half])), DER.unsignedInteger(Array(raw[half...]))])
    }

    static func rawFromDER(_ der: [UInt8], width: Int) -> [UInt8]? {
        guard let node = try? ASN1Reader.parseSingle(der, "ECDSA signature"),  // nil means "not a signature"
              node.tag == .sequence else { return nil }
        var reader = node.children()
        guard let r = try? reader.read(.integer, "r"), let s = try? reader.read(.integer, "s") else { return nil }
        func pad(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
            let trimmed = Array(bytes.drop { $0 == 0 })
            guard trimmed.count <= width else { return nil }
            return [UInt8](repeating: 0, count: width - trimmed.count) + trimmed
        }
        guard let rr = pad(r.content), let ss = pad(s.content) else { return nil }
        return rr + ss
    }
}
