import Foundation
import StoreSimulator
import Testing
import AppStoreAPI
import ReceiptCore

/// The revocation check over loopback to the simulator's OCSP responder, folded into verdicts.
@Suite(.serialized) struct RevocationCheckerTests {
    let now = CivilTime(year: 2025, month: 6, day: 1, hour: 12).date

    private struct Setup {
        let simulator: AppStoreSimulator
        let verifier: ReceiptVerifier
        let artefact: DecodedArtefact
        let authority: TestCertificateAuthority
    }

    private func setup() throws -> Setup {
        let authority = try TestCertificateAuthority.shared()
        let now = self.now
        let simulator = try AppStoreSimulator(state: SimulatorState(authority: authority), clock: { now })
        try simulator.start()
        let jws = try ServerAPIFixtures.transaction("2000000000000042")
        return Setup(simulator: simulator, verifier: ReceiptVerifier(trust: authority.trustStore()),
                     artefact: try ReceiptDecoder.decode(Array(jws.utf8)), authority: authority)
    }

    private func checker(_ setup: Setup, _ mode: RevocationPolicy.Mode, url: URL? = nil) -> RevocationChecker {
        RevocationChecker(policy: RevocationPolicy(mode: mode, responderURL: url ?? setup.simulator.ocspURL, timeoutSeconds: 5),
                          transport: URLSessionTransport(), trust: setup.authority.trustStore())
    }

    private func verdict(_ setup: Setup, _ checker: RevocationChecker) async -> Verdict {
        let status = await checker.status(of: setup.artefact, verifier: setup.verifier, now: now)
        return setup.verifier.verify(setup.artefact).applying(status, mode: checker.policy.mode)
    }

    @Test func offSendsNothingAndSaysSo() async throws {
        let setup = try setup()
        defer { setup.simulator.stop() }
        let checker = checker(setup, .off)
        let verdict = await verdict(setup, checker)
        #expect(verdict.status == .valid)
        #expect(verdict.revocationLine == "revocation: not checked (off)")
        #expect(checker.requestsSent == 0)
        #expect(setup.simulator.ocsp.requestCount == 0)
    }

    @Test func goodChainSaysCheckedWhenAndByWhom() async throws {
        let setup = try setup()
        defer { setup.simulator.stop() }
        let verdict = await verdict(setup, checker(setup, .require))
        #expect(verdict.status == .valid)
        #expect(verdict.revocation?.state == .good)
        #expect(verdict.revocationLine.hasPrefix("revocation: checked 2025-06-01T12:00:00Z by \(setup.simulator.ocspURL.absoluteString): good"))
        #expect(setup.simulator.ocsp.requestCount == 2, "the leaf and the intermediate are each asked about")
    }

    @Test func revokedLeafMakesTheVerdictInvalidWithTheReason() async throws {
        let setup = try setup()
        defer { setup.simulator.stop() }
        setup.simulator.ocsp.revoke(setup.authority.ecLeaf, at: now.addingTimeInterval(-3600), reason: 1)
        let verdict = await verdict(setup, checker(setup, .prefer))
        #expect(verdict.status == .invalid)
        #expect(verdict.reason.contains("certificate \(setup.authority.ecLeaf.commonName) was revoked at 2025-06-01T11:00:00Z (keyCompromise)"))
    }

    @Test func responderDownIsFlaggedUnderPreferAndUnverifiedUnderRequire() async throws {
        let setup = try setup()
        defer { setup.simulator.stop() }
        let down = URL(string: "http://127.0.0.1:9/ocsp")
        let preferred = await verdict(setup, checker(setup, .prefer, url: down))
        #expect(preferred.status == .valid)
        #expect(preferred.revocation?.isCheckedGood == false)
        #expect(preferred.revocationLine.hasPrefix("revocation: could not be checked: "))
        let required = await verdict(setup, checker(setup, .require, url: down))
        #expect(required.status == .unverifiable)
        #expect(required.reason.hasPrefix("revocation is required but could not be checked"))
    }

    @Test func answersNotBelievedAreNotChecked() async throws {
        let setup = try setup()
        defer { setup.simulator.stop() }
        var forgeries: [OCSPResponder.Behaviour] = []
        var wrongKey = OCSPResponder.Behaviour()
        wrongKey.signingKey = setup.authority.receiptLeafKey
        forgeries.append(wrongKey)
        var other = OCSPResponder.Behaviour()
        other.answersAbout = setup.authority.receiptLeaf
        forgeries.append(other)
        var stale = OCSPResponder.Behaviour()
        stale.thisUpdate = now.addingTimeInterval(-7200)
        forgeries.append(stale)
        for forgery in forgeries {
            setup.simulator.ocsp.behaviour = forgery
            let required = await verdict(setup, checker(setup, .require))
            #expect(required.status == .unverifiable, "\(required.reason)")
            let preferred = await verdict(setup, checker(setup, .prefer))
            #expect(preferred.status == .valid)
            #expect(preferred.revocationLine.hasPrefix("revocation: could not be checked"), "\(preferred.revocationLine)")
        }
    }

    @Test func goodAnswersAreReusedUntilNextUpdate() async throws {
        let setup = try setup()
        defer { setup.simulator.stop() }
        let checker = checker(setup, .require)
        _ = await checker.status(of: setup.artefact, verifier: setup.verifier, now: now)
        let again = await checker.status(of: setup.artefact, verifier: setup.verifier, now: now.addingTimeInterval(1800))
        #expect(again.state == .good)
        #expect(again.checkedAt == now, "the cached answer's time")
        #expect(setup.simulator.ocsp.requestCount == 2, "no second request before nextUpdate")
        _ = await checker.status(of: setup.artefact, verifier: setup.verifier, now: now.addingTimeInterval(3601))
        #expect(setup.simulator.ocsp.requestCount == 4, "asked again after nextUpdate")
    }
}
