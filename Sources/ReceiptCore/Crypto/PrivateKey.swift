import COpenSSL
import Foundation

/// A private key that signs: used by the StoreSimulator to forge test receipts, certificates and
/// JWS, and later to sign App Store Server API tokens. Never logged, never shown.
public final class PrivateKey: @unchecked Sendable {
    // The EVP_PKEY is only read after creation.
    let pkey: OpaquePointer

    private init(owning pkey: OpaquePointer) { self.pkey = pkey }

    deinit { EVP_PKEY_free(pkey) }

    /// A fresh RSA key of `bits` bits.
    public static func generateRSA(bits: Int = 2048) throws -> PrivateKey {
        guard let key = rd_rsa_generate(UInt32(bits)) else {
            throw ReceiptError(.crypto, "RSA key generation failed: \(OpenSSL.lastError())")
        }
        return PrivateKey(owning: key)
    }

    /// A fresh ECDSA P-256 key.
    public static func generateP256() throws -> PrivateKey {
        guard let key = rd_ec_p256_generate() else {
            throw ReceiptError(.crypto, "P-256 key generation failed: \(OpenSSL.lastError())")
        }
        return PrivateKey(owning: key)
    }

    /// Reads a PEM private key (PKCS#8, as in an App Store Connect `.p8` file).
    public static func fromPEM(_ pem: String) throws -> PrivateKey {
        let key: OpaquePointer? = pem.withCString { text in
            // The BIO borrows `text`, so every use of it stays inside this closure.
            guard let bio = BIO_new_mem_buf(text, Int32(strlen(text))) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else {
            throw ReceiptError(.crypto, "private key: not a PEM private key (\(OpenSSL.lastError()))")
        }
        return PrivateKey(owning: key)
    }

    /// This key as PKCS#8 PEM (for writing a test `.p8`).
    public func pkcs8PEM() throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw ReceiptError(.crypto, "cannot allocate a BIO") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil) == 1 else {
            throw ReceiptError(.crypto, "cannot write the private key: \(OpenSSL.lastError())")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let read = BIO_read(bio, &chunk, Int32(chunk.count))
            if read <= 0 { break }
            bytes += chunk.prefix(Int(read))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The matching public key.
    public func publicKey() throws -> PublicKey {
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(pkey, &out)
        guard length > 0, let out else { throw ReceiptError(.crypto, "cannot export the public key: \(OpenSSL.lastError())") }
        defer { rd_openssl_free(out) }
        return try PublicKey(subjectPublicKeyInfo: Array(UnsafeBufferPointer(start: out, count: Int(length))))
    }

    /// Whether this is an EC key (else RSA).
    public var isEC: Bool { EVP_PKEY_get_base_id(pkey) == EVP_PKEY_EC }

    /// Signs `message` with `digest`: PKCS#1 v1.5 for RSA, a DER `ECDSA-Sig-Value` for EC.
    public func sign<Message: ContiguousBytes>(_ message: Message, digest: DigestAlgorithm) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw ReceiptError(.crypto, "cannot allocate a digest context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, digest.evp, nil, pkey) == 1 else {
            throw ReceiptError(.crypto, "signing failed: \(OpenSSL.lastError())")
        }
        return try message.withUnsafeBytes { raw -> [UInt8] in
            let input = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            var length = 0
            guard EVP_DigestSign(context, nil, &length, input, raw.count) == 1 else {
                throw ReceiptError(.crypto, "signing failed: \(OpenSSL.lastError())")
            }
            var signature = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context, &signature, &length, input, raw.count) == 1 else {
                throw ReceiptError(.crypto, "signing failed: \(OpenSSL.lastError())")
            }
            return Array(signature.prefix(length))
        }
    }

    /// A JWS ES256 signature: 64 bytes `r ‖ s` over `message`.
    public func signES256<Message: ContiguousBytes>(_ message: Message) throws -> [UInt8] {
        let der = try sign(message, digest: .sha256)
        guard let raw = ECDSASignature.rawFromDER(der, width: 32) else {
            throw ReceiptError(.crypto, "ECDSA signature has an unexpected shape")
        }
        return raw
    }
}
