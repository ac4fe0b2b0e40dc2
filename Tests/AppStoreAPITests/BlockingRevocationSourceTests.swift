import AppStoreAPI
import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// `BlockingRevocationSource`: synchronous callers get the checker's answer, even when every
/// thread of Swift's cooperative pool is one of them, blocked waiting.
@Suite(.serialized) struct BlockingRevocationSourceTests {
    @Test func callersBlockingMoreThreadsThanThePoolHasAllGetTheirAnswer() throws {
        let authority = try TestCertificateAuthority.shared()
        let now = CivilTime(year: 2025, month: 6, day: 1, hour: 12).date
        let simulator = try AppStoreSimulator(state: SimulatorState(authority: authority), clock: { now })
        try simulator.start()
        defer { simulator.stop() }
        let verifier = ReceiptVerifier(trust: authority.trustStore())
        let artefact = try ReceiptDecoder.decode(Array(try ServerAPIFixtures.transaction("2000000000000043").utf8))
        let checker = RevocationChecker(policy: RevocationPolicy(mode: .require, responderURL: simulator.ocspURL, timeoutSeconds: 5),
                                        transport: URLSessionTransport(), trust: authority.trustStore())
        let source = BlockingRevocationSource(checker: checker, clock: { now })
        // More blocked callers on the pool than it has threads (one per core): had the answer
        // needed a pool thread, none would come. A bounded wait turns such a hang into a failure.
        let callers = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        let answered = DispatchSemaphore(value: 0)
        let verdicts = Verdicts()
        for _ in 0..<callers {
            Task.detached {
                verdicts.add(verifier.verify(artefact, revocation: source))
                answered.signal()
            }
        }
        let deadline = DispatchTime.now() + 60
        for index in 0..<callers {
            try #require(answered.wait(timeout: deadline) == .success, "only \(index) of \(callers) callers got an answer in 60 s")
        }
        #expect(verdicts.all.count == callers)
        #expect(verdicts.all.allSatisfy { $0.isValid && $0.revocation?.state == .good }, "\(verdicts.all.map(\.revocationLine))")
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
