import Foundation
import HTTPService
import PurchaseStore

/// `receiptdesk serve`: the routes of `ServeService` on an `HTTPServer` (libmicrohttpd), with
/// the group-commit writer behind them and every figure in one `/metrics` registry. Stopping
/// stops accepting at once, answers what is in flight, commits what is queued, then returns.
public final class LiveServer: @unchecked Sendable {
    public let service: ServeService
    public let queue: LedgerCommitQueue
    public let metrics: ServeMetrics
    private let http: HTTPServer

    /// A server on `configuration`'s address: `writer` commits (its connection becomes the
    /// writer's alone), `reader` answers reads, `tokens` say who may call the token routes.
    /// `trustedProxies` are the addresses (a reverse proxy's) whose `X-Forwarded-For` names the
    /// client; anyone else's header is ignored.
    public init(writer: PurchaseLedger, reader: PurchaseLedger, tokens: ServeTokens,
                configuration: HTTPServer.Configuration, maxRound: Int = 256, trustedProxies: Set<String> = []) throws {
        let registry = Metrics()
        let httpMetrics = try HTTPMetrics(registry: registry, prefix: "receiptdesk_http")
        let depth = DepthBox()
        let metrics = try ServeMetrics(registry: registry) { depth.queue?.depth ?? 0 }
        let queue = LedgerCommitQueue(ledger: writer, maxRound: maxRound) { metrics.round($0) }
        depth.queue = queue
        let service = ServeService(queue: queue, writerLedger: writer, reader: reader, tokens: tokens, metrics: metrics)
        var configuration = configuration
        let observe = configuration.observe
        configuration.observe = { exchange in
            httpMetrics.record(exchange)
            observe?(exchange)
        }
        http = try HTTPServer(configuration: configuration) { request in
            let (route, answer) = service.handle(ServeRequest(method: request.method, path: request.path, headers: request.headers,
                                                              body: request.body),
                                                 peer: Self.client(request.peer, forwardedFor: request.headers["x-forwarded-for"], trusting: trustedProxies))
            return HTTPServerResponse(status: answer.status,
                                      headers: [("Content-Type", answer.contentType)] + answer.headers.map { (name: $0.0, value: $0.1) },
                                      body: answer.body, route: route)
        }
        try httpMetrics.watch(http)
        self.service = service
        self.queue = queue
        self.metrics = metrics
    }

    /// Binds and serves.
    public func start() throws { try http.start() }

    /// The port bound (the one asked for, or the kernel's choice for port 0).
    public var port: Int { http.port }

    /// Stops accepting, answers what is in flight (within `grace`), commits what is queued.
    public func stop(grace: Duration = .seconds(10)) {
        http.stop(grace: grace)
        queue.stop()
    }

    /// Who sent a request: the connection's peer, or, when that peer is a trusted proxy, the
    /// client its `X-Forwarded-For` names last ("203.0.113.9 via 127.0.0.1:40112").
    static func client(_ peer: HTTPPeer?, forwardedFor: String?, trusting proxies: Set<String>) -> String? {
        guard let peer else { return nil }
        guard proxies.contains(peer.address), let forwardedFor,
              let last = forwardedFor.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty, last.count <= 64,
              last.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" }) else { return peer.description }
        return "\(last) via \(peer.description)"
    }

    private final class DepthBox: @unchecked Sendable {
        var queue: LedgerCommitQueue?
    }
}
