/// One request as libmicrohttpd parsed it, whole (the body is read before the handler is called):
///
///     POST /notifications/v2?source=apple HTTP/1.1
///     Host: desk.example.com
///     Content-Type: application/json
///     Content-Length: 27
///
///     {"signedPayload":"eyJ…"}
///
/// becomes method "POST", path "/notifications/v2", query [("source", "apple")], headers
/// ["host": …, "content-type": …, "content-length": "27"], and the 27 body bytes.
public struct HTTPServerRequest: Sendable {
    /// The method token as sent ("GET", "POST"); methods are case-sensitive.
    public let method: String
    /// The path without the query, percent-decoded by libmicrohttpd ("/notifications/v2").
    public let path: String
    /// The query's `name=value` pairs in order, percent-decoded; a name without "=" has value "".
    public let query: [(name: String, value: String)]
    /// The header fields by lower-cased name; a field sent more than once has its values joined
    /// with ", " in the order sent (RFC 9110 section 5.3).
    public let headers: [String: String]
    /// The body (empty without one).
    public let body: [UInt8]
    /// "HTTP/1.1" or "HTTP/1.0".
    public let version: String
    /// The address of the connection's other end (with a reverse proxy in front, the proxy's).
    public let peer: HTTPPeer?

    /// A request from its parts (the server builds these; tests of a handler may too). Header
    /// names are lower-cased here, whatever the case given.
    public init(method: String, path: String, query: [(name: String, value: String)] = [], headers: [String: String] = [:],
                body: [UInt8] = [], version: String = "HTTP/1.1", peer: HTTPPeer? = nil) {
        self.method = method
        self.path = path
        self.query = query
        var lowered: [String: String] = [:]
        for (name, value) in headers {
            let key = name.lowercased()
            lowered[key] = lowered[key].map { "\($0), \(value)" } ?? value
        }
        self.headers = lowered
        self.body = body
        self.version = version
        self.peer = peer
    }

    /// A request whose header names are already lower-cased.
    init(method: String, path: String, query: [(name: String, value: String)], loweredHeaders: [String: String],
         body: [UInt8], version: String, peer: HTTPPeer?) {
        self.method = method
        self.path = path
        self.query = query
        headers = loweredHeaders
        self.body = body
        self.version = version
        self.peer = peer
    }

    /// The same request with `body`.
    func withBody(_ body: [UInt8]) -> HTTPServerRequest {
        HTTPServerRequest(method: method, path: path, query: query, loweredHeaders: headers, body: body,
                          version: version, peer: peer)
    }

    /// The value of header `name` (any case), or nil.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    /// The first value of query parameter `name`, or nil.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}
