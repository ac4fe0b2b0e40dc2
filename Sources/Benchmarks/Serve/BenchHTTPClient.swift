import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 client over one kept-alive loopback connection, for the serve bench: it
/// measures the server, not a client library. Requests carry Content-Length; answers are read by
/// theirs. Every wait is bounded by socket timeouts.
final class BenchHTTPClient {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        // Stored only once connected: a throwing init with every property set runs deinit, which
        // would close the number a second time, by then perhaps another thread's descriptor.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchmarkError.ledger("serve bench: socket: errno \(errno)") }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw BenchmarkError.ledger("serve bench: connect to 127.0.0.1:\(port): errno \(code)")
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends one POST and returns the answer's status.
    func post(_ path: String, body: [UInt8], headers: String = "") throws -> Int {
        let head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\(headers)Content-Length: \(body.count)\r\n\r\n"
        var bytes = Array(head.utf8) + body
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw BenchmarkError.ledger("serve bench: send: errno \(errno)") }
            bytes.removeFirst(written)
        }
        return try readAnswer()
    }

    private func readAnswer() throws -> Int {
        var headEnd: Int?
        while headEnd == nil {
            headEnd = Self.find([13, 10, 13, 10], in: buffer).map { $0 + 4 }
            if headEnd == nil { try fill() }
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.split(separator: " ").count >= 2,
              let status = Int(statusLine.split(separator: " ")[1]) else {
            throw BenchmarkError.ledger("serve bench: not an HTTP answer: \(head.prefix(80))")
        }
        let length = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        while buffer.count < headEnd! + length { try fill() }
        buffer.removeFirst(headEnd! + length)
        return status
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw BenchmarkError.ledger("serve bench: the server closed the connection (errno \(errno))") }
        buffer += chunk[..<count]
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<start + needle.count]) == needle { return start }
        }
        return nil
    }
}
