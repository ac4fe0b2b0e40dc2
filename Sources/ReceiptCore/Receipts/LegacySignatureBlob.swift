/// The binary `signature` of a legacy iOS 6 receipt, after base64 decoding:
///
///     struct signature_blob {
///         uint8_t  version;          // 2 or 3
///         uint8_t  signature[N];     // 128 bytes for version 2 (RSA-1024), 256 for version 3
///         uint32_t cert_len;         // big-endian
///         uint8_t  certificate[cert_len];  // DER leaf certificate
///     };
///
/// The signature is RSA PKCS#1 v1.5 with SHA-1 over `version ‖ purchase-info bytes`. Version 2
/// is verified against real receipts; the version 3 layout comes from public samples only.
public struct LegacySignatureBlob: Sendable, Equatable {
    /// The layout version (first byte).
    public let version: UInt8
    /// The RSA signature.
    public let signature: [UInt8]
    /// The DER leaf certificate that made the signature.
    public let certificateDER: [UInt8]
    /// The whole blob as decoded.
    public let bytes: [UInt8]

    /// The signature length a layout version uses, or nil for an unknown version.
    public static func signatureLength(forVersion version: UInt8) -> Int? {
        switch version {
        case 2: return 128
        case 3: return 256
        default: return nil
        }
    }

    /// Splits a decoded blob into its parts. Anything but the exact layout (unknown version, a
    /// short signature or length, a certificate length past the end, bytes after the certificate)
    /// is an error naming the byte offset.
    public init(bytes: [UInt8]) throws {
        func fail(_ code: ReceiptError.Code, _ offset: Int, _ message: String) -> ReceiptError {
            ReceiptError(code, "legacy receipt: signature blob at byte \(offset): \(message)")
        }
        guard let version = bytes.first else {
            throw fail(.truncated, 0, "empty, expected a version byte")
        }
        guard let length = Self.signatureLength(forVersion: version) else {
            throw fail(.badValue, 0, "unknown version \(version) (known: 2 with a 128-byte signature, 3 with 256)")
        }
        let signatureEnd = 1 + length
        guard bytes.count >= signatureEnd else {
            throw fail(.truncated, 1, "version \(version) needs a \(length)-byte signature, \(Plural.of(bytes.count - 1, "byte")) remain\(bytes.count - 1 == 1 ? "s" : "")")
        }
        guard bytes.count >= signatureEnd + 4 else {
            throw fail(.truncated, signatureEnd, "needs a 4-byte certificate length, \(Plural.of(bytes.count - signatureEnd, "byte")) remain\(bytes.count - signatureEnd == 1 ? "s" : "")")
        }
        let certLength = bytes[signatureEnd..<signatureEnd + 4].reduce(0) { $0 << 8 | Int($1) }
        let certStart = signatureEnd + 4
        let remaining = bytes.count - certStart
        guard certLength > 0 else {
            throw fail(.badLength, signatureEnd, "certificate length is 0")
        }
        guard certLength <= remaining else {
            throw fail(.badLength, signatureEnd, "certificate length \(certLength) runs past the end (\(Plural.of(remaining, "byte")) remain\(remaining == 1 ? "s" : ""))")
        }
        guard certLength == remaining else {
            throw fail(.trailingBytes, certStart + certLength, "\(Plural.of(remaining - certLength, "byte")) after the \(certLength)-byte certificate")
        }
        self.version = version
        self.signature = Array(bytes[1..<signatureEnd])
        self.certificateDER = Array(bytes[certStart...])
        self.bytes = bytes
    }

    /// The leaf certificate's common name, or nil when the certificate does not parse (which
    /// verification reports as an invalid receipt).
    public var leafCommonName: String? {
        // nil is the answer for an unreadable certificate; verify() says why.
        (try? Certificate(der: certificateDER))?.commonName
    }
}
