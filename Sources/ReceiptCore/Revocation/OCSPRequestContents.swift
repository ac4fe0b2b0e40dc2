import COpenSSL
import Foundation

/// What an OCSP request asks, read back from its DER (a responder's view of `OCSPRequest`).
public struct OCSPRequestContents: Sendable {
    /// One certificate asked about.
    public struct Entry: Sendable, Equatable {
        /// The CertID as DER, which an answer repeats verbatim.
        public let certIDDER: [UInt8]
        /// The serial number's big-endian magnitude.
        public let serialNumber: [UInt8]
        /// SHA-1 (or the CertID's algorithm) of the issuer's DER name.
        public let issuerNameHash: [UInt8]
        /// SHA-1 (or the CertID's algorithm) of the issuer's public key bits.
        public let issuerKeyHash: [UInt8]
    }

    /// The certificates asked about, in the request's order.
    public let entries: [Entry]
    /// The id-pkix-ocsp-nonce extension's value, when the request carries one.
    public let nonce: [UInt8]?

    /// Reads a DER OCSP request; at most 64 entries.
    public init(der bytes: [UInt8]) throws {
        let parsed = bytes.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_OCSP_REQUEST(nil, &cursor, buffer.count)
        }
        guard let request = parsed else {
            throw ReceiptError(.badValue, "OCSP request: not DER OCSPRequest: \(OpenSSL.lastError())")
        }
        defer { OCSP_REQUEST_free(request) }
        let count = Int(OCSP_request_onereq_count(request))
        guard count <= 64 else { throw ReceiptError(.tooLarge, "OCSP request: \(count) entries, at most 64") }
        var entries: [Entry] = []
        for index in 0..<count {
            guard let one = OCSP_request_onereq_get0(request, Int32(index)), let id = OCSP_onereq_get0_id(one) else {
                throw ReceiptError(.missingField, "OCSP request: entry \(index) has no CertID")
            }
            var nameHash: UnsafeMutablePointer<ASN1_OCTET_STRING>?
            var keyHash: UnsafeMutablePointer<ASN1_OCTET_STRING>?
            var serial: UnsafeMutablePointer<ASN1_INTEGER>?
            guard OCSP_id_get0_info(&nameHash, nil, &keyHash, &serial, id) == 1 else {
                throw ReceiptError(.badValue, "OCSP request: entry \(index): unreadable CertID")
            }
            var out: UnsafeMutablePointer<UInt8>?
            let length = i2d_OCSP_CERTID(id, &out)
            guard length > 0, let out else { throw ReceiptError(.crypto, "OCSP request: entry \(index): cannot encode its CertID") }
            let certID = Array(UnsafeBufferPointer(start: out, count: Int(length)))
            rd_openssl_free(out)
            entries.append(Entry(certIDDER: certID, serialNumber: OpenSSL.bytes(serial), issuerNameHash: OpenSSL.bytes(nameHash),
                                 issuerKeyHash: OpenSSL.bytes(keyHash)))
        }
        self.entries = entries
        var nonce: [UInt8]?
        let at = OCSP_REQUEST_get_ext_by_NID(request, NID_id_pkix_OCSP_Nonce, -1)
        if at >= 0, let ext = OCSP_REQUEST_get_ext(request, at), let data = X509_EXTENSION_get_data(ext) {
            // extnValue holds the DER of an OCTET STRING (RFC 8954); a raw value is taken as is.
            let raw = OpenSSL.bytes(data)
            if raw.count >= 2, raw[0] == 0x04, Int(raw[1]) == raw.count - 2 { nonce = Array(raw[2...]) } else { nonce = raw }
        }
        self.nonce = nonce
    }
}

extension OpenSSL {
    /// The content bytes of an ASN1_STRING (OCTET STRING, INTEGER magnitude, …); empty for nil.
    static func bytes(_ string: UnsafeMutablePointer<ASN1_STRING>?) -> [UInt8] {
        guard let string, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(string))))
    }
}
