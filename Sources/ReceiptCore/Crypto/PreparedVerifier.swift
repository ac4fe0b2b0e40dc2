import COpenSSL
import Foundation

/// A public key with its digest-verify context set up once per digest, for a key that checks
/// signature after signature (the leaf of a cached chain). `EVP_DigestVerifyInit` fetches the
/// signature and digest implementations and builds a key context on every call; copying a
/// context initialised once skips that and then verifies exactly as `PublicKey.verify` does.
/// Whenever a prepared context cannot be made or copied, it falls back to `PublicKey.verify`.
public final class PreparedVerifier: @unchecked Sendable {
    // The templates are created and copied under `lock`; a verification works on its own copy.
    /// The key every signature is checked with.
    public let key: PublicKey
    private let lock = NSLock()
    private var sha1: OpaquePointer?
    private var sha256: OpaquePointer?

    /// Prepares nothing yet: a digest's context is set up on its first verification.
    public init(_ key: PublicKey) { self.key = key }

    deinit {
        EVP_MD_CTX_free(sha1)
        EVP_MD_CTX_free(sha256)
    }

    /// `PublicKey.verify(signature:message:digest:)`, answered from a copy of the prepared context.
    public func verify<Signature: ContiguousBytes, Message: ContiguousBytes>(
        signature: Signature, message: Message, digest: DigestAlgorithm
    ) -> Bool {
        guard let context = preparedCopy(digest) else { return key.verify(signature: signature, message: message, digest: digest) }
        defer { EVP_MD_CTX_free(context) }
        return PublicKey.digestVerify(context, signature: signature, message: message)
    }

    /// `PublicKey.verifyES256(rawSignature:message:)` through the prepared SHA-256 context.
    public func verifyES256<Message: ContiguousBytes>(rawSignature: [UInt8], message: Message) -> Bool {
        guard rawSignature.count == 64, let der = ECDSASignature.derFromRaw(rawSignature) else { return false }
        return verify(signature: der, message: message, digest: .sha256)
    }

    /// A fresh context initialised for `digest` with the key, or nil when OpenSSL refuses.
    private func preparedCopy(_ digest: DigestAlgorithm) -> OpaquePointer? {
        lock.lock()
        defer { lock.unlock() }
        var template = digest == .sha1 ? sha1 : sha256
        if template == nil {
            guard let made = EVP_MD_CTX_new() else { return nil }
            guard EVP_DigestVerifyInit(made, nil, digest.evp, nil, key.pkey) == 1 else {
                EVP_MD_CTX_free(made)
                ERR_clear_error()
                return nil
            }
            if digest == .sha1 { sha1 = made } else { sha256 = made }
            template = made
        }
        guard let copy = EVP_MD_CTX_new() else { return nil }
        guard EVP_MD_CTX_copy_ex(copy, template) == 1 else {
            EVP_MD_CTX_free(copy)
            ERR_clear_error()
            return nil
        }
        return copy
    }
}
