import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain HTTP/1.1 client over a POSIX socket to 127.0.0.1, for tests that must know exactly
/// what was sent when: the connection is opened first (`connect`), the request goes out only
/// when `send` is called, it says `Connection: close`, and nothing is retried behind the test's
/// back (URLSession may resend a request on a reused connection). Every wait is bounded by the
/// socket's timeouts, so a server that never answers fails the test instead of hanging it.
enum LoopbackHTTP {
    /// What a server answered.
    struct Response: Sendable {
        let status: Int
        /// Header names lower-cased.
        let headers: [String: String]
        let body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }

        /// The body parsed as a JSON object (nil when it is not one).
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    }

    /// A request: everything but the connection.
    struct Request: Sendable {
        let port: Int
        let method: String
        let path: String
        var headers: [(String, String)] = []
        var body: [UInt8] = []
    }

    /// A failure to reach the server at all.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The most an answer may hold (this client is for the service's small JSON answers).
    static let maxAnswerBytes = 4 << 20
    /// How long a connect, a send or a read may wait.
    static let timeoutSeconds = 60

    /// An open connection to 127.0.0.1:`port`, ready to send one request.
    final class Connection {
        private let descriptor: Int32

        init(port: Int) throws {
            // Stored only once connected: a throwing init with every property set runs deinit,
            // which would close the number again, by then perhaps another test's socket.
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw Failure(description: "socket(): \(String(cString: strerror(errno)))") }
            var timeout = timeval(tv_sec: LoopbackHTTP.timeoutSeconds, tv_usec: 0)
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                let why = String(cString: strerror(errno))
                close(descriptor)
                throw Failure(description: "connect to 127.0.0.1:\(port): \(why)")
            }
            self.descriptor = descriptor
        }

        deinit { close(descriptor) }

        /// Sends `request` and reads the answer to the end (the server closes: `Connection: close`).
        func send(_ request: Request) throws -> Response {
            var head = "\(request.method) \(request.path) HTTP/1.1\r\nHost: 127.0.0.1:\(request.port)\r\nConnection: close\r\n"
            head += "Content-Length: \(request.body.count)\r\n"
            for (name, value) in request.headers { head += "\(name): \(value)\r\n" }
            let bytes = Array((head + "\r\n").utf8) + request.body
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { throw Failure(description: "\(request.method) \(request.path): send failed: \(String(cString: strerror(errno)))") }
                sent += n
            }
            var answer: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            while answer.count <= LoopbackHTTP.maxAnswerBytes {
                let n = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if n == 0 { break }
                guard n > 0 else {
                    throw Failure(description: "\(request.method) \(request.path): no whole answer (\(answer.count) bytes read): \(String(cString: strerror(errno)))")
                }
                answer += buffer[0..<n]
            }
            return try LoopbackHTTP.parse(answer, what: "\(request.method) \(request.path)")
        }
    }

    /// Connects and sends `request` in one go.
    static func send(_ request: Request) throws -> Response { try Connection(port: request.port).send(request) }

    /// A whole answer, read up to the server's close: status line, headers, a body of its Content-Length.
    static func parse(_ bytes: [UInt8], what: String) throws -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            throw Failure(description: "\(what): the answer has no end of headers (\(bytes.count) bytes)")
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw Failure(description: "\(what): not an HTTP status line: \(lines.first ?? "")")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(bytes[(end + 4)...])
        if let length = headers["content-length"].flatMap(Int.init) {
            guard body.count >= length else { throw Failure(description: "\(what): body cut at \(body.count) of \(length) bytes") }
            body = Array(body.prefix(length))
        }
        return Response(status: status, headers: headers, body: body)
    }
}
