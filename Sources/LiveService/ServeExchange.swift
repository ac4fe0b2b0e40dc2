import Foundation
import ReceiptCore

/// One HTTP request as the service sees it, whatever server read it off the wire.
public struct ServeRequest: Sendable {
    /// Upper case: GET, POST, …
    public let method: String
    /// The path without the query, percent-decoded segments not yet split ("/v1/purchases").
    public let path: String
    /// Header names lower-cased; a repeated header's values joined with ", ".
    public let headers: [String: String]
    public let body: [UInt8]

    /// A request.
    public init(method: String, path: String, headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }
}

/// The answer to a `ServeRequest`.
public struct ServeResponse: Sendable, Equatable {
    public let status: Int
    public let contentType: String
    public let body: [UInt8]
    /// Extra headers (`Allow`, `WWW-Authenticate`, `Retry-After`).
    public var headers: [(String, String)] = []

    /// A response.
    public init(status: Int, contentType: String = "application/json", body: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    /// A JSON answer.
    public static func json(_ status: Int, _ value: JSONValue, headers: [(String, String)] = []) -> ServeResponse {
        ServeResponse(status: status, body: Array((value.serialized() + "\n").utf8), headers: headers)
    }

    /// `{"error": {"status": 400, "code": "badRequest", "message": "…", "where": "…"}}`: what
    /// went wrong and where (a member of the body, a header, the path).
    public static func error(_ status: Int, _ code: String, _ message: String, where location: String? = nil,
                             headers: [(String, String)] = []) -> ServeResponse {
        json(status, .object([("error", .object([("status", .int(Int64(status))), ("code", .string(code)), ("message", .string(message)),
                                                 ("where", .string(location))]))]), headers: headers)
    }

    public static func == (a: ServeResponse, b: ServeResponse) -> Bool {
        a.status == b.status && a.contentType == b.contentType && a.body == b.body
            && a.headers.map { "\($0.0): \($0.1)" } == b.headers.map { "\($0.0): \($0.1)" }
    }
}

/// A request the service refuses, with its HTTP status and a stable code.
struct ServeRefusal: Error {
    let status: Int
    let code: String
    let message: String
    let location: String?

    init(_ status: Int, _ code: String, _ message: String, where location: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.location = location
    }

    var response: ServeResponse { .error(status, code, message, where: location) }
}
