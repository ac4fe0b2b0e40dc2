import Foundation
import PurchaseStore
import ReceiptCore

/// The live service's routes over the ledger, whatever HTTP server carries them: each request
/// in, one response out, nothing but the routes below. The purchase and entitlement routes need
/// a bearer token (`ServeTokens`); Apple's notifications prove themselves by their signature.
///
///     POST /v1/purchases                     an app's purchase: receipt or signed transactions
///     POST /v1/apple/notifications           App Store Server Notifications V2
///     GET  /v1/customers/{id}/entitlements   what the app should unlock now
///     GET  /healthz   GET /readyz   GET /metrics
public final class ServeService: @unchecked Sendable {
    /// At most this many artefacts in one purchase request.
    public static let maxArtefacts = 100

    let queue: LedgerCommitQueue
    let writerLedger: PurchaseLedger
    let reader: LockedLedger
    let tokens: ServeTokens
    let metrics: ServeMetrics
    let refusals: RefusalRecorder
    /// Slots for the CPU work of a request (decoding and verifying), one per core.
    let verifying = DispatchSemaphore(value: max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// A service committing through `queue` (whose ledger also prepares notifications: its
    /// verifier and revocation source), reading through `reader`, accepting `tokens`.
    public init(queue: LedgerCommitQueue, writerLedger: PurchaseLedger, reader: PurchaseLedger, tokens: ServeTokens, metrics: ServeMetrics) {
        self.queue = queue
        self.writerLedger = writerLedger
        self.reader = LockedLedger(reader)
        self.tokens = tokens
        self.metrics = metrics
        self.refusals = RefusalRecorder(reader: self.reader)
    }

    /// Answers one request; never throws, never crashes on what the request holds. The route's
    /// label (for the request metrics) is returned beside the answer.
    public func handle(_ request: ServeRequest, peer: String? = nil) -> (route: String, response: ServeResponse) {
        route(request, peer: peer)
    }

    private func route(_ request: ServeRequest, peer: String?) -> (String, ServeResponse) {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        func only(_ method: String, _ route: String, _ answer: () -> ServeResponse) -> (String, ServeResponse) {
            guard request.method == method else {
                return (route, .error(405, "methodNotAllowed", "\(request.method) is not allowed here: use \(method)", where: request.path,
                                      headers: [("Allow", method)]))
            }
            return (route, answer())
        }
        switch segments {
        case ["healthz"]: return only("GET", "/healthz") { .json(200, .object([("status", .string("ok"))])) }
        case ["readyz"]: return only("GET", "/readyz") { readiness() }
        case ["metrics"]: return only("GET", "/metrics") {
            ServeResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8",
                          body: Array(metrics.exposition().utf8))
        }
        case ["v1", "purchases"]:
            return only("POST", "/v1/purchases") { authorized(request, route: "/v1/purchases", peer: peer) { purchase(request, client: $0, peer: peer) } }
        case ["v1", "apple", "notifications"]:
            return only("POST", "/v1/apple/notifications") { notification(request, peer: peer) }
        case let path where path.count == 4 && path[0] == "v1" && path[1] == "customers" && path[3] == "entitlements":
            let customer = path[2].removingPercentEncoding ?? path[2]
            return only("GET", "/v1/customers/{id}/entitlements") {
                authorized(request, route: "/v1/customers/{id}/entitlements", peer: peer) { _ in entitlements(customer) }
            }
        default:
            return ("unknown", .error(404, "notFound", "no such route: \(request.path) (routes: POST /v1/purchases, POST /v1/apple/notifications, GET /v1/customers/{id}/entitlements, GET /healthz, /readyz, /metrics)", where: request.path))
        }
    }

    /// Runs `answer` with the client the request's bearer token names, or refuses it (401).
    private func authorized(_ request: ServeRequest, route: String, peer: String?, _ answer: (String) -> ServeResponse) -> ServeResponse {
        guard let client = tokens.client(authorization: request.headers["authorization"]) else {
            metrics.count(outcome: "refused")
            return .error(401, "unauthorized", request.headers["authorization"] == nil
                            ? "this route needs a bearer token (Authorization: Bearer …)" : "the bearer token is not one this service accepts",
                          where: "Authorization header", headers: [("WWW-Authenticate", "Bearer realm=\"receiptdesk\"")])
        }
        return answer(client)
    }

    /// The database answers and its schema is this build's.
    private func readiness() -> ServeResponse {
        do {
            try reader.run { try MigrationRunner.requireCurrent($0.database) }
            return .json(200, .object([("status", .string("ready"))]))
        } catch {
            return .error(503, "notReady", ServeErrors.message(error))
        }
    }

    /// What a customer holds now, with the reason each holds and until when.
    private func entitlements(_ customer: String) -> ServeResponse {
        do {
            let (exists, states) = try reader.run { ledger in (try ledger.customerExists(customer), try ledger.entitlements(customer, now: Date())) }
            guard exists else { return .error(404, "customerNotFound", "customer \(customer) is not in the ledger", where: "path") }
            return .json(200, .object([("customerId", .string(customer)), ("entitlements", .array(states.map(LedgerJSON.entitlement)))]))
        } catch {
            return ServeErrors.response(error, where: "path")
        }
    }
}

/// A ledger used by many request threads, one at a time (its connection is not shared at once).
final class LockedLedger: @unchecked Sendable {
    private let ledger: PurchaseLedger
    private let lock = NSLock()

    init(_ ledger: PurchaseLedger) { self.ledger = ledger }

    func run<T>(_ body: (PurchaseLedger) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(ledger)
    }
}
