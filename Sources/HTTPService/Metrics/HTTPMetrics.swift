/// The HTTP server's metrics in a `Metrics` registry: pass `record` as
/// `HTTPServer.Configuration.observe`, and `watch` the server once it exists.
///
///     receiptdesk_http_requests_total{route="purchase",method="POST",status="200"} 1027
///     receiptdesk_http_request_duration_seconds_bucket{route="purchase",le="0.05"} 1001
///     receiptdesk_http_requests_in_flight 3
///
/// Label values stay few whatever clients send: the route is the handler's label, a method
/// outside the standard ones counts as "other", and a request that got no answer has status "none".
public final class HTTPMetrics: Sendable {
    /// Methods counted under their own name.
    static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]

    private let prefix: String
    private let registry: Metrics
    private let requests: Counter
    private let undelivered: Counter
    private let duration: Histogram
    private let bodyBytes: Histogram

    /// Registers the request metrics under `prefix` (default "receiptdesk_http").
    public init(registry: Metrics, prefix: String = "receiptdesk_http") throws {
        self.prefix = prefix
        self.registry = registry
        requests = try registry.counter("\(prefix)_requests_total", help: "HTTP requests over, by route, method and status.",
                                        labels: ["route", "method", "status"])
        undelivered = try registry.counter("\(prefix)_responses_undelivered_total",
                                           help: "HTTP requests whose answer did not reach the client (it left, timed out or the server stopped).",
                                           labels: ["route"])
        duration = try registry.histogram("\(prefix)_request_duration_seconds",
                                          help: "Seconds from a request's head being read to its answer being sent.",
                                          labels: ["route"])
        bodyBytes = try registry.histogram("\(prefix)_request_body_bytes", help: "Request body sizes in bytes.",
                                           buckets: [256, 1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304])
    }

    /// Counts one exchange (the `Configuration.observe` hook).
    public func record(_ exchange: HTTPExchange) {
        let method = Self.methods.contains(exchange.method) ? exchange.method : "other"
        requests.increment([exchange.route, method, exchange.status.map(String.init) ?? "none"])
        if !exchange.delivered { undelivered.increment([exchange.route]) }
        duration.observe(exchange.seconds, [exchange.route])
        bodyBytes.observe(Double(exchange.bodyBytes))
    }

    /// Registers gauges read from `server` when rendering: requests in flight, connections open,
    /// and connections cut for slow transfers.
    public func watch(_ server: HTTPServer) throws {
        try registry.gauge("\(prefix)_requests_in_flight", help: "HTTP requests read and not yet over.") { [weak server] in
            Double(server?.inFlight ?? 0)
        }
        try registry.gauge("\(prefix)_connections_open", help: "HTTP connections open.") { [weak server] in
            Double(server?.openConnections ?? 0)
        }
        try registry.counter("\(prefix)_transfers_cut_total",
                             help: "HTTP connections cut for taking longer than the transfer timeout.") { [weak server] in
            Double(server?.transfersCut ?? 0)
        }
    }
}
