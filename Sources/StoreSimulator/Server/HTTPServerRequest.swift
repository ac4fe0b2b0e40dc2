import Foundation

/// One parsed HTTP/1.x request, as `HTTPRequestParser` read it off the wire:
///
///     POST /sandbox/verifyReceipt?x=1 HTTP/1.1
///     Host: 127.0.0.1:8080
///     Content-Type: application/json
///     Content-Length: 27
///
///     {"receipt-data":"MIIT…"}
///
/// Header names keep their case as sent; look-ups ignore case. `path` is percent-decoded, `query`
/// holds the decoded `name=value` pairs in order (`+` read as a space).
public struct HTTPServerRequest: Sendable {
    /// The method token as sent ("GET", "POST"); methods are case-sensitive.
    public let method: String
    /// The request target as sent ("/inApps/v2/history/1000?revision=abc").
    public let target: String
    /// The decoded path of the target ("/inApps/v2/history/1000").
    public let path: String
    /// The decoded query pairs, in order.
    public let query: [(name: String, value: String)]
    /// "HTTP/1.1" or "HTTP/1.0".
    public let version: String
    /// The header fields in order, values trimmed of surrounding spaces and tabs.
    public let headers: [(name: String, value: String)]
    /// The body (Content-Length bytes; empty without one).
    public let body: [UInt8]

    /// A request from its parts (the parser's output; tests may build one directly).
    public init(method: String, target: String, path: String, query: [(name: String, value: String)],
                version: String, headers: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// A test request: `target` split into path and query, no percent-decoding errors expected.
    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        let (path, query) = HTTPTarget.split(target) ?? (target, [])
        self.init(method: method, target: target, path: path, query: query, version: "HTTP/1.1",
                  headers: headers, body: body)
    }

    /// The first value of header `name` (any case), or nil.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Every value of header `name` (any case), in order.
    public func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// The first value of query parameter `name`, or nil.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// Whether the client asked to keep the connection open after this request: HTTP/1.1 unless
    /// `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    public var wantsKeepAlive: Bool {
        let tokens = headerValues("Connection")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if tokens.contains("close") { return false }
        return version == "HTTP/1.1" || tokens.contains("keep-alive")
    }
}

/// Splits and decodes request targets (`/path?query`).
enum HTTPTarget {
    /// The decoded path and query pairs, or nil when the percent-encoding is broken or the path
    /// decodes to something that is not UTF-8.
    static func split(_ target: String) -> (path: String, query: [(name: String, value: String)])? {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard let rawPath = parts.first, let path = percentDecode(rawPath, plusIsSpace: false) else { return nil }
        var query: [(name: String, value: String)] = []
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") where !pair.isEmpty {
                let nameValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = percentDecode(nameValue[0], plusIsSpace: true),
                      let value = percentDecode(nameValue.count == 2 ? nameValue[1] : "", plusIsSpace: true) else { return nil }
                query.append((name, value))
            }
        }
        return (path, query)
    }

    /// `%XX` sequences decoded (and `+` as a space in queries); nil for a broken escape or bytes
    /// that are not UTF-8.
    static func percentDecode(_ text: Substring, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(0x20)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
