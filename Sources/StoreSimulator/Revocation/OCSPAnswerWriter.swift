import Foundation
import ReceiptCore

/// Writes OCSP answers (RFC 6960 §4.2.1) from readable values, signed with a given key: what the
/// simulator's responder sends, and what tests forge (a wrong key, another certificate, stale dates).
///
///     OCSPResponse ::= SEQUENCE { responseStatus ENUMERATED, responseBytes [0] EXPLICIT ResponseBytes OPTIONAL }
///     ResponseBytes ::= SEQUENCE { responseType OBJECT IDENTIFIER (1.3.6.1.5.5.7.48.1.1), response OCTET STRING }
///     BasicOCSPResponse ::= SEQUENCE { tbsResponseData ResponseData, signatureAlgorithm AlgorithmIdentifier,
///                                      signature BIT STRING, certs [0] EXPLICIT SEQUENCE OF Certificate OPTIONAL }
///     ResponseData ::= SEQUENCE { responderID [1] EXPLICIT Name (byName), producedAt GeneralizedTime,
///                                 responses SEQUENCE OF SingleResponse, responseExtensions [1] EXPLICIT Extensions OPTIONAL }
///     SingleResponse ::= SEQUENCE { certID CertID, certStatus CertStatus, thisUpdate GeneralizedTime,
///                                   nextUpdate [0] EXPLICIT GeneralizedTime OPTIONAL }
///     CertStatus ::= CHOICE { good [0] IMPLICIT NULL, revoked [1] IMPLICIT RevokedInfo, unknown [2] IMPLICIT NULL }
///     RevokedInfo ::= SEQUENCE { revocationTime GeneralizedTime, revocationReason [0] EXPLICIT CRLReason OPTIONAL }
public enum OCSPAnswerWriter {
    /// A certificate's status in one SingleResponse.
    public enum CertStatus: Sendable, Equatable {
        case good
        /// Revoked at a time, with an RFC 5280 CRLReason code (1 keyCompromise, 4 superseded, …).
        case revoked(at: Date, reason: Int?)
        case unknown
    }

    /// One SingleResponse.
    public struct Single: Sendable {
        /// The CertID DER, as the request wrote it.
        public var certIDDER: [UInt8]
        public var status: CertStatus
        public var thisUpdate: Date
        public var nextUpdate: Date?

        public init(certIDDER: [UInt8], status: CertStatus, thisUpdate: Date, nextUpdate: Date?) {
            self.certIDDER = certIDDER
            self.status = status
            self.thisUpdate = thisUpdate
            self.nextUpdate = nextUpdate
        }
    }

    /// A successful answer holding `responses`, signed by `key` and naming `responder` as its
    /// responderID; `nonce` is echoed as the id-pkix-ocsp-nonce extension; `certs` travel along.
    public static func successful(_ responses: [Single], producedAt: Date, responder: DistinguishedName, key: PrivateKey,
                                  nonce: [UInt8]? = nil, certs: [Certificate] = []) throws -> [UInt8] {
        var data = [DER.explicit(1, responder.der), DER.generalizedTime(producedAt), DER.sequence(responses.map(single))]
        if let nonce {
            let extnValue = DER.octetString(DER.octetString(nonce))
            data.append(DER.explicit(1, DER.sequence([DER.sequence([DER.oid(try oid("1.3.6.1.5.5.7.48.1.2")), extnValue])])))
        }
        let tbs = DER.sequence(data)
        let algorithm = key.isEC ? DER.sequence([DER.oid(.ecdsaWithSHA256)]) : DER.sequence([DER.oid(.sha256WithRSA), DER.null()])
        var basic = [tbs, algorithm, DER.bitString(try key.sign(tbs, digest: .sha256))]
        if !certs.isEmpty { basic.append(DER.explicit(0, DER.sequence(certs.map(\.der)))) }
        let bytes = DER.sequence([DER.oid(try oid("1.3.6.1.5.5.7.48.1.1")), DER.octetString(DER.sequence(basic))])
        return DER.sequence([enumerated(0), DER.explicit(0, bytes)])
    }

    /// An answer without content: 1 malformedRequest, 2 internalError, 3 tryLater, 5 sigRequired, 6 unauthorized.
    public static func refusal(_ status: UInt8) -> [UInt8] { DER.sequence([enumerated(status)]) }

    private static func single(_ response: Single) -> [UInt8] {
        let status: [UInt8]
        switch response.status {
        case .good: status = [0x80, 0x00]
        case .unknown: status = [0x82, 0x00]
        case .revoked(let at, let reason):
            var info = [DER.generalizedTime(at)]
            if let reason { info.append(DER.explicit(0, enumerated(UInt8(clamping: reason)))) }
            status = DER.tlv(.context(1, constructed: true), info.flatMap { $0 })
        }
        var fields = [response.certIDDER, status, DER.generalizedTime(response.thisUpdate)]
        if let next = response.nextUpdate { fields.append(DER.explicit(0, DER.generalizedTime(next))) }
        return DER.sequence(fields)
    }

    private static func enumerated(_ value: UInt8) -> [UInt8] { value < 0x80 ? [0x0A, 0x01, value] : [0x0A, 0x02, 0x00, value] }

    private static func oid(_ dotted: String) throws -> OID {
        guard let oid = OID(dotted) else { throw ReceiptError(.badValue, "OCSP writer: bad OID \(dotted)") }
        return oid
    }
}
