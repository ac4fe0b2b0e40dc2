import Foundation
import ReceiptCore

/// Asks OCSP responders whether the certificates of a verified chain were revoked, and says so
/// as a `RevocationStatus` for `Verdict.applying(_:mode:)`. The network half of the revocation
/// check: ReceiptCore builds each request and decides whether an answer is believed.
///
/// Each certificate is asked about at `policy.responderURL` when set, otherwise at the OCSP URL of
/// its Authority Information Access extension (Apple's: http://ocsp.apple.com/…), by a POST of
/// `application/ocsp-request` over the injected transport (`status`), or over a plain blocking
/// request that needs no Swift concurrency at all (`statusBlocking`, for synchronous callers);
/// both honour `RECEIPTDESK_LOOPBACK_ONLY` like every other request. Good and revoked answers are kept in memory (at most
/// `cacheLimit`) until their nextUpdate, so a batch asks once per certificate. Nothing fails open:
/// an unreachable responder, a refusal or an answer not believed makes the status "not checked",
/// with the reason.
public final class RevocationChecker: @unchecked Sendable {
    /// At most this many answers are kept.
    public static let cacheLimit = 256
    /// The largest OCSP answer read (Apple's are about 2 KiB).
    static let maxAnswerBytes = 64 << 10

    private struct CachedAnswer {
        let outcome: RevocationOutcome
        let checkedAt: Date
        let responder: String
        let validUntil: Date
    }

    /// One certificate's question, ready to send.
    private struct Question {
        let key: String
        let name: String
        let url: URL
        let responder: String
        let request: OCSPRequest
    }

    /// The policy (mode, responder override, timeout).
    public let policy: RevocationPolicy
    private let transport: any HTTPTransport
    private let anchors: [Certificate]
    private let nonce: @Sendable () -> [UInt8]?
    private let lock = NSLock()
    private var cache: [String: CachedAnswer] = [:]
    private var sent = 0

    /// Requests sent so far (tests check that the cache and `.off` send none).
    public var requestsSent: Int { lock.withLock { sent } }

    /// A checker for chains ending in `trust`'s anchors. `nonce` makes each request's nonce
    /// (16 random bytes by default; nil sends none).
    public init(policy: RevocationPolicy, transport: any HTTPTransport, trust: TrustStore,
                nonce: @escaping @Sendable () -> [UInt8]? = { (0..<16).map { _ in UInt8.random(in: 0...255) } }) {
        self.policy = policy
        self.transport = transport
        self.anchors = trust.anchors.map(\.certificate)
        self.nonce = nonce
    }

    /// The revocation status of `artefact`'s signing chain at `now` (`.off`: no request at all).
    public func status(of artefact: DecodedArtefact, verifier: ReceiptVerifier, now: Date) async -> RevocationStatus {
        guard policy.mode != .off else { return .off }
        switch verifier.revocationTargets(of: artefact) {
        case .failure(let unavailable): return RevocationStatus(.notChecked(why: unavailable.reason))
        case .success(let targets): return await status(of: targets, now: now)
        }
    }

    /// The combined status of `targets` at `now`: revoked when any is, not checked when any could
    /// not be, good when all are. Asks over the injected transport.
    public func status(of targets: [RevocationTarget], now: Date) async -> RevocationStatus {
        guard policy.mode != .off else { return .off }
        var answers: [(RevocationTarget, Result<CachedAnswer, Problem>)] = []
        for target in targets {
            switch question(for: target, now: now) {
            case .answered(let answer): answers.append((target, .success(answer)))
            case .failed(let problem): answers.append((target, .failure(problem)))
            case .ask(let question):
                let response: Result<HTTPResponse, Problem>
                do {
                    response = .success(try await transport.send(httpRequest(question)))
                } catch {
                    response = .failure(Problem(reason: "\(question.name): the OCSP responder \(question.responder) did not answer: \(error)"))
                }
                answers.append((target, conclude(question, response, now: now)))
            }
        }
        return combined(targets, answers)
    }

    /// `status(of:now:)` for a synchronous caller: each request is a plain blocking POST (a
    /// URLSession completion handler and a semaphore), so no Swift concurrency thread is needed
    /// or held, whatever thread calls.
    public func statusBlocking(of targets: [RevocationTarget], now: Date) -> RevocationStatus {
        guard policy.mode != .off else { return .off }
        var answers: [(RevocationTarget, Result<CachedAnswer, Problem>)] = []
        for target in targets {
            switch question(for: target, now: now) {
            case .answered(let answer): answers.append((target, .success(answer)))
            case .failed(let problem): answers.append((target, .failure(problem)))
            case .ask(let question):
                let response = BlockingPost.send(httpRequest(question), limit: Self.maxAnswerBytes)
                    .mapError { Problem(reason: "\(question.name): the OCSP responder \(question.responder) did not answer: \($0)") }
                answers.append((target, conclude(question, response, now: now)))
            }
        }
        return combined(targets, answers)
    }

