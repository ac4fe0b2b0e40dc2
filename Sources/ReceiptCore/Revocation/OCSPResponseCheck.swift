import COpenSSL
import Foundation

/// Decides whether an OCSP answer (RFC 6960 §4.2) is to be believed for one request, at a given
/// time, and what it says. Pure: no I/O, no clock.
///
///     OCSPResponse ::= SEQUENCE { responseStatus ENUMERATED, responseBytes [0] EXPLICIT ResponseBytes OPTIONAL }
///     ResponseBytes ::= SEQUENCE { responseType OID (id-pkix-ocsp-basic), response OCTET STRING }
///     BasicOCSPResponse ::= SEQUENCE { tbsResponseData ResponseData, signatureAlgorithm AlgorithmIdentifier,
///                                      signature BIT STRING, certs [0] EXPLICIT SEQUENCE OF Certificate OPTIONAL }
///     SingleResponse ::= SEQUENCE { certID CertID, certStatus CertStatus, thisUpdate GeneralizedTime,
///                                   nextUpdate [0] EXPLICIT GeneralizedTime OPTIONAL, … }
///
/// Believed only when all of these hold, otherwise the outcome is `.unknown` saying which failed:
/// the response status is successful; the basic response is signed by the certificate's issuer,
/// or by a responder certificate the issuer issued with id-kp-OCSPSigning, whose path leads to
/// one of `anchors` at `time`; it holds a SingleResponse for the request's CertID; the nonce, when
/// the answer carries one, is the one sent (`requireNonce`: and it must carry it);
/// thisUpdate ≤ time + skew and time − skew ≤ nextUpdate (without nextUpdate: thisUpdate no older
/// than `maxAgeWithoutNextUpdate`).
public enum OCSPResponseCheck {
    /// The largest answer read: Apple's are about 2 KB.
    public static let maximumSize = 64 * 1024

    /// The outcome of `response` for `request` at `time`.
    public static func check(_ response: [UInt8], for request: OCSPRequest, anchors: [Certificate], at time: Date,
                             skew: TimeInterval = 300, maxAgeWithoutNextUpdate: TimeInterval = 86_400,
                             requireNonce: Bool = false) -> RevocationOutcome {
        let name = request.certificate.commonName
        guard response.count <= maximumSize else {
            return .unknown(why: "the answer about \(name) is \(response.count) bytes, more than \(maximumSize)")
        }
        let parsed = response.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_OCSP_RESPONSE(nil, &cursor, buffer.count)
        }
        guard let ocsp = parsed else {
            return .unknown(why: "the answer about \(name) is not a DER OCSP response: \(OpenSSL.lastError())")
        }
        defer { OCSP_RESPONSE_free(ocsp) }
        let status = OCSP_response_status(ocsp)
        guard status == OCSP_RESPONSE_STATUS_SUCCESSFUL else {
            return .unknown(why: "the responder refused to answer about \(name): \(String(cString: OCSP_response_status_str(Int(status))))")
        }
        guard let basic = OCSP_response_get1_basic(ocsp) else {
            return .unknown(why: "the answer about \(name) holds no basic OCSP response: \(OpenSSL.lastError())")
        }
        defer { OCSP_BASICRESP_free(basic) }
        if let problem = nonceProblem(basic, request, requireNonce: requireNonce) { return .unknown(why: problem) }
        if let problem = signatureProblem(basic, request, anchors: anchors, at: time) { return .unknown(why: problem) }

