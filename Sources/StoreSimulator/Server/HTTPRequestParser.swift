import Foundation

/// What `HTTPRequestParser.parse` made of the bytes received so far.
public enum HTTPParseResult: Sendable {
    /// A whole request, which took the first `consumed` bytes; the rest belongs to the next
    /// (pipelined) request.
    case complete(HTTPServerRequest, consumed: Int)
    /// Nothing wrong yet, but the request is not all there: read more.
    case incomplete
    /// The bytes can never become an acceptable request: answer `status` (400, 405, 411, 413,
    /// 414, 431, 505) with `reason` and close the connection.
    case invalid(status: Int, reason: String)
}

/// A pure HTTP/1.0 and HTTP/1.1 request parser (RFC 9112): bytes in, a result out, no I/O, no
/// state, so it can be unit-tested and fuzzed on any input. Grammar accepted:
///
///     request      = *( CRLF ) request-line *( field-line CRLF ) CRLF [ body ]
///     request-line = method SP origin-form SP ( "HTTP/1.1" / "HTTP/1.0" ) CRLF
///     field-line   = token ":" OWS field-value OWS          -- no obs-fold
///     body         = exactly Content-Length octets          -- no Transfer-Encoding
///
/// A bare LF is accepted where CRLF is expected. Limits (`Limits`) are checked as the bytes arrive,
/// so an oversized request is refused before all of it is read.
public enum HTTPRequestParser {
    /// Size limits; a request over any of them is refused.
    public struct Limits: Sendable {
        /// Longest request line (method, target, version), bytes: over it → 414.
        public var maxRequestLineBytes: Int
        /// Most header fields: over it → 431.
        public var maxHeaderCount: Int
        /// Longest header section (every field line), bytes: over it → 431.
        public var maxHeaderBytes: Int
        /// Largest body, bytes: over it → 413.
        public var maxBodyBytes: Int

        /// Limits from their values; the defaults are 8 KiB, 100 fields, 32 KiB and 1 MiB.
        public init(maxRequestLineBytes: Int = 8 * 1024, maxHeaderCount: Int = 100,
                    maxHeaderBytes: Int = 32 * 1024, maxBodyBytes: Int = 1024 * 1024) {
            self.maxRequestLineBytes = maxRequestLineBytes
            self.maxHeaderCount = maxHeaderCount
            self.maxHeaderBytes = maxHeaderBytes
            self.maxBodyBytes = maxBodyBytes
        }

        /// 8 KiB request line, 100 fields in at most 32 KiB, 1 MiB body.
        public static let `default` = Limits()
    }

    /// Methods that must say how long their body is.
    static let methodsWithBody: Set<String> = ["POST", "PUT", "PATCH"]

    /// Parses the start of `bytes` as one request.
    public static func parse(_ bytes: [UInt8], limits: Limits = .default) -> HTTPParseResult {
        switch parseHead(bytes, limits: limits) {
        case .incomplete: return .incomplete
        case .invalid(let status, let reason): return .invalid(status: status, reason: reason)
        case .head(let head):
            let end = head.bodyStart + head.contentLength
            guard bytes.count >= end else { return .incomplete }
            let request = HTTPServerRequest(method: head.method, target: head.target, path: head.path, query: head.query,
                                            version: head.version, headers: head.headers,
                                            body: Array(bytes[head.bodyStart..<end]))
            return .complete(request, consumed: end)
        }
    }

    /// Whether the head in `bytes` is complete, asks `Expect: 100-continue`, and the body has not
    /// begun to arrive: the server should then send `100 Continue` (curl waits for it).
    public static func awaitsContinue(_ bytes: [UInt8], limits: Limits = .default) -> Bool {
        guard case .head(let head) = parseHead(bytes, limits: limits), head.contentLength > 0,
              bytes.count == head.bodyStart else { return false }
        return head.headers.contains { field in
            field.name.caseInsensitiveCompare("Expect") == .orderedSame && field.value.lowercased() == "100-continue"
        }
    }

    // MARK: - The head

    struct Head {
        var method: String, target: String, path: String, version: String
        var query: [(name: String, value: String)]
        var headers: [(name: String, value: String)]
        var bodyStart: Int, contentLength: Int
    }

    enum HeadResult {
        case head(Head)
        case incomplete
        case invalid(Int, String)
    }

    static let cr: UInt8 = 0x0D, lf: UInt8 = 0x0A, space: UInt8 = 0x20, tab: UInt8 = 0x09

