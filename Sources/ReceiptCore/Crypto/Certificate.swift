import COpenSSL
import Foundation

/// An X.509 certificate: its DER bytes and the facts a receipt verdict needs from it.
public final class Certificate: @unchecked Sendable, CustomStringConvertible {
    // The X509 is never mutated after parsing, so sharing it across threads is safe.
    let x509: OpaquePointer
    /// The DER encoding.
    public let der: [UInt8]
    /// SHA-256 of the DER encoding, lower-case hex.
    public let fingerprint: String
    /// The subject's common name, or the whole subject when it has none.
    public let commonName: String
    /// The subject in OpenSSL's one-line form.
    public let subject: String
    /// Start of the validity period.
    public let notBefore: Date
    /// End of the validity period.
    public let notAfter: Date

    /// Parses a DER certificate.
    public init<Bytes: Collection<UInt8>>(der bytes: Bytes) throws {
        let der = Array(bytes)
        guard let x509 = OpenSSL.parseX509(der) else {
            throw ReceiptError(.badValue, "certificate: not a DER X.509 certificate: \(OpenSSL.lastError())")
        }
        self.x509 = x509
        self.der = der
        self.fingerprint = DigestAlgorithm.sha256.hash(der).hexString
        let name = X509_get_subject_name(x509)
        self.subject = Certificate.oneLine(name)
        self.commonName = Certificate.commonName(name) ?? subject
        guard let notBefore = Certificate.date(X509_get0_notBefore(x509)),
              let notAfter = Certificate.date(X509_get0_notAfter(x509)) else {
            X509_free(x509)
            throw ReceiptError(.badValue, "certificate \(commonName): unreadable validity period")
        }
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    /// Parses a PEM or DER certificate file's contents.
    public convenience init(pemOrDER data: [UInt8]) throws {
        let text = String(decoding: data, as: UTF8.self)
        if let begin = text.range(of: "-----BEGIN CERTIFICATE-----"),
           let end = text.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<text.endIndex) {
            let body = text[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
            guard let der = Data(base64Encoded: String(body)) else {
                throw ReceiptError(.badBase64, "certificate: PEM body is not base64")
            }
            try self.init(der: der)
        } else {
            try self.init(der: data)
        }
    }

    deinit { X509_free(x509) }

    public var description: String { commonName }

    /// The common name of the issuer.
    public var issuerCommonName: String {
        let name = X509_get_issuer_name(x509)
        return Certificate.commonName(name) ?? Certificate.oneLine(name)
    }

    /// Whether the certificate carries an extension with this OID.
    public func hasExtension(_ oid: OID) -> Bool {
        guard let object = OBJ_txt2obj(oid.dotted, 1) else { return false }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(x509, object, -1) >= 0
    }

    /// The subject public key.
    public func publicKey() throws -> PublicKey {
        guard let key = X509_get_pubkey(x509) else {
            throw ReceiptError(.crypto, "certificate \(commonName): unreadable public key: \(OpenSSL.lastError())")
        }
        return PublicKey(owning: key)
    }

    private static func oneLine(_ name: OpaquePointer?) -> String {
        guard let name, let text = X509_NAME_oneline(name, nil, 0) else { return "" }
        defer { rd_openssl_free(text) }
        return String(cString: text)
    }

    private static func commonName(_ name: OpaquePointer?) -> String? {
        guard let name else { return nil }
        let index = X509_NAME_get_index_by_NID(name, NID_commonName, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index),
              let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
        var utf8: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&utf8, data)
        guard length >= 0, let utf8 else { return nil }
        defer { rd_openssl_free(utf8) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
    }

    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return CivilTime(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
                         hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec)).date
    }
}
