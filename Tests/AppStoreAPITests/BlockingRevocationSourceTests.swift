import AppStoreAPI
import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// `BlockingRevocationSource`: synchronous callers get the checker's answer on whatever thread
/// they run, a blocked thread of Swift's cooperative pool included.
@Suite(.serialized) struct BlockingRevocationSourceTests {
    @Test func callersOnAnyThreadGetTheirAnswerWithoutSwiftConcurrency() throws {
        let authority = try TestCertificateAuthority.shared()
        let now = CivilTime(year: 2025, month: 6, day: 1, hour: 12).date
        let simulator = try AppStoreSimulator(state: SimulatorState(authority: authority), clock: { now })
        try simulator.start()
        defer { simulator.stop() }
        let verifier = ReceiptVerifier(trust: authority.trustStore())
        let artefact = try ReceiptDecoder.decode(Array(try ServerAPIFixtures.transaction("2000000000000043").utf8))
        let policy = RevocationPolicy(mode: .require, responderURL: simulator.ocspURL, timeoutSeconds: 5)
        func source() -> BlockingRevocationSource {
            BlockingRevocationSource(checker: RevocationChecker(policy: policy, transport: URLSessionTransport(), trust: authority.trustStore()),
                                     clock: { now })
        }
        // This test function runs on a thread of Swift's cooperative pool and blocks it while it
        // asks: the blocking path needs no other pool thread (under a loaded test run there is none).
        let here = verifier.verify(artefact, revocation: source())
        #expect(here.isValid && here.revocation?.state == .good, "\(here.revocationLine)")
        // Plain threads, as the import pipeline's and the service's are, many at once over one source.
        let shared = source()
        let callers = 8
        let answered = DispatchSemaphore(value: 0)
        let verdicts = Verdicts()
        for _ in 0..<callers {
            Thread {
                verdicts.add(verifier.verify(artefact, revocation: shared))
                answered.signal()
            }.start()
        }
        let deadline = DispatchTime.now() + 60
        for index in 0..<callers {
            try #require(answered.wait(timeout: deadline) == .success, "only \(index) of \(callers) callers got an answer in 60 s")
        }
        #expect(verdicts.all.count == callers)
        #expect(verdicts.all.allSatisfy { $0.isValid && $0.revocation?.state == .good }, "\(verdicts.all.map(\.revocationLine))")
        #expect(shared.checker.requestsSent <= 2 * callers, "the cache keeps what was learnt")
    }

    @Test func offAsksNobody() throws {
        let authority = try TestCertificateAuthority.shared()
        let artefact = try ReceiptDecoder.decode(Array(try ServerAPIFixtures.transaction("2000000000000044").utf8))
        let checker = RevocationChecker(policy: .off, transport: URLSessionTransport(), trust: authority.trustStore())
        let verdict = ReceiptVerifier(trust: authority.trustStore()).verify(artefact, revocation: BlockingRevocationSource(checker: checker))
        #expect(verdict.isValid)
        #expect(verdict.revocation == nil, "an offline verdict keeps its shape")
    }

    final class Verdicts: @unchecked Sendable {
        private let lock = NSLock()
        private var verdicts: [Verdict] = []
        func add(_ verdict: Verdict) { lock.withLock { verdicts.append(verdict) } }
        var all: [Verdict] { lock.withLock { verdicts } }
    }
}