    static func parseHead(_ bytes: [UInt8], limits: Limits) -> HeadResult {
        var start = 0
        while start < bytes.count, bytes[start] == cr || bytes[start] == lf {
            start += 1
            guard start <= limits.maxRequestLineBytes else { return .invalid(400, "request starts with too many empty lines") }
        }
        // The request line: visible ASCII and spaces, CR only right before LF.
        var index = start
        while index < bytes.count, bytes[index] != lf {
            let byte = bytes[index]
            let allowed = (byte >= 0x20 && byte < 0x7F) || (byte == cr && (index + 1 == bytes.count || bytes[index + 1] == lf))
            guard allowed else {
                return .invalid(400, "request line: byte 0x\(String(byte, radix: 16)) at offset \(index) is not allowed")
            }
            guard index - start <= limits.maxRequestLineBytes else {
                return .invalid(414, "request line is longer than \(limits.maxRequestLineBytes) bytes")
            }
            index += 1
        }
        guard index < bytes.count else { return .incomplete }
        let lineEnd = index > start && bytes[index - 1] == cr ? index - 1 : index
        guard lineEnd - start <= limits.maxRequestLineBytes else {
            return .invalid(414, "request line is longer than \(limits.maxRequestLineBytes) bytes")
        }
        let line = String(decoding: bytes[start..<lineEnd], as: UTF8.self)
        let parts = line.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            return .invalid(400, "request line must be 'METHOD TARGET HTTP/1.1', got \(parts.count) space-separated parts")
        }
        let method = String(parts[0]), target = String(parts[1]), version = String(parts[2])
        guard !method.isEmpty, method.count <= 32, method.utf8.allSatisfy(isTokenByte) else {
            return .invalid(400, "request line: method is not a token")
        }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            if version.hasPrefix("HTTP/"), version.count == 8 {
                return .invalid(505, "HTTP version \(version) is not supported; use HTTP/1.1")
            }
            return .invalid(400, "request line: '\(version.prefix(16))' is not an HTTP version")
        }
        guard target.hasPrefix("/") else {
            return .invalid(400, "request target must be a path starting with '/'")
        }
        guard let (path, query) = HTTPTarget.split(target) else {
            return .invalid(400, "request target has broken percent-encoding or is not UTF-8")
        }
        switch parseFields(bytes, from: index + 1, limits: limits) {
        case .incomplete: return .incomplete
        case .invalid(let status, let reason): return .invalid(status, reason)
        case .fields(let headers, let bodyStart):
            switch bodyLength(headers, method: method, limits: limits) {
            case .failure(let failure): return .invalid(failure.status, failure.reason)
            case .success(let length):
                return .head(Head(method: method, target: target, path: path, version: version, query: query,
                                  headers: headers, bodyStart: bodyStart, contentLength: length))
            }
        }
    }

    enum FieldsResult {
        case fields([(name: String, value: String)], bodyStart: Int)
        case incomplete
        case invalid(Int, String)
    }

    /// The header section from `from` up to and including its empty line.
    static func parseFields(_ bytes: [UInt8], from: Int, limits: Limits) -> FieldsResult {
        var fields: [(name: String, value: String)] = []
        var lineStart = from
        while true {
            guard let lf = firstLF(bytes, from: lineStart) else {
                return bytes.count - from > limits.maxHeaderBytes
                    ? .invalid(431, "header section is larger than \(limits.maxHeaderBytes) bytes") : .incomplete
            }
            let lineEnd = lf > lineStart && bytes[lf - 1] == cr ? lf - 1 : lf
            guard lineEnd - from <= limits.maxHeaderBytes else {
                return .invalid(431, "header section is larger than \(limits.maxHeaderBytes) bytes")
            }
            if lineEnd == lineStart { return .fields(fields, bodyStart: lf + 1) }
            guard fields.count < limits.maxHeaderCount else {
                return .invalid(431, "more than \(limits.maxHeaderCount) header fields")
            }
            switch field(bytes[lineStart..<lineEnd]) {
            case .success(let field): fields.append(field)
            case .failure(let failure): return .invalid(failure.status, failure.reason)
            }
            lineStart = lf + 1
        }
    }

    private static func firstLF(_ bytes: [UInt8], from: Int) -> Int? {
        var index = from
        while index < bytes.count {
            if bytes[index] == lf { return index }
            index += 1
        }
        return nil
    }

    struct Failure: Error {
        let status: Int
        let reason: String
    }

    /// One `name: value` line (without its line end).
    static func field(_ line: ArraySlice<UInt8>) -> Result<(name: String, value: String), Failure> {
        guard let first = line.first, first != space, first != tab else {
            return .failure(Failure(status: 400, reason: "header line starts with whitespace (obsolete line folding is not accepted)"))
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            return .failure(Failure(status: 400, reason: "header line has no ':'"))
        }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
            return .failure(Failure(status: 400, reason: "header name is not a token"))
        }
        var value = line[(colon + 1)...]
        while let head = value.first, head == space || head == tab { value = value.dropFirst() }
        while let tail = value.last, tail == space || tail == tab { value = value.dropLast() }
        guard value.allSatisfy({ $0 == tab || ($0 >= 0x20 && $0 != 0x7F) }) else {
            return .failure(Failure(status: 400, reason: "header \(String(decoding: name, as: UTF8.self)) holds a control character"))
        }
        return .success((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }

    /// The body length the head announces: Content-Length, required for methods with a body;
    /// Transfer-Encoding is refused.
    static func bodyLength(_ headers: [(name: String, value: String)], method: String, limits: Limits) -> Result<Int, Failure> {
        let transferEncodings = headers.filter { $0.name.caseInsensitiveCompare("Transfer-Encoding") == .orderedSame }
        let lengths = headers.filter { $0.name.caseInsensitiveCompare("Content-Length") == .orderedSame }.map(\.value)
        if !transferEncodings.isEmpty {
            guard lengths.isEmpty else {
                return .failure(Failure(status: 400, reason: "both Transfer-Encoding and Content-Length given"))
            }
            return .failure(Failure(status: 411, reason: "Transfer-Encoding (chunked bodies) is not supported; send Content-Length"))
        }
        guard let text = lengths.first else {
            return methodsWithBody.contains(method)
                ? .failure(Failure(status: 411, reason: "\(method) needs a Content-Length")) : .success(0)
        }
        guard lengths.allSatisfy({ $0 == text }) else {
            return .failure(Failure(status: 400, reason: "Content-Length given \(lengths.count) times with different values"))
        }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return .failure(Failure(status: 400, reason: "Content-Length '\(text.prefix(24))' is not a decimal number"))
        }
        guard let length = Int(text), length <= limits.maxBodyBytes else {
            return .failure(Failure(status: 413, reason: "body of \(text.prefix(24)) bytes is over the \(limits.maxBodyBytes)-byte limit"))
        }
        return .success(length)
    }

    /// RFC 9110 `tchar`: the bytes a method or header name may hold.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
