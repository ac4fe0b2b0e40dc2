import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP client over POSIX sockets for what URLSession will not send: half requests,
/// garbage, a chosen source address, a reset instead of a close. Every wait is bounded by the
/// socket timeouts, so a test that goes wrong fails instead of hanging.
final class RawClient {
    private(set) var fd: Int32
    private var pending: [UInt8] = []

    /// Connects to 127.0.0.1:`port` (from `source`, another loopback address, when given), or
    /// to [::1]:`port` with `ipv6`. Throws `Refused` when the connection is refused, `Failure`
    /// for anything else.
    init(port: Int, source: String? = nil, ipv6: Bool = false, timeout: Double = 20) throws {
        // The socket is stored only once connected: an init that throws after every stored
        // property is set runs deinit, which would close the number a second time, by then
        // perhaps another test's socket.
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket: errno \(errno)") }
        var seconds = timeval(tv_sec: Int(timeout), tv_usec: Int(timeout.truncatingRemainder(dividingBy: 1) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = Self.address(source, port: 0)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { close(fd); throw Failure("bind \(source): errno \(errno)") }
        }
        let connected: Int32
        if ipv6 {
            var remote = sockaddr_in6()
            remote.sin6_family = sa_family_t(AF_INET6)
            remote.sin6_port = in_port_t(UInt16(port)).bigEndian
            remote.sin6_addr = in6addr_loopback
            connected = withUnsafePointer(to: &remote) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var remote = Self.address("127.0.0.1", port: port)
            connected = withUnsafePointer(to: &remote) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            if code == ECONNREFUSED { throw Refused() }
            throw Failure("connect: errno \(code)")
        }
        self.fd = fd
    }

    deinit { if fd >= 0 { close(fd) } }

    struct Refused: Error {}

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private static func address(_ host: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        return address
    }

    /// Sends every byte; false when the connection failed (reset, closed, timed out).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// Sends the UTF-8 of `text`.
    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// What one read gave: bytes, the peer's end of the stream, or the socket timeout.
    enum Read: Equatable {
        case bytes([UInt8])
        case closed
        case timedOut
    }

    /// One read of whatever has arrived (pending bytes first).
    func read() -> Read {
        if !pending.isEmpty {
            defer { pending = [] }
            return .bytes(pending)
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 { return .bytes(Array(buffer[..<count])) }
        if count == 0 { return .closed }
        return errno == EAGAIN || errno == EWOULDBLOCK ? .timedOut : .closed
    }

    /// Whether data or the end is waiting right now, without waiting.
    func peerHasSpoken() -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) > 0
    }

    /// Everything until the peer closes (`closed`) or the socket times out (`closed` false).
    func readToEnd() -> (bytes: [UInt8], closed: Bool) {
        var all: [UInt8] = []
        while true {
            switch read() {
            case .bytes(let bytes): all += bytes
            case .closed: return (all, true)
            case .timedOut: return (all, false)
            }
        }
    }

    /// One response (status line, header fields, a Content-Length body), or nil when the
    /// connection ended or timed out first.
    func readResponse() -> RawResponse? {
        var buffer: [UInt8] = []
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            guard case .bytes(let bytes) = read() else { return nil }
            buffer += bytes
            headEnd = buffer.firstRange(of: separator)?.upperBound
        }
        guard let headEnd else { return nil }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        var body = Array(buffer[headEnd...])
        while body.count < length {
            guard case .bytes(let bytes) = read() else { return nil }
            body += bytes
        }
        pending = Array(body[length...])
        return RawResponse(status: status, headers: headers, body: Array(body[..<length]))
    }

    /// Closes with a reset (SO_LINGER 0) instead of an orderly end.
    func reset() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(fd)
        fd = -1
    }

    /// Whether a connection to `port` is refused now.
    static func isRefused(port: Int) -> Bool {
        do {
            _ = try RawClient(port: port, timeout: 2)
            return false
        } catch {
            return error is Refused
        }
    }
}

/// A response as `RawClient.readResponse` read it.
struct RawResponse {
    let status: Int
    /// Lower-cased names.
    let headers: [String: String]
    let body: [UInt8]

    /// The body as a JSON object.
    func json() throws -> [String: Any] {
        try require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
    }
}

/// `#require` outside a test: throws when nil.
private func require<T>(_ value: T?) throws -> T {
    guard let value else { throw RawClient.Failure("expected a value") }
    return value
}
