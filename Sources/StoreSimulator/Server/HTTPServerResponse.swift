import Foundation
import ReceiptCore

/// What a handler answers. The server adds `Content-Length`, `Connection` and `Server`; a
/// response can also ask the server to hang up instead of answering (`drop()`), as a dying
/// upstream would. Wire form:
///
///     HTTP/1.1 200 OK
///     Content-Type: application/json
///     Content-Length: 42
///     Connection: keep-alive
///     Server: receiptdesk-simulator
///
///     {"status":0,"environment":"Sandbox", …}
public struct HTTPServerResponse: Sendable {
    /// The status code (200, 404, 429, …).
    public var status: Int
    /// Header fields to send, in order; the server's own fields come after them.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]
    /// Close the connection after this response even if the client would keep it open.
    public var closesConnection = false
    /// Close the connection without sending anything at all.
    public var dropsConnection = false

    /// A response from its parts.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response (`Content-Type: application/json`).
    public static func json(_ status: Int, _ value: JSONValue, headers: [(name: String, value: String)] = []) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [("Content-Type", "application/json")] + headers,
                           body: Array(value.serialized().utf8))
    }

    /// A plain-text response (`Content-Type: text/plain; charset=utf-8`).
    public static func text(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers,
                           body: Array(text.utf8))
    }

    /// The server's own error answer: `{"error":"Bad Request","reason":"…"}`, closing the connection.
    public static func error(_ status: Int, _ reason: String) -> HTTPServerResponse {
        var response = json(status, .object([("error", .string(HTTPStatus.reasonPhrase(status))), ("reason", .string(reason))]))
        response.closesConnection = true
        return response
    }

    /// No answer: the connection is closed as soon as the handler returns.
    public static func drop() -> HTTPServerResponse {
        var response = HTTPServerResponse(status: 0)
        response.dropsConnection = true
        return response
    }

    /// The first value of header `name` (any case), or nil.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The bytes on the wire: status line, headers (with Content-Length and Connection), body.
    /// `includeBody` is false for HEAD requests.
    func serialized(keepAlive: Bool, includeBody: Bool = true) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(HTTPStatus.reasonPhrase(status))\r\n"
        for field in headers where !HTTPServerResponse.managed.contains(field.name.lowercased()) {
            head += "\(field.name): \(HTTPServerResponse.clean(field.value))\r\n"
        }
        head += "Content-Length: \(body.count)\r\n"
        head += "Connection: \(keepAlive ? "keep-alive" : "close")\r\n"
        head += "Server: receiptdesk-simulator\r\n\r\n"
        return Array(head.utf8) + (includeBody ? body : [])
    }

    /// Fields the server writes itself.
    private static let managed: Set<String> = ["content-length", "connection", "transfer-encoding"]

    /// A header value with CR and LF removed, so no value can split the response.
    private static func clean(_ value: String) -> String {
        String(value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" }.map(Character.init))
    }
}

/// Reason phrases for the status codes the simulator sends.
public enum HTTPStatus {
    /// "OK", "Not Found", …; "Unknown" for a code not listed.
    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 200: return "OK"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 411: return "Length Required"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default: return "Unknown"
        }
    }
}
