import COpenSSL
import Foundation

/// A public key with its digest-verify context set up once per digest, for a key that checks
/// signature after signature (the leaf of a cached chain). `EVP_DigestVerifyInit` fetches the
/// signature and digest implementations and builds a key context on every call; copying a
/// context initialised once skips that and then verifies exactly as `PublicKey.verify` does.
/// Whenever a prepared context cannot be made or copied, it falls back to `PublicKey.verify`.
///
/// Signed messages that begin with the same long bytes (a JWS's protected header: kilobytes of
/// `x5c`, the same for every artefact Apple signs with one certificate) can also have those bytes
/// absorbed once: a context that has already hashed exactly that prefix is copied, and only the
/// rest is hashed (`verify(signature:prefix:rest:digest:)`). The digest is the same SHA-256 over
/// the same bytes; a prefix is matched byte for byte.
public final class PreparedVerifier: @unchecked Sendable {
    // The templates are created, copied and freed under `lock`; a verification works on its own copy.
    /// The key every signature is checked with.
    public let key: PublicKey
    private let lock = NSLock()
    private var sha1: OpaquePointer?
    private var sha256: OpaquePointer?
    /// Contexts that have absorbed a prefix, the most recently made last.
    private var absorbed: [(digest: DigestAlgorithm, prefix: [UInt8], context: OpaquePointer)] = []

    /// Prefixes kept absorbed per key (Apple signs under one header per certificate and environment).
    public static let absorbedCapacity = 4
    /// Shorter prefixes are hashed with the rest: absorbing them would save less than a lookup costs.
    public static let minimumAbsorbedPrefix = 256
    /// Longer prefixes are never kept.
    public static let maximumAbsorbedPrefix = 64 * 1024

    /// Prepares nothing yet: a digest's context is set up on its first verification.
    public init(_ key: PublicKey) { self.key = key }

    deinit {
        EVP_MD_CTX_free(sha1)
        EVP_MD_CTX_free(sha256)
        for entry in absorbed { EVP_MD_CTX_free(entry.context) }
    }

    /// `PublicKey.verify(signature:message:digest:)`, answered from a copy of the prepared context.
    public func verify<Signature: ContiguousBytes, Message: ContiguousBytes>(
        signature: Signature, message: Message, digest: DigestAlgorithm
    ) -> Bool {
        guard let context = preparedCopy(digest) else { return key.verify(signature: signature, message: message, digest: digest) }
        defer { EVP_MD_CTX_free(context) }
        return PublicKey.digestVerify(context, signature: signature, message: message)
    }

    /// `verify(signature:message:digest:)` for the message `prefix` followed by `rest`, from a
    /// copy of a context that has already absorbed `prefix` (made on first use, kept for the next).
    public func verify<Signature: ContiguousBytes>(
        signature: Signature, prefix: ArraySlice<UInt8>, rest: ArraySlice<UInt8>, digest: DigestAlgorithm
    ) -> Bool {
        guard prefix.count >= Self.minimumAbsorbedPrefix, prefix.count <= Self.maximumAbsorbedPrefix,
              let context = absorbedCopy(digest, prefix) else {
            return verify(signature: signature, message: Array(prefix) + Array(rest), digest: digest)
        }
        defer { EVP_MD_CTX_free(context) }
        let updated = rest.withUnsafeBytes { EVP_DigestVerifyUpdate(context, $0.baseAddress, $0.count) == 1 }
        let result = updated ? signature.withUnsafeBytes { sig in
            EVP_DigestVerifyFinal(context, sig.baseAddress?.assumingMemoryBound(to: UInt8.self), sig.count)
        } : 0
        if result != 1 { ERR_clear_error() }
        return result == 1
    }

    /// `PublicKey.verifyES256(rawSignature:message:)` through the prepared SHA-256 context.
    public func verifyES256<Message: ContiguousBytes>(rawSignature: [UInt8], message: Message) -> Bool {
        guard rawSignature.count == 64, let der = ECDSASignature.derFromRaw(rawSignature) else { return false }
        return verify(signature: der, message: message, digest: .sha256)
    }

    /// `verifyES256(rawSignature:message:)` for the message `prefix` followed by `rest`, with
    /// `prefix` absorbed once (a JWS's `header.`).
    public func verifyES256(rawSignature: [UInt8], prefix: ArraySlice<UInt8>, rest: ArraySlice<UInt8>) -> Bool {
        guard rawSignature.count == 64, let der = ECDSASignature.derFromRaw(rawSignature) else { return false }
        return verify(signature: der, prefix: prefix, rest: rest, digest: .sha256)
    }

    /// A fresh context initialised for `digest` with the key, or nil when OpenSSL refuses.
    private func preparedCopy(_ digest: DigestAlgorithm) -> OpaquePointer? {
        lock.lock()
        defer { lock.unlock() }
        guard let template = template(digest) else { return nil }
        return Self.copy(template)
    }

    /// A fresh context that has absorbed exactly `prefix`, or nil when OpenSSL refuses.
    private func absorbedCopy(_ digest: DigestAlgorithm, _ prefix: ArraySlice<UInt8>) -> OpaquePointer? {
        lock.lock()
        defer { lock.unlock() }
        let found = absorbed.first { entry in
            entry.digest == digest && entry.prefix.count == prefix.count && entry.prefix.withUnsafeBytes { kept in
                prefix.withUnsafeBytes { asked in memcmp(kept.baseAddress!, asked.baseAddress!, kept.count) == 0 }
            }
        }
        if let found { return Self.copy(found.context) }
        guard let template = template(digest), let made = Self.copy(template) else { return nil }
        guard prefix.withUnsafeBytes({ EVP_DigestVerifyUpdate(made, $0.baseAddress, $0.count) }) == 1 else {
            EVP_MD_CTX_free(made)
            ERR_clear_error()
            return nil
        }
        if absorbed.count == Self.absorbedCapacity { EVP_MD_CTX_free(absorbed.removeFirst().context) }
        absorbed.append((digest, Array(prefix), made))
        return Self.copy(made)
    }

    /// The context initialised once for `digest` (made now if need be); called under `lock`.
    private func template(_ digest: DigestAlgorithm) -> OpaquePointer? {
        if let made = digest == .sha1 ? sha1 : sha256 { return made }
        guard let made = EVP_MD_CTX_new() else { return nil }
        guard EVP_DigestVerifyInit(made, nil, digest.evp, nil, key.pkey) == 1 else {
            EVP_MD_CTX_free(made)
            ERR_clear_error()
            return nil
        }
        if digest == .sha1 { sha1 = made } else { sha256 = made }
        return made
    }

    private static func copy(_ template: OpaquePointer) -> OpaquePointer? {
        guard let copy = EVP_MD_CTX_new() else { return nil }
        guard EVP_MD_CTX_copy_ex(copy, template) == 1 else {
            EVP_MD_CTX_free(copy)
            ERR_clear_error()
            return nil
        }
        return copy
    }
}
