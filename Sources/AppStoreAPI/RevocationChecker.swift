import Foundation
import ReceiptCore

/// Asks OCSP responders whether the certificates of a verified chain were revoked, and says so
/// as a `RevocationStatus` for `Verdict.applying(_:mode:)`. The network half of the revocation
/// check: ReceiptCore builds each request and decides whether an answer is believed.
///
/// Each certificate is asked about at `policy.responderURL` when set, otherwise at the OCSP URL of
/// its Authority Information Access extension (Apple's: http://ocsp.apple.com/…), by a POST of
/// `application/ocsp-request` over the injected transport (so `RECEIPTDESK_LOOPBACK_ONLY` confines
/// it like every other request). Good and revoked answers are kept in memory (at most
/// `cacheLimit`) until their nextUpdate, so a batch asks once per certificate. Nothing fails open:
/// an unreachable responder, a refusal or an answer not believed makes the status "not checked",
/// with the reason.
public actor RevocationChecker {
    /// At most this many answers are kept.
    public static let cacheLimit = 256

    private struct CachedAnswer {
        let outcome: RevocationOutcome
        let checkedAt: Date
        let responder: String
        let validUntil: Date
    }

    /// The policy (mode, responder override, timeout).
    public nonisolated let policy: RevocationPolicy
    private let transport: any HTTPTransport
    private let anchors: [Certificate]
    private let nonce: @Sendable () -> [UInt8]?
    private var cache: [String: CachedAnswer] = [:]
    /// Requests sent so far (tests check that the cache and `.off` send none).
    public private(set) var requestsSent = 0

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
    /// not be, good when all are.
    public func status(of targets: [RevocationTarget], now: Date) async -> RevocationStatus {
        guard policy.mode != .off else { return .off }
        guard !targets.isEmpty else { return RevocationStatus(.notChecked(why: "the chain has no certificate to ask about")) }
        var answers: [(RevocationTarget, CachedAnswer?, String?)] = []
        for target in targets {
            switch await answer(for: target, now: now) {
            case .success(let answer): answers.append((target, answer, nil))
            case .failure(let why): answers.append((target, nil, why.reason))
            }
        }
        let responders = Array(Set(answers.compactMap { $0.1?.responder })).sorted().joined(separator: ", ")
        let checkedAt = answers.compactMap { $0.1?.checkedAt }.min()
        for (target, answer, _) in answers {
            if case .revoked(let at, let reason, _)? = answer?.outcome {
                return RevocationStatus(.revoked(certificate: target.certificate.commonName, at: at, reason: reason),
                                        checkedAt: answer?.checkedAt, responder: answer?.responder)
            }
        }
        let problems = answers.compactMap { $0.2 }
        if !problems.isEmpty {
            return RevocationStatus(.notChecked(why: problems.joined(separator: "; ")), checkedAt: checkedAt,
                                    responder: responders.isEmpty ? nil : responders)
        }
        return RevocationStatus(.good, checkedAt: checkedAt, responder: responders,
                                validUntil: answers.compactMap { $0.1?.validUntil }.min())
    }

    private struct Problem: Error { let reason: String }

    /// A believed answer for one certificate (from the cache while it holds), or why there is none.
    private func answer(for target: RevocationTarget, now: Date) async -> Result<CachedAnswer, Problem> {
        let name = target.certificate.commonName
        let key = target.certificate.fingerprint + "/" + target.issuer.fingerprint
        if let cached = cache[key], now < cached.validUntil { return .success(cached) }
        cache[key] = nil
        guard let text = policy.responderURL?.absoluteString ?? target.certificate.ocspResponderURL, let url = URL(string: text) else {
            return .failure(Problem(reason: "\(name) names no OCSP responder (no Authority Information Access) and appStore.revocation.responderURL is not set"))
        }
        let request: OCSPRequest
        do {
            request = try OCSPRequest(certificate: target.certificate, issuer: target.issuer, nonce: nonce())
        } catch {
            return .failure(Problem(reason: "\(name): \(error)"))
        }
        let response: HTTPResponse
        do {
            requestsSent += 1
            response = try await transport.send(HTTPRequest(
                method: "POST", url: url, headers: ["Content-Type": "application/ocsp-request", "Accept": "application/ocsp-response"],
                body: request.der, timeout: RequestTimeout.clamped(seconds: policy.timeoutSeconds)))
        } catch {
            return .failure(Problem(reason: "\(name): the OCSP responder \(text) did not answer: \(error)"))
        }
        guard response.status == 200 else {
            return .failure(Problem(reason: "\(name): the OCSP responder \(text) answered HTTP \(response.status)"))
        }
        let outcome = OCSPResponseCheck.check(response.body, for: request, anchors: anchors, at: now)
        let validUntil: Date
        switch outcome {
        case .unknown(let why): return .failure(Problem(reason: "\(text): \(why)"))
        case .good(_, let nextUpdate, _): validUntil = nextUpdate ?? now  // without nextUpdate: not kept
        case .revoked: validUntil = .distantFuture  // a revocation is final
        }
        let answer = CachedAnswer(outcome: outcome, checkedAt: now, responder: text, validUntil: validUntil)
        if validUntil > now {
            if cache.count >= Self.cacheLimit, let oldest = cache.min(by: { $0.value.checkedAt < $1.value.checkedAt })?.key {
                cache[oldest] = nil
            }
            cache[key] = answer
        }
        return .success(answer)
    }
}
