import Foundation

/// What the handler answers: a status, header fields and a body. The server frames it: it writes
/// Content-Length itself (a Content-Length or Transfer-Encoding given here is dropped) and adds
/// `Connection: close` while it is stopping.
public struct HTTPServerResponse: Sendable {
    /// The status code, 200…999 (anything else, a 1xx included, is answered 500 instead, and logged).
    public var status: Int
    /// Header fields in order, as given. A name or value holding CR, LF or (in a name) a colon or
    /// space cannot be sent: the server answers 500 instead and logs which field it was.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]
    /// A low-cardinality name for the route that answered ("purchase", "notifications"), for the
    /// metrics; nil is counted as "unmatched". Never sent.
    public var route: String?

    /// A response from its parts.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], route: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.route = route
    }

    /// A JSON answer: the bytes as given, with `Content-Type: application/json`.
    public static func json(_ status: Int, _ body: [UInt8], route: String? = nil) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [("Content-Type", "application/json")], body: body, route: route)
    }

    /// A plain-text answer (`text/plain; charset=utf-8`).
    public static func text(_ status: Int, _ body: String, route: String? = nil) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")],
                           body: Array(body.utf8), route: route)
    }

    /// A JSON error, `{"error":"<message>"}`, the one shape every refusal of the service takes.
    public static func error(_ status: Int, _ message: String, route: String? = nil) -> HTTPServerResponse {
        .json(status, Array(#"{"error":\#(jsonString(message))}"#.utf8), route: route)
    }

    /// `text` as a JSON string literal: quotes, backslashes and control characters escaped.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