    private func combined(_ targets: [RevocationTarget], _ answers: [(RevocationTarget, Result<CachedAnswer, Problem>)]) -> RevocationStatus {
        guard !targets.isEmpty else { return RevocationStatus(.notChecked(why: "the chain has no certificate to ask about")) }
        let believed = answers.compactMap { try? $0.1.get() }
        let responders = Array(Set(believed.map(\.responder))).sorted().joined(separator: ", ")
        let checkedAt = believed.map(\.checkedAt).min()
        for (target, answer) in answers {
            if case .success(let cached) = answer, case .revoked(let at, let reason, _) = cached.outcome {
                return RevocationStatus(.revoked(certificate: target.certificate.commonName, at: at, reason: reason),
                                        checkedAt: cached.checkedAt, responder: cached.responder)
            }
        }
        let problems = answers.compactMap { if case .failure(let problem) = $0.1 { return problem.reason } else { return nil } }
        if !problems.isEmpty {
            return RevocationStatus(.notChecked(why: problems.joined(separator: "; ")), checkedAt: checkedAt,
                                    responder: responders.isEmpty ? nil : responders)
        }
        return RevocationStatus(.good, checkedAt: checkedAt, responder: responders, validUntil: believed.map(\.validUntil).min())
    }

    private struct Problem: Error { let reason: String }

    private enum Step {
        case answered(CachedAnswer)
        case failed(Problem)
        case ask(Question)
    }

    /// A believed answer for one certificate from the cache while it holds, or the question to send.
    private func question(for target: RevocationTarget, now: Date) -> Step {
        let name = target.certificate.commonName
        let key = target.certificate.fingerprint + "/" + target.issuer.fingerprint
        let cached: CachedAnswer? = lock.withLock {
            if let cached = cache[key], now < cached.validUntil { return cached }
            cache[key] = nil
            return nil
        }
        if let cached { return .answered(cached) }
        guard let text = policy.responderURL?.absoluteString ?? target.certificate.ocspResponderURL, let url = URL(string: text) else {
            return .failed(Problem(reason: "\(name) names no OCSP responder (no Authority Information Access) and appStore.revocation.responderURL is not set"))
        }
        do {
            let request = try OCSPRequest(certificate: target.certificate, issuer: target.issuer, nonce: nonce())
            lock.withLock { sent += 1 }
            return .ask(Question(key: key, name: name, url: url, responder: text, request: request))
        } catch {
            return .failed(Problem(reason: "\(name): \(error)"))
        }
    }

    private func httpRequest(_ question: Question) -> HTTPRequest {
        HTTPRequest(method: "POST", url: question.url,
                    headers: ["Content-Type": "application/ocsp-request", "Accept": "application/ocsp-response"],
                    body: question.request.der, timeout: RequestTimeout.clamped(seconds: policy.timeoutSeconds))
    }

    /// What an answer (or its absence) says, kept while it holds.
    private func conclude(_ question: Question, _ sent: Result<HTTPResponse, Problem>, now: Date) -> Result<CachedAnswer, Problem> {
        let response: HTTPResponse
        switch sent {
        case .failure(let problem): return .failure(problem)
        case .success(let answered): response = answered
        }
        guard response.status == 200 else {
            return .failure(Problem(reason: "\(question.name): the OCSP responder \(question.responder) answered HTTP \(response.status)"))
        }
        let outcome = OCSPResponseCheck.check(response.body, for: question.request, anchors: anchors, at: now)
        let validUntil: Date
        switch outcome {
        case .unknown(let why): return .failure(Problem(reason: "\(question.responder): \(why)"))
        case .good(_, let nextUpdate, _): validUntil = nextUpdate ?? now  // without nextUpdate: not kept
        case .revoked: validUntil = .distantFuture  // a revocation is final
        }
        let answer = CachedAnswer(outcome: outcome, checkedAt: now, responder: question.responder, validUntil: validUntil)
        if validUntil > now {
            lock.withLock {
                if cache.count >= Self.cacheLimit, let oldest = cache.min(by: { $0.value.checkedAt < $1.value.checkedAt })?.key {
                    cache[oldest] = nil
                }
                cache[question.key] = answer
            }
        }
        return .success(answer)
    }
}
