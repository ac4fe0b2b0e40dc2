import COpenSSL
import Foundation

/// Small helpers around OpenSSL's C conventions, kept in one place.
enum OpenSSL {
    /// The most recent OpenSSL error as text (and the queue cleared), for error messages.
    static func lastError() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        rd_last_error(&buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "no detail from OpenSSL" : text
    }

    /// Parses DER certificate bytes into an OpenSSL `X509`; the caller frees it.
    static func parseX509<Bytes: Collection<UInt8>>(_ der: Bytes) -> OpaquePointer? {
        let bytes = Array(der)
        return bytes.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
    }

    /// The message digests receipts use, fetched once: implicit fetching on every call costs
    /// a lock and a lookup inside OpenSSL 3.
    struct Digests: @unchecked Sendable {
        let sha1: OpaquePointer?
        let sha256: OpaquePointer?
    }

    static let digests = Digests(sha1: EVP_MD_fetch(nil, "SHA1", nil), sha256: EVP_MD_fetch(nil, "SHA256", nil))
}

/// How OpenSSL lives in a process.
public enum OpenSSLProcess {
    /// Asks OpenSSL not to tear itself down in an `atexit` handler, and says whether it agreed.
    /// Its teardown deletes the per-thread keys while other threads still run: a worker thread
    /// that ends as the process exits then never frees its error state (LeakSanitizer saw that
    /// 904-byte `ERR_STATE` leak now and then in CLI runs under load), and one still verifying
    /// could use freed tables. The system frees everything at exit anyway. Call it first thing in
    /// `main`, before anything uses OpenSSL (libcurl below URLSession included): the first
    /// initialisation decides.
    @discardableResult
    public static func keepUntilExit() -> Bool {
        OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1
    }
}

/// The digest algorithms a receipt signature may use.
public enum DigestAlgorithm: String, Sendable {
    case sha1 = "SHA-1"
    case sha256 = "SHA-256"

    var evp: OpaquePointer? {
        switch self {
        case .sha1: return OpenSSL.digests.sha1
        case .sha256: return OpenSSL.digests.sha256
        }
    }

    /// The digest of `bytes`.
    public func hash<Bytes: ContiguousBytes>(_ bytes: Bytes) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { raw in
            EVP_Digest(raw.baseAddress, raw.count, &output, &length, evp, nil)
        }
        return ok == 1 ? Array(output.prefix(Int(length))) : []
    }
}

extension Array where Element == UInt8 {
    /// Lower-case hex, two digits a byte.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
