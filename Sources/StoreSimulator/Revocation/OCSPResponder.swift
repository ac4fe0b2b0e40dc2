import Foundation
import ReceiptCore

/// The simulator's OCSP responder (`POST /ocsp`, `Content-Type: application/ocsp-request`): answers
/// for the test authority's leaves and intermediates, each answer signed by the certificate's own
/// issuer (the way a CA answers for itself), "good" unless `revoke` marked it. `behaviour` makes it
/// misbehave for tests: refuse, sign with another key, answer about another certificate, or date
/// its answers. Counts the requests it saw.
public final class OCSPResponder: @unchecked Sendable {
    /// How the responder answers; the default is the honest responder.
    public struct Behaviour: Sendable {
        /// How long an answer stays valid: nextUpdate = thisUpdate + this (nil: no nextUpdate).
        public var validity: TimeInterval? = 3600
        /// Answers with this OCSPResponseStatus and nothing else (3 tryLater, 6 unauthorized, …).
        public var refusal: UInt8?
        /// Signs with this key instead of the issuer's (the responderID still names the issuer).
        public var signingKey: PrivateKey?
        /// Answers about this certificate instead of the one asked about.
        public var answersAbout: Certificate?
        /// Dates thisUpdate/producedAt at this time instead of now.
        public var thisUpdate: Date?
        /// Leaves out the nonce even when the request carries one.
        public var dropsNonce = false

        public init() {}
    }

    private struct Entry {
        let certificate: IssuedCertificate
        let issuer: IssuedCertificate
    }

    private let lock = NSLock()
    private let bySerial: [String: Entry]
    private var revoked: [String: (at: Date, reason: Int?)] = [:]
    private var currentBehaviour = Behaviour()
    private var requests = 0

    /// A responder for `authority`'s certificates.
    public init(authority: TestCertificateAuthority) {
        var map: [String: Entry] = [:]
        for chain in [authority.receiptChain, authority.legacyChain, authority.jwsChain] {
            map[chain.leaf.serialNumber.hexString] = Entry(certificate: chain.leaf, issuer: chain.intermediate)
            map[chain.intermediate.serialNumber.hexString] = Entry(certificate: chain.intermediate, issuer: chain.root)
        }
        bySerial = map
    }

    /// How it answers now.
    public var behaviour: Behaviour {
        get { lock.withLock { currentBehaviour } }
        set { lock.withLock { currentBehaviour = newValue } }
    }

    /// Marks `certificate` revoked at `at` with an RFC 5280 CRLReason code (1 keyCompromise, …).
    public func revoke(_ certificate: Certificate, at: Date, reason: Int? = 1) {
        lock.withLock { revoked[certificate.serialNumberHex] = (at, reason) }
    }

    /// How many requests arrived.
    public var requestCount: Int { lock.withLock { requests } }

    /// The answer to a DER OCSP request at `now`.
    public func answer(_ body: [UInt8], now: Date) -> [UInt8] {
        let (behaviour, revokedNow) = lock.withLock { () -> (Behaviour, [String: (at: Date, reason: Int?)]) in
            requests += 1
            return (currentBehaviour, revoked)
        }
        if let refusal = behaviour.refusal { return OCSPAnswerWriter.refusal(refusal) }
        guard let request = try? OCSPRequestContents(der: body), let first = request.entries.first else {
            return OCSPAnswerWriter.refusal(1)  // malformedRequest: nothing in it can be answered
        }
        guard let known = bySerial[first.serialNumber.hexString],
              first.issuerNameHash == DigestAlgorithm.sha1.hash(known.issuer.subject.der) else {
            return OCSPAnswerWriter.refusal(6)  // unauthorized: not one of this CA's certificates
        }
        let thisUpdate = behaviour.thisUpdate ?? now
        var singles: [OCSPAnswerWriter.Single] = []
        for entry in request.entries {
            var certID = entry.certIDDER
            if let other = behaviour.answersAbout, let swapped = Self.certID(entry.certIDDER, serial: other) { certID = swapped }
            let status: OCSPAnswerWriter.CertStatus
            let serial = behaviour.answersAbout?.serialNumberHex ?? entry.serialNumber.hexString
            if let mark = revokedNow[serial] {
                status = .revoked(at: mark.at, reason: mark.reason)
            } else {
                status = bySerial[serial] == nil ? .unknown : .good
            }
            singles.append(.init(certIDDER: certID, status: status, thisUpdate: thisUpdate,
                                 nextUpdate: behaviour.validity.map { thisUpdate.addingTimeInterval($0) }))
        }
        do {
            return try OCSPAnswerWriter.successful(singles, producedAt: thisUpdate, responder: known.issuer.subject,
                                                   key: behaviour.signingKey ?? known.issuer.privateKey,
                                                   nonce: behaviour.dropsNonce ? nil : request.nonce)
        } catch {
            return OCSPAnswerWriter.refusal(2)  // internalError: signing failed
        }
    }

    /// The CertID DER with its serial number replaced by `certificate`'s (the hashes kept).
    private static func certID(_ der: [UInt8], serial certificate: Certificate) -> [UInt8]? {
        // A CertID this process wrote moments ago always reads; nil only leaves it unswapped.
        guard let node = try? ASN1Reader.parseSingle(der, "CertID") else { return nil }
        var fields = node.children()
        guard
              let algorithm = try? fields.read(.sequence, "hashAlgorithm"),
              let nameHash = try? fields.read(.octetString, "issuerNameHash"),
              let keyHash = try? fields.read(.octetString, "issuerKeyHash") else { return nil }
        let serial = Self.bytes(hex: certificate.serialNumberHex)
        return DER.sequence([Array(algorithm.encoded), DER.octetString(Array(nameHash.content)),
                             DER.octetString(Array(keyHash.content)), DER.unsignedInteger(serial)])
    }

    private static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16) }
    }
}
