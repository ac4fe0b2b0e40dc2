import Foundation
import Synchronization
import Testing
@testable import AppStoreAPI
@testable import ReceiptCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-connection TCP server on 127.0.0.1 that misbehaves on demand, to check how
/// `URLSessionTransport` maps what really happens on a socket. Loopback only.
///
/// The listening descriptor belongs to the background work that accepts on it, which closes it
/// when it is done: after its one connection, or once the server is released without one (it
/// polls for that). Releasing the server never closes the number itself, so the accepting side
/// can never find that number handed to another test's socket meanwhile.
final class MisbehavingServer: @unchecked Sendable {
    enum Behaviour: Sendable {
        /// Reads the request, writes these bytes, closes.
        case respond(String)
        /// Reads the request, closes without a byte.
        case drop
        /// Reads the request, resets the connection (RST).
        case reset
        /// Reads the request and says nothing for `seconds`.
        case silent(seconds: Double)
    }

    /// Whether the server has been released, shared with the accepting side.
    final class Release: Sendable {
        let released = Atomic<Bool>(false)
    }

    let port: UInt16
    private let release = Release()

    init(_ behaviour: Behaviour) throws {
        let fd = MisbehavingServer.listenOnLoopback()
        guard fd >= 0 else { throw AppStoreError(.configuration, "cannot listen on loopback") }
        port = MisbehavingServer.port(of: fd)
        let release = self.release
        DispatchQueue.global().async {
            defer { close(fd) }
            guard let connection = MisbehavingServer.acceptOne(fd, until: release) else { return }
            MisbehavingServer.readRequest(connection)
            switch behaviour {
            case .respond(let text):
                let bytes = Array(text.utf8)
                _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            case .drop:
                break
            case .reset:
                var option = linger(l_onoff: 1, l_linger: 0)
                _ = setsockopt(connection, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
            case .silent(let seconds):
                Thread.sleep(forTimeInterval: seconds)
            }
            close(connection)
        }
    }

    deinit { release.released.store(true, ordering: .releasing) }

    /// The first connection on `listener`, or nil once the server is released without one.
    private static func acceptOne(_ listener: Int32, until release: Release) -> Int32? {
        while !release.released.load(ordering: .acquiring) {
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 50) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            return connection >= 0 ? connection : nil
        }
        return nil
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/verifyReceipt") ?? URL(fileURLWithPath: "/") }

    /// A loopback port that refuses connections for as long as the value lives: bound, so no
    /// other test's server can take it meanwhile (a port merely closed could be handed to the
    /// next server that asks, which then answered the connection), and never listening.
    final class RefusingPort {
        let port: UInt16
        private let fd: Int32

        init() {
            fd = MisbehavingServer.listenOnLoopback(listening: false)
            port = MisbehavingServer.port(of: fd)
        }

        deinit { close(fd) }
    }

    private static func listenOnLoopback(listening: Bool = true) -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, !listening || listen(fd, 4) == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    private static func port(of fd: Int32) -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Reads until the end of the headers and the announced body (small requests only).
    private static func readRequest(_ fd: Int32) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < 1 << 20 {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            received += buffer.prefix(count)
            let text = String(decoding: received, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { continue }
            let head = text[..<end.lowerBound].lowercased()
            let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            if received.count >= text.utf8.distance(from: text.utf8.startIndex, to: end.upperBound) + length { return }
        }
    }
}

@Suite("AppStore: URLSessionTransport on loopback")
struct AppStoreURLSessionTransportTests {
    static func request(_ url: URL, timeout: Double = 30) throws -> HTTPRequest {
        HTTPRequest(method: "POST", url: url, headers: ["Content-Type": "application/json"], body: Array(#"{"receipt-data":"MIIT"}"#.utf8),
                    timeout: try RequestTimeout(seconds: timeout))
    }

    @Test("an answer comes back whole, header names lower-cased")
    func answer() async throws {
        let server = try MisbehavingServer(.respond("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nRetry-After: 7\r\nContent-Length: 12\r\nConnection: close\r\n\r\n{\"status\":0}"))
        let response = try await URLSessionTransport().send(try Self.request(server.url))
        #expect(response.status == 200)
        #expect(response.header("retry-after") == "7" && response.headers["content-type"] == "application/json")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"status":0}"#)
    }

    @Test("nothing listening is connectionRefused")
    func refused() async throws {
        let refusing = MisbehavingServer.RefusingPort()
        let url = try #require(URL(string: "http://127.0.0.1:\(refusing.port)/verifyReceipt"))
        let error = try await #require(throws: AppStoreError.self) { try await URLSessionTransport().send(try Self.request(url)) }
        withExtendedLifetime(refusing) {}
        #expect(error.code == .connectionRefused, "\(error.reason)")
    }

    @Test("a connection closed or reset before an answer is connectionLost")
    func dropped() async throws {
        for behaviour in [MisbehavingServer.Behaviour.drop, .reset] {
            let server = try MisbehavingServer(behaviour)
            let error = try await #require(throws: AppStoreError.self) { try await URLSessionTransport().send(try Self.request(server.url)) }
            #expect(error.code == .connectionLost, "\(behaviour): \(error.reason)")
        }
    }

    @Test("a silent server is a timeout at the request's deadline")
    func timeout() async throws {
        let server = try MisbehavingServer(.silent(seconds: 4))
        let error = try await #require(throws: AppStoreError.self) {
            try await URLSessionTransport().send(try Self.request(server.url, timeout: 1))
        }
        #expect(error.code == .timeout, "\(error.reason)")
    }

    @Test("an answer over the size limit is refused, announced or not")
    func tooLarge() async throws {
        let body = String(repeating: "x", count: 5000)
        let announced = try MisbehavingServer(.respond("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\nConnection: close\r\n\r\n\(body)"))
        let first = try await #require(throws: AppStoreError.self) {
            try await URLSessionTransport(maxResponseBytes: 1024).send(try Self.request(announced.url))
        }
        #expect(first.code == .responseTooLarge, "\(first.reason)")
        let unannounced = try MisbehavingServer(.respond("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n\(body)"))
        let second = try await #require(throws: AppStoreError.self) {
            try await URLSessionTransport(maxResponseBytes: 1024).send(try Self.request(unannounced.url))
        }
        #expect(second.code == .responseTooLarge, "\(second.reason)")
    }

    @Test("a redirect is returned, never followed (the body holds the shared secret)")
    func redirect() async throws {
        let target = try MisbehavingServer(.respond("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nOK"))
        let server = try MisbehavingServer(.respond("HTTP/1.1 307 Temporary Redirect\r\nLocation: \(target.url.absoluteString)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
        let response = try await URLSessionTransport().send(try Self.request(server.url))
        #expect(response.status == 307)
    }

    @Test("only http and https are sent")
    func schemes() async throws {
        let url = try #require(URL(string: "file:///etc/passwd"))
        await #expect(throws: AppStoreError(.configuration, "")) { try await URLSessionTransport().send(try Self.request(url)) }
    }
}
