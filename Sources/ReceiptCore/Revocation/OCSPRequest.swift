import COpenSSL
import Foundation

/// An OCSP request (RFC 6960 §4.1) asking about one certificate, named by its issuer:
///
///     OCSPRequest ::= SEQUENCE { tbsRequest TBSRequest, optionalSignature [0] EXPLICIT Signature OPTIONAL }
///     TBSRequest  ::= SEQUENCE { version [0] EXPLICIT Version DEFAULT v1, requestorName [1] EXPLICIT GeneralName OPTIONAL,
///                                requestList SEQUENCE OF Request, requestExtensions [2] EXPLICIT Extensions OPTIONAL }
///     Request     ::= SEQUENCE { reqCert CertID, singleRequestExtensions [0] EXPLICIT Extensions OPTIONAL }
///     CertID      ::= SEQUENCE { hashAlgorithm AlgorithmIdentifier (SHA-1), issuerNameHash OCTET STRING,
///                                issuerKeyHash OCTET STRING, serialNumber CertificateSerialNumber }
///
/// Unsigned; the nonce, when given, travels as the id-pkix-ocsp-nonce request extension
/// (1.3.6.1.5.5.7.48.1.2). Building one does no I/O.
public struct OCSPRequest: Sendable {
    /// The certificate asked about.
    public let certificate: Certificate
    /// Its issuer, which the CertID names by hashes and which must sign the answer (or delegate).
    public let issuer: Certificate
    /// The nonce sent, which the answer must echo when it carries one.
    public let nonce: [UInt8]?
    /// The DER request, the body of a POST with `Content-Type: application/ocsp-request`.
    public let der: [UInt8]

    /// A request for `certificate` issued by `issuer`, with `nonce` (8 to 32 bytes) when given.
    public init(certificate: Certificate, issuer: Certificate, nonce: [UInt8]? = nil) throws {
        if let nonce, !(8...32).contains(nonce.count) {
            throw ReceiptError(.badValue, "OCSP request for \(certificate.commonName): nonce of \(nonce.count) bytes, 8 to 32 expected")
        }
        guard let request = OCSP_REQUEST_new() else {
            throw ReceiptError(.crypto, "OCSP request for \(certificate.commonName): OpenSSL could not allocate")
        }
        defer { OCSP_REQUEST_free(request) }
        guard let id = rd_ocsp_cert_to_id(certificate.x509, issuer.x509) else {
            throw ReceiptError(.crypto, "OCSP request for \(certificate.commonName): no CertID under \(issuer.commonName): \(OpenSSL.lastError())")
        }
        guard OCSP_request_add0_id(request, id) != nil else {
            OCSP_CERTID_free(id)
            throw ReceiptError(.crypto, "OCSP request for \(certificate.commonName): \(OpenSSL.lastError())")
        }
        if var nonce {
            let added = nonce.withUnsafeMutableBufferPointer { OCSP_request_add1_nonce(request, $0.baseAddress, Int32($0.count)) }
            guard added == 1 else {
                throw ReceiptError(.crypto, "OCSP request for \(certificate.commonName): cannot add the nonce: \(OpenSSL.lastError())")
            }
        }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_OCSP_REQUEST(request, &out)
        guard length > 0, let out else {
            throw ReceiptError(.crypto, "OCSP request for \(certificate.commonName): cannot encode: \(OpenSSL.lastError())")
        }
        defer { rd_openssl_free(out) }
        self.certificate = certificate
        self.issuer = issuer
        self.nonce = nonce
        self.der = Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}
