import Foundation
import ReceiptCore

/// The seam between the App Store clients and the network: one request in, one complete answer
/// out. `URLSessionTransport` is the real one; tests inject a scripted fake.
///
/// A transport throws `AppStoreError` with a transport code (`.timeout`, `.connectionRefused`,
/// `.connectionLost`, `.transport`, `.responseTooLarge`) when no complete answer arrived; any HTTP
/// status, 500 included, is an answer and is returned.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the complete answer.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// One HTTP request. Its description and mirror never show the body (it holds the shared secret
/// for verifyReceipt) nor the `Authorization` header (a bearer token).
public struct HTTPRequest: Sendable, CustomStringConvertible, CustomReflectable {
    /// "GET" or "POST".
    public var method: String
    /// Where it goes.
    public var url: URL
    /// Header names as written; values as sent.
    public var headers: [String: String]
    /// The body (verifyReceipt's JSON), nil for GET.
    public var body: [UInt8]?
    /// How long the whole exchange may take.
    public var timeout: RequestTimeout

    /// A request.
    public init(method: String, url: URL, headers: [String: String] = [:], body: [UInt8]? = nil,
                timeout: RequestTimeout = .default) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The value of header `name`, compared without case.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Header names only, sorted.
    var headerNames: [String] { headers.keys.sorted() }

    public var description: String {
        "\(method) \(url.absoluteString) (\(body?.count ?? 0) body bytes; headers \(headerNames.joined(separator: ", ")); timeout \(timeout))"
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["method": method, "url": url.absoluteString, "headers": headerNames,
                                "bodyBytes": body?.count ?? 0, "timeout": timeout.description])
    }
}

/// One complete HTTP answer. Header names are lower-cased.
public struct HTTPResponse: Sendable, CustomStringConvertible {
    /// The HTTP status code.
    public let status: Int
    /// Header names lower-cased; a repeated header keeps the transport's joined value.
    public let headers: [String: String]
    /// The complete body.
    public let body: [UInt8]

    /// An answer; header names are lower-cased here.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        var lowered: [String: String] = [:]
        for (name, value) in headers { lowered[name.lowercased()] = value }
        self.headers = lowered
        self.body = body
    }

    /// The value of header `name` (any case).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    public var description: String { "HTTP \(status) (\(body.count) body bytes)" }
}

/// A request timeout, bounded to 1–120 seconds: short enough that a dead endpoint cannot hang a
/// batch, long enough for Apple's slowest answers.
public struct RequestTimeout: Sendable, Equatable, Comparable, CustomStringConvertible {
    /// The accepted range, in seconds.
    public static let bounds: ClosedRange<Double> = 1...120
    /// 30 seconds.
    public static let `default` = RequestTimeout(checked: 30)

    /// The timeout in seconds.
    public let seconds: Double

    private init(checked seconds: Double) { self.seconds = seconds }

    /// A timeout of `seconds`; outside 1–120 (or not a number) is a `.configuration` error.
    public init(seconds: Double) throws {
        guard seconds.isFinite, RequestTimeout.bounds.contains(seconds) else {
            throw AppStoreError(.configuration, "timeout \(seconds) s is outside \(Int(RequestTimeout.bounds.lowerBound))–\(Int(RequestTimeout.bounds.upperBound)) s")
        }
        self.seconds = seconds
    }

    /// `seconds` brought inside 1–120 (not-a-number becomes the default).
    public static func clamped(seconds: Double) -> RequestTimeout {
        guard !seconds.isNaN else { return .default }
        return RequestTimeout(checked: min(max(seconds, bounds.lowerBound), bounds.upperBound))
    }

    /// The timeout as a duration.
    public var duration: Duration { .milliseconds(Int64((seconds * 1000).rounded())) }

    public var description: String { seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s" }

    public static func < (lhs: RequestTimeout, rhs: RequestTimeout) -> Bool { lhs.seconds < rhs.seconds }
}
