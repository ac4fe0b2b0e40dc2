/// One request as the metrics see it, reported once when it is over (`Configuration.observe`).
public struct HTTPExchange: Sendable {
    /// The method token as sent.
    public let method: String
    /// `HTTPServerResponse.route` of the answer, "unmatched" when the handler gave none, or
    /// "refused" when the server answered without calling the handler (a body over the limit).
    public let route: String
    /// The status queued, or nil when none was (the body was cut at the limit, the client left
    /// before the handler was called).
    public let status: Int?
    /// Whether the whole answer reached the client's socket (false: the client went away, timed
    /// out, or the server stopped first).
    public let delivered: Bool
    /// Seconds from the request's head being read to the exchange's end.
    public let seconds: Double
    /// Body bytes received.
    public let bodyBytes: Int

    /// An exchange from its parts.
    public init(method: String, route: String, status: Int?, delivered: Bool, seconds: Double, bodyBytes: Int) {
        self.method = method
        self.route = route
        self.status = status
        self.delivered = delivered
        self.seconds = seconds
        self.bodyBytes = bodyBytes
    }
}