        guard let id = rd_ocsp_cert_to_id(request.certificate.x509, request.issuer.x509) else {
            return .unknown(why: "no CertID for \(name): \(OpenSSL.lastError())")
        }
        defer { OCSP_CERTID_free(id) }
        var certStatus: Int32 = -1
        var reason: Int32 = -1
        var revokedAt: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?
        var thisUpdateRaw: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?
        var nextUpdateRaw: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?
        guard OCSP_resp_find_status(basic, id, &certStatus, &reason, &revokedAt, &thisUpdateRaw, &nextUpdateRaw) == 1 else {
            ERR_clear_error()
            return .unknown(why: "the answer is not about \(name) (serial \(request.certificate.serialNumberHex)): it names another certificate")
        }
        guard let thisUpdate = Certificate.date(UnsafePointer(thisUpdateRaw)) else {
            return .unknown(why: "the answer about \(name) has an unreadable thisUpdate")
        }
        let nextUpdate = nextUpdateRaw.flatMap { Certificate.date(UnsafePointer($0)) }
        if nextUpdateRaw != nil && nextUpdate == nil {
            return .unknown(why: "the answer about \(name) has an unreadable nextUpdate")
        }
        if thisUpdate > time.addingTimeInterval(skew) {
            return .unknown(why: "the answer about \(name) is dated \(RFC3339.format(thisUpdate)), after the check time \(RFC3339.format(time))")
        }
        if let nextUpdate, nextUpdate < time.addingTimeInterval(-skew) {
            return .unknown(why: "the answer about \(name) is stale: valid until \(RFC3339.format(nextUpdate)), checked at \(RFC3339.format(time))")
        }
        if nextUpdate == nil, thisUpdate < time.addingTimeInterval(-maxAgeWithoutNextUpdate) {
            return .unknown(why: "the answer about \(name) is stale: dated \(RFC3339.format(thisUpdate)) with no nextUpdate, checked at \(RFC3339.format(time))")
        }
        let responder = signerName(basic) ?? request.issuer.commonName
        switch certStatus {
        case V_OCSP_CERTSTATUS_GOOD:
            return .good(thisUpdate: thisUpdate, nextUpdate: nextUpdate, responder: responder)
        case V_OCSP_CERTSTATUS_REVOKED:
            guard let at = Certificate.date(UnsafePointer(revokedAt)) else {
                return .unknown(why: "the answer says \(name) is revoked but its revocation time is unreadable")
            }
            let why = reason >= 0 ? String(cString: OCSP_crl_reason_str(Int(reason))) : "no reason given"
            return .revoked(at: at, reason: why, responder: responder)
        default:
            return .unknown(why: "the responder does not know \(name) (status unknown)")
        }
    }

    /// Why the nonce rules out the answer, or nil.
    private static func nonceProblem(_ basic: OpaquePointer, _ request: OCSPRequest, requireNonce: Bool) -> String? {
        guard request.nonce != nil else { return nil }
        let parsed = request.der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_OCSP_REQUEST(nil, &cursor, buffer.count)
        }
        guard let sent = parsed else { return "the request sent could not be read back: \(OpenSSL.lastError())" }
        defer { OCSP_REQUEST_free(sent) }
        switch OCSP_check_nonce(sent, basic) {
        case 1, 2: return nil
        case 3: return requireNonce ? "the answer about \(request.certificate.commonName) does not echo the nonce sent" : nil
        default:
            ERR_clear_error()
            return "the answer about \(request.certificate.commonName) carries another nonce than the one sent: a replayed or misdirected answer"
        }
    }

    /// Why the signature (or the signer's authority) rules out the answer, or nil.
    private static func signatureProblem(_ basic: OpaquePointer, _ request: OCSPRequest, anchors: [Certificate], at time: Date) -> String? {
        let name = request.certificate.commonName
        guard let store = X509_STORE_new(), let untrusted = rd_sk_x509_new() else { return "OpenSSL could not allocate" }
        defer { X509_STORE_free(store); rd_sk_x509_free(untrusted) }
        for anchor in anchors { X509_STORE_add_cert(store, anchor.x509) }
        rd_sk_x509_push(untrusted, request.issuer.x509)
        X509_VERIFY_PARAM_set_time(X509_STORE_get0_param(store), time_t(time.timeIntervalSince1970.rounded(.down)))
        // Flags 0: the signer must be the issuer or carry id-kp-OCSPSigning from it, and its path
        // must lead to an anchor; certificates in `untrusted` and in the answer are never trusted.
        guard OCSP_basic_verify(basic, untrusted, store, 0) == 1 else {
            return "the answer about \(name) is not signed by \(request.issuer.commonName) nor by a responder it delegated to: \(OpenSSL.lastError())"
        }
        return nil
    }

    /// The common name of the certificate that signed the answer.
    private static func signerName(_ basic: OpaquePointer) -> String? {
        var signer: OpaquePointer?
        guard OCSP_resp_get0_signer(basic, &signer, nil) == 1, let signer else { return nil }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(signer, &out)
        guard length > 0, let out else { return nil }
        defer { rd_openssl_free(out) }
        // A signer that verified above always re-reads; nil only names the issuer instead.
        return try? Certificate(der: UnsafeBufferPointer(start: out, count: Int(length))).commonName
    }
}
