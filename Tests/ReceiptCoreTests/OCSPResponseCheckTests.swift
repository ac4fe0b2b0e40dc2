import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// OCSP requests and the offline check of answers: the simulator's responder answers, the check
/// decides whether to believe it (signer, CertID, dates, nonce).
@Suite struct OCSPResponseCheckTests {
    let now = CivilTime(year: 2026, month: 12, day: 3, hour: 9).date

    private func fixture() throws -> (TestCertificateAuthority, OCSPResponder, OCSPRequest) {
        let authority = try TestCertificateAuthority.shared()
        let responder = OCSPResponder(authority: authority)
        let request = try OCSPRequest(certificate: authority.receiptLeaf, issuer: authority.wwdrIntermediate,
                                      nonce: Array(repeating: 7, count: 16))
        return (authority, responder, request)
    }

    private func check(_ answer: [UInt8], _ request: OCSPRequest, _ authority: TestCertificateAuthority) -> RevocationOutcome {
        OCSPResponseCheck.check(answer, for: request, anchors: [authority.root, authority.ecRoot], at: now)
    }

    @Test func requestNamesTheCertificateAndNonce() throws {
        let (authority, _, request) = try fixture()
        let contents = try OCSPRequestContents(der: request.der)
        #expect(contents.entries.count == 1)
        #expect(contents.entries.first?.serialNumber.hexString == authority.receiptLeaf.serialNumberHex)
        #expect(contents.nonce == Array(repeating: 7, count: 16))
    }

    @Test func goodAnswerSignedByTheIssuerIsBelieved() throws {
        let (authority, responder, request) = try fixture()
        let outcome = check(responder.answer(request.der, now: now), request, authority)
        guard case .good(let thisUpdate, let nextUpdate, let signer) = outcome else {
            Issue.record("expected good, got \(outcome)"); return
        }
        #expect(thisUpdate == now)
        #expect(nextUpdate == now.addingTimeInterval(3600))
        #expect(signer == authority.wwdrIntermediate.commonName)
    }

    @Test func intermediateIsAnsweredByTheRoot() throws {
        let (authority, responder, _) = try fixture()
        let request = try OCSPRequest(certificate: authority.ecIntermediate, issuer: authority.ecRoot)
        let outcome = check(responder.answer(request.der, now: now), request, authority)
        #expect(outcome == .good(thisUpdate: now, nextUpdate: now.addingTimeInterval(3600), responder: authority.ecRoot.commonName))
    }

    @Test func revokedAnswerSaysWhenAndWhy() throws {
        let (authority, responder, request) = try fixture()
        let revokedAt = now.addingTimeInterval(-86_400)
        responder.revoke(authority.receiptLeaf, at: revokedAt, reason: 1)
        let outcome = check(responder.answer(request.der, now: now), request, authority)
        #expect(outcome == .revoked(at: revokedAt, reason: "keyCompromise", responder: authority.wwdrIntermediate.commonName))
    }

    @Test func answerSignedByAnotherKeyIsNotBelieved() throws {
        let (authority, responder, request) = try fixture()
        var behaviour = OCSPResponder.Behaviour()
        behaviour.signingKey = authority.receiptLeafKey  // right name, wrong key
        responder.behaviour = behaviour
        let outcome = check(responder.answer(request.der, now: now), request, authority)
        guard case .unknown(let why) = outcome else { Issue.record("believed: \(outcome)"); return }
        #expect(why.contains("not signed by \(authority.wwdrIntermediate.commonName)"))
    }

    @Test func answerSignedByAnImpostorCAIsNotBelieved() throws {
        let (authority, _, request) = try fixture()
        let impostor = OCSPResponder(authority: try TestCertificateAuthority.shared(.withoutAppleMarkers))
        let outcome = check(impostor.answer(request.der, now: now), request, authority)
        guard case .unknown = outcome else { Issue.record("believed: \(outcome)"); return }
    }

    @Test func answerAboutAnotherCertificateIsNotBelieved() throws {
        let (authority, responder, request) = try fixture()
        var behaviour = OCSPResponder.Behaviour()
        behaviour.answersAbout = authority.legacyLeaf
        responder.behaviour = behaviour
        let outcome = check(responder.answer(request.der, now: now), request, authority)
        guard case .unknown(let why) = outcome else { Issue.record("believed: \(outcome)"); return }
        #expect(why.contains("not about \(authority.receiptLeaf.commonName)"))
    }

    @Test func staleAnswerIsNotBelieved() throws {
        let (authority, responder, request) = try fixture()
        var behaviour = OCSPResponder.Behaviour()
        behaviour.thisUpdate = now.addingTimeInterval(-7200)  // valid for an hour, an hour ago
        responder.behaviour = behaviour
        let outcome = check(responder.answer(request.der, now: now), request, authority)
        guard case .unknown(let why) = outcome else { Issue.record("believed: \(outcome)"); return }
        #expect(why.contains("stale"))
    }

    @Test func answerToAnotherNonceIsNotBelieved() throws {
        let (authority, responder, request) = try fixture()
        let other = try OCSPRequest(certificate: authority.receiptLeaf, issuer: authority.wwdrIntermediate,
                                    nonce: Array(repeating: 9, count: 16))
        let outcome = check(responder.answer(other.der, now: now), request, authority)
        guard case .unknown(let why) = outcome else { Issue.record("believed: \(outcome)"); return }
        #expect(why.contains("nonce"))
    }

    @Test func refusalAndGarbageAreUnknown() throws {
        let (authority, responder, request) = try fixture()
        var behaviour = OCSPResponder.Behaviour()
        behaviour.refusal = 3
        responder.behaviour = behaviour
        guard case .unknown(let why) = check(responder.answer(request.der, now: now), request, authority) else {
            Issue.record("a refusal was believed"); return
        }
        #expect(why.contains("refused"))
        guard case .unknown = check([0x30, 0x03, 0x0A, 0x01], request, authority) else { Issue.record("garbage believed"); return }
    }

    @Test func realAppleCertificateNamesApplesResponder() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("../shared/fixtures/apple/certs/ProdECCReceiptSigning-leaf.cer")
        let leaf = try Certificate(pemOrDER: Array(try Data(contentsOf: path)))
        #expect(leaf.ocspResponderURL == "http://ocsp.apple.com/ocsp03-wwdrg602")
        #expect(try TestCertificateAuthority.shared().receiptLeaf.ocspResponderURL == nil)
    }
}
